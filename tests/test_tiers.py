"""The test tiers (tests/tiers.py): which tasks the per-task tests run on in `make test`, and
that the others wait for `--all-tasks` (`make gate`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.tiers import GATE, SLOW, changed, kinds, sample, tiered
from workgym.tasks import catalogue


def test_the_sample_stands_for_every_suite_app_set_fault_kind_and_decision() -> None:
    tasks = list(catalogue())
    chosen = sample(tasks)
    every = set().union(*map(kinds, tasks))
    assert set().union(*(kinds(catalogue().get(task_id)) for task_id in chosen)) == every
    assert len(chosen) <= len(every) < len(tasks)


def test_the_sample_does_not_grow_with_the_catalogue() -> None:
    """Ten times the tasks, each like one of today's: the same sample."""
    tasks = list(catalogue())
    more = [task.model_copy(update={"id": f"{task.id}-{n}"}) for task in tasks for n in range(9)]
    assert sample(tasks + more) == sample(tasks)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True)


def test_changed_tasks_are_those_a_branch_adds_or_edits(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    for name in ("one", "two", "three", "kept"):
        (tasks / "suite").mkdir(parents=True, exist_ok=True)
        (tasks / "suite" / f"{name}.yaml").write_text(f"title: {name}\n")
    (tasks / "README.md").write_text("guide\n")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "catalogue")
    assert changed(tasks) == set()
    _git(tmp_path, "checkout", "-qb", "work")
    (tasks / "suite" / "one.yaml").write_text("title: one, edited\n")
    _git(tmp_path, "commit", "-qam", "committed")
    (tasks / "suite" / "two.yaml").write_text("title: two, staged\n")
    _git(tmp_path, "add", ".")
    (tasks / "suite" / "three.yaml").write_text("title: three, unstaged\n")
    (tasks / "suite" / "new.yaml").write_text("title: new\n")
    (tasks / "README.md").write_text("guide, edited\n")
    assert changed(tasks) == {"suite/one", "suite/two", "suite/three", "suite/new"}
    assert changed(tasks, base="no-such-branch") == set()


def test_outside_a_git_checkout_no_task_is_changed(tmp_path: Path) -> None:
    assert changed(tmp_path) == set()


def test_tiered_marks_the_tasks_outside_the_sample_gate() -> None:
    pairs = [(task.id, app) for task in catalogue() for app in task.apps]
    params = tiered(pairs)
    assert [p.values for p in params] == pairs
    fast = {p.values[0] for p in params if p.marks == (SLOW,)}
    assert sample(catalogue().get(task_id) for task_id, _ in pairs) <= fast
    assert fast - sample(catalogue().get(task_id) for task_id, _ in pairs) <= changed()
    assert all(p.marks == (SLOW, GATE) for p in params if p.values[0] not in fast)


def test_slow_tests_are_run_first(pytester: pytest.Pytester) -> None:
    """So that under -n the long ones start at once and the short ones fill in."""
    pytester.makeconftest("from tests.conftest import pytest_collection_modifyitems")
    pytester.makeini("[pytest]\nmarkers = slow: long")
    pytester.makepyfile("""
        import pytest

        def test_quick():
            pass

        @pytest.mark.slow
        def test_long():
            pass

        def test_quick_too():
            pass
    """)
    run = pytester.runpytest("-v")
    run.stdout.fnmatch_lines(["*test_long PASSED*", "*test_quick PASSED*",
                              "*test_quick_too PASSED*"])


def test_gate_tests_run_only_with_all_tasks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest
        from tests.tiers import GATE

        @pytest.mark.parametrize("task_id", ["sampled", pytest.param("other", marks=GATE)])
        def test_task(task_id):
            pass
    """)
    fast = pytester.runpytest("-p", "tests.tiers")
    fast.assert_outcomes(passed=1, deselected=1)
    every = pytester.runpytest("-p", "tests.tiers", "--all-tasks")
    every.assert_outcomes(passed=2)
    rest = pytester.runpytest("-p", "tests.tiers", "--all-tasks", "-m", "gate", "-v")
    rest.assert_outcomes(passed=1, deselected=1)
    rest.stdout.fnmatch_lines(["*test_task?other? PASSED*"])


def test_one_xdist_group_runs_on_one_worker(pytester: pytest.Pytester,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The compose tests share one stack: under `-n`, never on two workers at once."""
    root = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest("from tests.conftest import pytest_collection_modifyitems")
    pytester.makepyfile("""
        import pytest

        pytestmark = pytest.mark.xdist_group("stack")

        @pytest.mark.parametrize("n", range(8))
        def test_part(n):
            pass
    """)
    run = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-v")
    run.assert_outcomes(passed=8)
    workers = {line.split("]")[0] for line in run.outlines if "PASSED" in line}
    assert len(workers) == 1, run.outlines
