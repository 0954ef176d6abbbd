"""The environment's version, content-addressed: what a results file, a task set or an export
was made against, so that two runs are only compared when they ran the same environment.

Four parts, each the SHA-256 of a canonical listing (relative path and content hash of every
file, sorted), so the version changes when and only when something that decides an episode
does:

* ``code``: the Python sources of the packages that serve and score an episode (``workgym``,
  ``workgym_core``, ``workgym_proxy``, ``workgym_reward``, ``workgym_telemetry``, ``replicas``);
* ``data``: the apps' world data (every other file of ``replicas``: world and rules files,
  claims, fault presets in app.yaml, page templates);
* ``tasks``: the task files of every task root (the packaged tasks/ and ``WORKGYM_TASKS``);
* ``faults``: the fault plans by name (the proxy's presets and the apps'), as JSON.

The id is ``wg-`` and the first 16 hex digits of the hash of the four. Caches, bytecode and
documentation (``*.md``) are not part of it: they change nothing an episode does.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import orjson

PACKAGES = ("workgym", "workgym_core", "workgym_proxy", "workgym_reward", "workgym_telemetry",
            "replicas")
PARTS = ("code", "data", "tasks", "faults")
_SKIPPED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", "node_modules"})
_SKIPPED_SUFFIXES = frozenset({".pyc", ".pyo", ".md", ".png"})


@dataclass(frozen=True)
class EnvVersion:
    id: str
    parts: Mapping[str, str]

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "parts": dict(self.parts)}


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix not in _SKIPPED_SUFFIXES and not any(
                part in _SKIPPED_DIRS or part.startswith(".")
                for part in path.relative_to(root).parts):
            yield path


def _listing(files: Iterable[tuple[str, Path]]) -> str:
    """The hash of (name, content hash) lines, sorted by name."""
    digest = hashlib.sha256()
    for name, path in sorted(files):
        digest.update(f"{name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()


def _package_root(name: str) -> Path:
    module = importlib.import_module(name)
    return Path(next(iter(module.__path__))).resolve()


def _split_sources() -> tuple[str, str]:
    code: list[tuple[str, Path]] = []
    data: list[tuple[str, Path]] = []
    for package in PACKAGES:
        root = _package_root(package)
        for path in _files(root):
            name = f"{package}/{path.relative_to(root).as_posix()}"
            if path.suffix == ".py":
                code.append((name, path))
            elif package == "replicas":
                data.append((name, path))
            else:
                code.append((name, path))  # templates and schemas of the code's own
    return _listing(code), _listing(data)


def _tasks() -> str:
    from .tasks import task_roots

    return _listing((f"{index}/{path.relative_to(root).as_posix()}", path)
                    for index, root in enumerate(task_roots()) for path in _files(root))


def _faults() -> str:
    from .presets import fault_presets

    return hashlib.sha256(orjson.dumps(fault_presets(), option=orjson.OPT_SORT_KEYS)).hexdigest()


def version_of(parts: Mapping[str, str]) -> EnvVersion:
    combined = hashlib.sha256("".join(f"{p}={parts[p]}\n" for p in PARTS).encode()).hexdigest()
    return EnvVersion(f"wg-{combined[:16]}", dict(parts))


@cache
def current() -> EnvVersion:
    """This process's environment version (computed once: it hashes every source file)."""
    code, data = _split_sources()
    return version_of({"code": code, "data": data, "tasks": _tasks(), "faults": _faults()})


def differences(a: Mapping[str, object] | None, b: Mapping[str, object] | None) -> list[str]:
    """What differs between two recorded versions (``as_dict()``), e.g. ``["tasks differ"]``;
    [] when they are the same. A missing version is a difference of its own."""
    if not a or not b:
        return ["no environment version recorded" + (" in the first" if not a else "")
                + (" in the second" if not b else "")]
    if a.get("id") == b.get("id"):
        return []
    parts_a, parts_b = a.get("parts") or {}, b.get("parts") or {}
    assert isinstance(parts_a, Mapping) and isinstance(parts_b, Mapping)
    named = [f"{part} differ" for part in PARTS if parts_a.get(part) != parts_b.get(part)]
    return named or [f"versions differ ({a.get('id')} vs {b.get('id')})"]
