"""Imports run downward only (DESIGN, "Layers"): the kernel imports no other WorkGym package;
the leaves (proxy, reward engine, telemetry, replicas) import the kernel and never the
composition root nor each other. Every import counts: at module level, in a function, under
``TYPE_CHECKING``."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = "workgym"  # the composition root: gym API, SDK, CLI
KERNEL = "workgym_core"
LEAVES = ("workgym_proxy", "workgym_reward", "workgym_telemetry", "replicas")
TOP = "workgym_perf"  # the benchmark and load programs: on top, nothing imports them
PACKAGES = (TOP, ROOT, KERNEL, *LEAVES)

# What each package may import of the others.
ALLOWED: dict[str, frozenset[str]] = {
    ROOT: frozenset({KERNEL, *LEAVES}),
    KERNEL: frozenset(),
    **{leaf: frozenset({KERNEL}) for leaf in LEAVES},
}


def _folder(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(next(iter(spec.submodule_search_locations)))


def _imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, top-level package) of every absolute import in ``tree``; relative imports
    never leave their package."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.partition(".")[0]


def _crossings(package: str) -> list[str]:
    """Every import of another WorkGym package that ``package`` may not make."""
    folder = _folder(package)
    found = []
    for path in sorted(folder.rglob("*.py")):
        for line, imported in _imports(ast.parse(path.read_text(), str(path))):
            if imported in PACKAGES and imported != package \
                    and imported not in ALLOWED[package]:
                found.append(f"{path.relative_to(folder.parent)}:{line} imports {imported}")
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_run_downward_only(package: str) -> None:
    assert _crossings(package) == []


def test_the_scan_sees_every_kind_of_import() -> None:
    source = """
import workgym.cli
from workgym_reward import score
from . import sibling
if TYPE_CHECKING:
    from workgym_proxy.faults import Fault

def later():
    import replicas.catalog as catalog
"""
    imported = [name for _, name in _imports(ast.parse(source))]
    assert imported == ["workgym", "workgym_reward", "workgym_proxy", "replicas"]
