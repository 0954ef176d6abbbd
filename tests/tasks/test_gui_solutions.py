"""Every task's ``browser:`` solution, run through ``workgym.browser`` in Debian's headless
Chromium (one served gym for the module, started by the environment), on seed 0: every
assertion of the task's verifier passes, it scores 1.0 (its efficiency measured against the
browser solution's own steps), and the final state is in the class the API reference's
reaches on the same seed (``workgym_reward.state_class``: the same records and
columns changed, as many rows added). A script that cannot go on fails naming its step and
what the page showed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.browser import BROWSER
from workgym.agents.reference import reference
from workgym.browser import BrowserEnv
from workgym.browser.script import solve
from workgym.sdk import connect
from workgym.tasks import Task, catalogue

pytestmark = BROWSER
SEED = 0
SOLVED = [task for task in catalogue() if task.browser is not None]


@pytest.fixture(scope="module")
def env() -> Iterator[BrowserEnv]:
    with BrowserEnv(screenshots=False) as env:
        yield env


def _api_reference(env: BrowserEnv, task: Task) -> dict[str, object]:
    """The report of the task's API reference on the same gym and seed."""
    with connect(env.gym_url, task.id, SEED, "none", api_key=env.api_key) as api:
        api.reset()
        return api.finish(reference(api, task))


def test_there_are_browser_solutions() -> None:
    assert SOLVED, "no task has a browser: solution"


@pytest.mark.parametrize("task", SOLVED, ids=[task.id for task in SOLVED])
def test_the_browser_solution_passes_and_reaches_the_api_references_state_class(
        env: BrowserEnv, task: Task) -> None:
    report = solve(env, task, SEED)

    failed = [f"{a['name']}: {a['detail']}" for a in report["assertions"] if not a["passed"]]
    assert report["success"] and not report["harm"] and not failed, failed
    assert report["reward"] == 1.0, report["signals"]
    assert report["state_class"] == _api_reference(env, task)["state_class"]
