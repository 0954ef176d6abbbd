"""The cross-app task through a real `workgym serve` over HTTP (the in-process runs are in
test_every_task.py, the compose stack's in tests/compose): the reference scores 1.0, noop
0, and the operator's view shows both apps' URLs, tools and briefs."""

from __future__ import annotations

import os
from pathlib import Path

import workgym
from workgym.agents import AGENTS
from workgym.processes import serving
from workgym.tasks import catalogue

TASK = "framework/note-contact-preference"


def test_a_cross_app_task_through_workgym_serve(tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path), "WORKGYM_FRAMEWORK_APPS": "true"}
    task = catalogue().get(TASK)
    with serving(env=env) as url:
        rewards = {}
        for agent in ("reference", "noop"):
            with workgym.connect(url, TASK, seed=2, faults="none") as run:
                obs = run.reset()
                assert set(obs.apps) == {"helpdesk", "notes"}
                assert {t["function"]["name"].split("_")[0] for t in obs.tools} == {
                    "helpdesk", "notes", "workgym"}  # and the gym's own: token refresh
                assert obs.brief.count("\n\n") >= 1  # both apps' briefs
                rewards[agent] = run.finish(answer=AGENTS[agent](run, task))["reward"]
    assert rewards == {"reference": 1.0, "noop": 0.0}
