"""Imports run downward only (DESIGN, "Layers"): the kernel imports no other WorkGym package;
the leaves (proxy, reward engine, telemetry, replicas) import the kernel and never the
composition root nor each other. Inside a package, no module imports itself back through
others (no circle); a replica app never imports another app, and the runtime every app stands
on imports none.

Every import counts: at module level, in a function, under ``TYPE_CHECKING``. One that runs
late still ties the two modules together: moved to module level it would fail, and the graph
of what depends on what is the same. In the graph of a package's modules, ``import a.b.c`` and
``from a.b import c`` are edges to the module they name (``a.b.c``, or ``a.b`` when ``c`` is a
name in it: the importer needs that module whole, even its own package), and to the packages
Python runs first to get there (``a``, ``a.b``: their ``__init__``) but for the importer's own
packages: those are already running when it runs and are not run again."""

from __future__ import annotations

import ast
import importlib.util
import shutil
from collections import deque
from collections.abc import Collection, Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from replicas.catalog import app_names
from workgym_core.asgi import READ_METHODS
from workgym_core.timestamps import ISO_FORMAT

ROOT = "workgym"  # the composition root: gym API, SDK, CLI
KERNEL = "workgym_core"
LEAVES = ("workgym_proxy", "workgym_reward", "workgym_telemetry", "replicas")
TOP = "workgym_perf"  # the benchmark and load programs: on top, nothing imports them
PACKAGES = (TOP, ROOT, KERNEL, *LEAVES)
RUNTIME = "runtime"  # replicas/runtime: what every app stands on, not an app

# What each package may import of the others.
ALLOWED: dict[str, frozenset[str]] = {
    ROOT: frozenset({KERNEL, *LEAVES}),
    KERNEL: frozenset(),
    **{leaf: frozenset({KERNEL}) for leaf in LEAVES},
}

# One package's modules: dotted name -> (its file, whether it is a package's __init__).
Modules = dict[str, tuple[Path, bool]]
# What each module imports of its own package: imported module -> "file:line" of the import.
Graph = dict[str, dict[str, str]]


def _folder(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(next(iter(spec.submodule_search_locations)))


def _imports(tree: ast.AST, package: str) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, module, names) of every import in ``tree``: the module absolute (a relative
    import is resolved against ``package``, the importer's package) and the names ``from``
    takes of it (none for ``import``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")[:len(package.split(".")) - node.level + 1]
            base = node.module if not node.level else ".".join(
                [*parts, *([node.module] if node.module else [])])
            assert base, ast.dump(node)
            yield node.lineno, base, tuple(alias.name for alias in node.names)


def _modules(folder: Path) -> Modules:
    """Every module of the package in ``folder``, named as Python imports it."""
    found: Modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _where(path: Path, folder: Path, line: int) -> str:
    return f"{path.relative_to(folder.parent)}:{line}"


def _crossings(package: str, folder: Path | None = None) -> list[str]:
    """Every import of another WorkGym package that ``package`` may not make."""
    folder = folder or _folder(package)
    found = []
    for name, (path, is_package) in _modules(folder).items():
        own = name if is_package else name.rpartition(".")[0]
        for line, module, _ in _imports(ast.parse(path.read_text(), str(path)), own):
            imported = module.partition(".")[0]
            if imported in PACKAGES and imported != package \
                    and imported not in ALLOWED[package]:
                found.append(f"{_where(path, folder, line)} imports {imported}")
    return found


def _graph(folder: Path) -> Graph:
    """What each module of the package in ``folder`` imports of the package's modules."""
    modules = _modules(folder)

    def named(dotted: str) -> str | None:  # the longest prefix that is one of the modules
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: Graph = {}
    for name, (path, is_package) in modules.items():
        own = name if is_package else name.rpartition(".")[0]
        edges = graph.setdefault(name, {})
        for line, module, names in _imports(ast.parse(path.read_text(), str(path)), own):
            for dotted in [f"{module}.{n}" for n in names if f"{module}.{n}" in modules] \
                    or [module]:
                target = named(dotted)
                if target is None:
                    continue
                parts = target.split(".")
                run_first = (".".join(parts[:i]) for i in range(1, len(parts)))
                for imported in (target, *(p for p in run_first
                                           if not name.startswith(f"{p}."))):
                    if imported in modules and imported != name:
                        edges.setdefault(imported, _where(path, folder, line))
    return graph


def _components(graph: Graph) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.get(module, {}):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while (member := stack.pop()) != module:
                component.append(member)
            if component:
                found.append(sorted([module, *component]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def _circles(folder: Path) -> list[str]:
    """One circle of each tangle of the package in ``folder``, the shortest through its first
    module: ``a -> b -> a (where a imports b; where b imports a)``."""
    graph = _graph(folder)
    found = []
    for component in _components(graph):
        start, members = component[0], set(component)
        came_from: dict[str, str] = {}
        queue = deque([start])
        while start not in came_from:
            module = queue.popleft()
            for imported in graph[module]:
                if imported in members and imported not in came_from:
                    came_from[imported] = module
                    queue.append(imported)
        chain = [start]
        while (before := came_from[chain[0]]) != start:
            chain.insert(0, before)
        chain.insert(0, start)
        steps = [f"{graph[a][b]} imports {b}" for a, b in pairwise(chain)]
        found.append(f"{' -> '.join(chain)} ({'; '.join(steps)})")
    return found


def _app_crossings(folder: Path, apps: Collection[str]) -> list[str]:
    """Every import of an app by another app or by the runtime, in the replicas' ``folder``."""
    found: dict[tuple[str, str], str] = {}
    for name, edges in _graph(folder).items():
        importer = name.split(".")[1] if "." in name else ""
        if importer not in {*apps, RUNTIME}:
            continue
        for imported, where in edges.items():
            app = imported.split(".")[1] if "." in imported else ""
            if app in apps and app != importer:
                who = "the runtime" if importer == RUNTIME else f"app {importer}"
                found.setdefault((name, app), f"{where} imports {imported}: {who} imports "
                                              f"app {app}")
    return list(found.values())


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_run_downward_only(package: str) -> None:
    assert _crossings(package) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle_inside_a_package(package: str) -> None:
    assert _circles(_folder(package)) == []


def test_no_app_imports_another_app_and_the_runtime_imports_none() -> None:
    assert _app_crossings(_folder("replicas"), app_names()) == []


def _written(value: object) -> list[str]:
    """Where the source of every package writes ``value``: a string, or a set of strings."""
    found = []
    for package in PACKAGES:
        folder = _folder(package)
        for path, _ in _modules(folder).values():
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Constant) and node.value == value or isinstance(
                        node, ast.Set) and {getattr(e, "value", e) for e in node.elts} == value:
                    found.append(_where(path, folder, node.lineno))
    return found


@pytest.mark.parametrize(("value", "home"), [(ISO_FORMAT, "workgym_core/timestamps.py"),
                                              (set(READ_METHODS), "workgym_core/asgi.py")])
def test_kernel_wide_facts_are_written_once(value: object, home: str) -> None:
    """The timestamp format and the methods that only read: one definition, imported."""
    assert [where.partition(":")[0] for where in _written(value)] == [home]


def test_the_scan_sees_every_kind_of_import() -> None:
    source = """
import workgym.cli
from workgym_reward import score
from . import sibling
if TYPE_CHECKING:
    from ..faults import Fault

def later():
    import replicas.catalog as catalog
"""
    assert list(_imports(ast.parse(source), "workgym_proxy.plan")) == [
        (2, "workgym.cli", ()), (3, "workgym_reward", ("score",)),
        (4, "workgym_proxy.plan", ("sibling",)), (6, "workgym_proxy.faults", ("Fault",)),
        (9, "replicas.catalog", ())]


def _plant(path: Path, line: str) -> int:
    """``line`` added at the end of ``path``; its line number."""
    lines = [*path.read_text().splitlines(), *line.splitlines()]
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def test_a_circle_of_every_kind_of_import_is_told_as_a_chain(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def later():\n    import pkg.c\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                  "    from .a import Thing\n")
    assert _circles(package) == ["pkg.a -> pkg.b -> pkg.c -> pkg.a (pkg/a.py:1 imports pkg.b; "
                                 "pkg/b.py:2 imports pkg.c; pkg/c.py:4 imports pkg.a)"]


def test_a_package_run_on_the_way_closes_a_circle(tmp_path: Path) -> None:
    """``from pkg.sub.leaf import x`` runs pkg/sub/__init__.py first: a circle if it imports
    the importer."""
    sub = tmp_path / "pkg" / "sub"
    sub.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "top.py").write_text("from pkg.sub.leaf import x\n")
    (sub / "__init__.py").write_text("from ..top import y\n")
    (sub / "leaf.py").write_text("x = 1\n")
    assert _circles(tmp_path / "pkg") == [
        "pkg.sub -> pkg.top -> pkg.sub (pkg/sub/__init__.py:1 imports pkg.top; "
        "pkg/top.py:1 imports pkg.sub)"]


def test_a_circle_planted_in_the_composition_root_is_found(tmp_path: Path) -> None:
    folder = tmp_path / ROOT
    shutil.copytree(_folder(ROOT), folder)
    assert _circles(folder) == []
    # Any import the root makes, made back: a circle of two.
    importer, imported = next((a, b) for a, edges in sorted(_graph(folder).items())
                              for b in edges if not b.startswith(f"{a}."))
    path = _modules(folder)[imported][0]
    line = _plant(path, f"import {importer}")
    found = _circles(folder)
    assert len(found) == 1 and f"{_where(path, folder, line)} imports {importer}" in found[0]
    chain = found[0].partition(" (")[0].split(" -> ")
    assert chain[0] == chain[-1] and {importer, imported} <= set(chain), found


@pytest.fixture
def replicas(tmp_path: Path) -> Path:
    """A copy of replicas/ to plant imports in."""
    folder = tmp_path / "replicas"
    shutil.copytree(_folder("replicas"), folder)
    assert _app_crossings(folder, app_names()) == []
    return folder


def test_an_app_importing_another_app_is_found(replicas: Path) -> None:
    first, second = sorted(app_names())[:2]
    relative = replicas / first / "__init__.py"
    absolute = replicas / second / "__init__.py"
    at = _plant(relative, f"from .. import {second}")
    back = _plant(absolute, f"import replicas.{first}")
    assert _app_crossings(replicas, app_names()) == [
        f"replicas/{first}/__init__.py:{at} imports replicas.{second}: "
        f"app {first} imports app {second}",
        f"replicas/{second}/__init__.py:{back} imports replicas.{first}: "
        f"app {second} imports app {first}"]


def test_the_runtime_importing_an_app_is_found(replicas: Path) -> None:
    app = sorted(app_names())[0]
    at = _plant(replicas / RUNTIME / "__init__.py",
                f"def later():\n    from replicas.{app} import SPEC")
    assert _app_crossings(replicas, app_names()) == [
        f"replicas/{RUNTIME}/__init__.py:{at} imports replicas.{app}: "
        f"the runtime imports app {app}"]


def test_a_crossing_planted_in_the_kernel_is_found(tmp_path: Path) -> None:
    folder = tmp_path / KERNEL
    shutil.copytree(_folder(KERNEL), folder)
    at = _plant(folder / "__init__.py", "from workgym.cli import main")
    assert _crossings(KERNEL, folder) == [f"{KERNEL}/__init__.py:{at} imports {ROOT}"]
