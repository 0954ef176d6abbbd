"""Test tiers. The tests run once per task (the gate's honest rewards, collateral damage, fault
tasks, hidden targets, decisions) grow with the catalogue: `make test` runs them on a stable
sample (the first task, by id, of each suite, set of apps, fault kind and decision-or-not among
the tasks a test covers) and on every task changed against ``main`` (committed, staged, unstaged
or new); the others are marked ``gate`` and deselected unless ``--all-tasks`` is given
(`make gate`, which CI runs, gives it)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from workgym.tasks import TASKS_DIR, Task, catalogue

BASE = "main"  # what "changed" is measured against: the tasks a branch adds or edits
GATE = pytest.mark.gate
SLOW = pytest.mark.slow  # a task's episodes, several of them: seconds each


def kinds(task: Task) -> set[tuple[str, object]]:
    """What a task stands for in the sample: its suite, its set of apps, each fault kind of
    its plan and whether the seed draws its outcome."""
    return {("suite", task.suite), ("apps", tuple(task.apps)),
            ("decision", bool(task.decision)),
            *(("fault", fault["kind"]) for fault in task.faults)}


def sample(tasks: Iterable[Task]) -> set[str]:
    """The fast tier's tasks: in id order, each task that stands for something no earlier one
    does. Its size is bounded by the suites, app sets and fault kinds, not the tasks."""
    covered: set[tuple[str, object]] = set()
    chosen = set()
    for task in sorted(tasks, key=lambda task: task.id):
        if new := kinds(task) - covered:
            chosen.add(task.id)
            covered |= new
    return chosen


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=False)


def changed(root: Path = TASKS_DIR, base: str = BASE) -> set[str]:
    """Ids of the tasks under ``root`` whose files differ from ``base``'s (committed, staged,
    unstaged, or not yet added); none outside a git checkout or where ``base`` is unknown."""
    fork = _git(root, "merge-base", "HEAD", base)
    if fork.returncode:
        return set()
    names = (_git(root, "diff", "--relative", "--name-only", fork.stdout.strip(), "--", ".").stdout
             + _git(root, "ls-files", "--others", "--exclude-standard", "--", ".").stdout)
    return {str(path.with_suffix("")) for path in map(Path, names.split())
            if path.suffix == ".yaml" and len(path.parts) == 2}


def tiered(params: Sequence[str | tuple[str, ...]]) -> list[pytest.ParameterSet]:
    """``params`` of a per-task test (a task id, or a tuple whose first item is one) as
    pytest params, marked ``slow``: those of the sample's and the changed tasks, and the others
    marked ``gate`` too."""
    task_ids = {param if isinstance(param, str) else param[0] for param in params}
    fast = sample(catalogue().get(task_id) for task_id in task_ids) | changed()
    return [pytest.param(*values, marks=(SLOW,) if values[0] in fast else (SLOW, GATE))
            for values in ((param,) if isinstance(param, str) else param for param in params)]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--all-tasks", action="store_true",
                     help="run the per-task tests on every task (marker gate), not only on the "
                          "fast tier's sample and the tasks changed against main")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--all-tasks"):
        return
    later = [item for item in items if item.get_closest_marker("gate")]
    if later:
        config.hook.pytest_deselected(items=later)
        items[:] = [item for item in items if not item.get_closest_marker("gate")]
