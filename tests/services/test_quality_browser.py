"""The quality gate runs each task's ``browser:`` solution on every seed (workgym.quality,
``workgym tasks check``): it passes when it scores 1.0 and its final state is in the API
reference's class on the same seed; a failure names the seed, and
the step where a script could not go on. One Chromium and one served gym for the whole
check; without Chromium the gate says so loudly, and fails in CI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser import BROWSER
from workgym.agents.reference import reference
from workgym.browser.script import BrowserScriptFailed
from workgym.cli import main
from workgym.quality import check, table
from workgym.sdk import Env
from workgym.tasks import Task, catalogue

Make = Callable[..., Env]
SOLVED = catalogue().get("checkout/test-order-3ds")  # has a browser: solution
UNSOLVED = next(t for t in catalogue() if t.browser is None and t.apps == ["tracker"])


def _api_reference(make_env: Make) -> Callable[[Task, int], dict[str, Any]]:
    """A stand-in for the browser: the task's API reference, its report."""
    def solve(task: Task, seed: int) -> dict[str, Any]:
        env = make_env(task.id, seed)
        env.reset()
        return env.finish(reference(env, task))
    return solve


def test_a_browser_solution_that_reaches_the_references_state_passes(make_env: Make) -> None:
    solved, unsolved = check([SOLVED, UNSOLVED], (0, 1), make_env, restated=False,
                             browser=_api_reference(make_env))

    assert solved.counts["browser"] == [2, 2] and solved.ok
    assert "browser" not in unsolved.counts and unsolved.ok
    head, _, solved_row, unsolved_row, *summary = table([solved, unsolved]).splitlines()
    assert head.split()[-2:] == ["browser", "gate"]
    assert solved_row.split()[-2:] == ["100%", "pass"]
    assert unsolved_row.split()[-2] != "100%" and unsolved_row.endswith("         pass")
    assert "browser solutions passed in 100% of runs (2/2)" in summary


def test_a_script_that_cannot_go_on_fails_naming_the_seed_and_step(make_env: Make) -> None:
    def stuck(task: Task, seed: int) -> dict[str, Any]:
        raise BrowserScriptFailed(f"browser step 4 (click): no button 'Pay' on seed {seed}")

    verdict, = check([SOLVED], (0,), make_env, restated=False, browser=stuck)

    assert not verdict.ok and verdict.counts["browser"] == [0, 1]
    assert verdict.failures == ["seed 0 browser: BrowserScriptFailed: browser step 4 (click): "
                                "no button 'Pay' on seed 0"]
    assert table([verdict]).splitlines()[2].split()[-2:] == ["0%", "FAIL"]


def test_a_solution_that_changes_other_records_fails_a_check_or_scores_less_fails(
        make_env: Make) -> None:
    solve = _api_reference(make_env)

    def elsewhere(task: Task, seed: int) -> dict[str, Any]:
        report = solve(task, seed)
        return {**report, "state_class": {**report["state_class"], "tracker": {
            "issues": {"changed": {"10001": ["status"]}, "added": 0, "removed": []}}}}

    unmet: list[str] = []

    def failing(task: Task, seed: int) -> dict[str, Any]:
        report = solve(task, seed)
        report["assertions"][0]["passed"] = False
        unmet.append(report["assertions"][0]["name"])
        return {**report, "success": False, "reward": 0.0}

    def wasteful(task: Task, seed: int) -> dict[str, Any]:
        return {**solve(task, seed), "reward": 0.95}  # passes, but less than the script does

    moved, = check([SOLVED], (0,), make_env, restated=False, browser=elsewhere)
    failed, = check([SOLVED], (0,), make_env, restated=False, browser=failing)
    wasted, = check([SOLVED], (0,), make_env, restated=False, browser=wasteful)

    assert moved.failures == [
        "seed 0 browser: final state tracker.issues: {'changed': {'10001': ['status']}, "
        "'added': 0, 'removed': []} where the API reference has None"]
    assert failed.failures == [f"seed 0 browser: reward 0.0, failed {unmet}"]
    assert wasted.failures == ["seed 0 browser: reward 0.95, failed []"]


@pytest.mark.parametrize("ci", ["", "1"])
def test_without_chromium_the_gate_says_so_and_fails_in_ci(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        ci: str) -> None:
    from workgym import quality

    monkeypatch.setenv("WORKGYM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("WORKGYM_CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(quality, "main_check", lambda *args, browser, **kwargs: 0)

    code = main(["tasks", "check", "--task", SOLVED.id, "--seeds", "1"])

    err = capsys.readouterr().err
    assert f"{tmp_path / 'no-chromium'} is absent" in err and SOLVED.id in err
    if ci:
        assert code == 2 and "cannot be checked" in err
    else:
        assert code == 0 and "WARNING" in err and "NOT checked" in err


@BROWSER[0]
@BROWSER[1]
def test_the_gate_runs_the_browser_solution_in_chromium(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setenv("WORKGYM_DATA_DIR", str(tmp_path))

    assert main(["tasks", "check", "--task", SOLVED.id, "--seeds", "1"]) == 0

    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith(SOLVED.id))
    assert row.split()[-2:] == ["100%", "pass"]
