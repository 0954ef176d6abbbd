"""``workgym new-replica NAME``: a new app in the replica contract's shape (replicas/README.md).

It writes ``replicas/NAME/`` (a one-table app whose rows are the seed's identity's people:
models, world generator, rules, schemas, list/get/create/update routes on the runtime's
paging, a factory, a probe, ``actors.py``, ``brief.md``, a README skeleton),
``tests/replicas/NAME/`` (its own tests) and its one service entry in docker-compose.yml,
each rendered from a Jinja2 template file of ``factory/templates/new-replica/``
(``files/<path>.j2`` writes ``<path>``, ``{name}`` in it the app's name;
``compose-service.yml.j2`` the compose entry). As generated, it passes the contract test,
the fuzzer and the compose test; then make it the product it replicates.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from workgym_core.errors import InvalidRequest

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"^[a-z][a-z0-9]{1,30}$")

TEMPLATES = Path(__file__).parent / "factory" / "templates" / "new-replica"
FILES = TEMPLATES / "files"  # files/<path>.j2 -> <path>, "{name}" in it the app's name
COMPOSE_SERVICE = "compose-service.yml.j2"
# New entries go just before this line of docker-compose.yml (after the other apps').
COMPOSE_ANCHOR = "  gym:\n"


class ScaffoldError(InvalidRequest):
    """The app cannot be scaffolded (bad name, or it exists)."""


def scaffold(name: str, root: Path = ROOT) -> list[Path]:
    """Write the new app ``name`` (see the module docstring); the paths written."""
    if not NAME.fullmatch(name) or name == "runtime":
        raise ScaffoldError(f"an app name is 2-31 lower-case letters and digits, starting with "
                            f"a letter (and not 'runtime'): {name!r}")
    if not (root / "docker-compose.yml").is_file():
        raise ScaffoldError(f"new-replica writes into a WorkGym source checkout (replicas/, "
                            f"tests/, docker-compose.yml) and {root} is not one: run it from a "
                            f"clone installed with `pip install -e .`")
    if (root / "replicas" / name).exists():
        raise ScaffoldError(f"replicas/{name} exists already")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    words = {"name": name, "title": name.capitalize()}
    written = []
    for template in templates():
        path = root / template.removeprefix("files/").removesuffix(".j2").replace("{name}", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(env.get_template(template).render(words), encoding="utf-8")
        written.append(path)
    compose = root / "docker-compose.yml"
    text = compose.read_text(encoding="utf-8")
    if COMPOSE_ANCHOR in text:
        entry = env.get_template(COMPOSE_SERVICE).render(words)
        compose.write_text(text.replace(COMPOSE_ANCHOR, entry + COMPOSE_ANCHOR, 1),
                           encoding="utf-8")
        written.append(compose)
    return written


def templates() -> list[str]:
    """The app's template files, relative to :data:`TEMPLATES`, sorted."""
    return sorted(path.relative_to(TEMPLATES).as_posix() for path in FILES.rglob("*.j2"))
