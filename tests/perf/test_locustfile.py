"""The locustfile against a real `workgym serve`, for a few seconds: its agents do episodes,
nothing fails, and every request is reported under its route. Never a speed: the machine is
shared. Locust runs in a process of its own (it patches the process it runs in with gevent)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from workgym.processes import serving
from workgym_perf.load import episodes
from workgym_perf.load.__main__ import row
from workgym_perf.load.stage import EPISODE, Stage, run_stage

pytestmark = pytest.mark.slow


def test_agents_do_episodes_and_nothing_fails(tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path / "gym")}
    prefix = tmp_path / "reports" / "smoke"
    with serving(env=env, log=tmp_path / "server.log") as url:
        stage = run_stage(url, prefix, users=3, seconds=10, spawn_rate=3, steps="3-8",
                          think="0", seeds="0-1")
    assert stage.failures == 0 and stage.failed_episodes == 0, stage.errors
    assert stage.episodes > 0 and stage.steps > stage.episodes
    assert 1 <= stage.held_peak <= 3
    names = [e["name"] for e in json.loads(Path(f"{prefix}.json").read_text())
             if e["method"] != EPISODE]
    assert "/v1/episodes" in names and "/v1/episodes/{episode_id}/finish" in names
    # No ids in a name (an API version in the path, /rest/api/3/, /rest/auth/1/, is no id).
    assert not [n for n in names if re.search(r"/(\d+|ep_\w+)(/|$)",
                                              re.sub(r"/rest/(api|auth)/\w+/", "/", n))], names
    assert Path(f"{prefix}.html").stat().st_size > 0
    assert Path(f"{prefix}_stats.csv").read_text().startswith("Type,Name,")


def test_the_whole_episodes_profile_reports_episodes(tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path / "gym")}
    profile = episodes.Profile(users=[2], steps=3, seconds=6, warmup_s=1, quiet_s=0,
                               seeds="0")
    episodes.prebuild(env, "0", tmp_path / "prebuild.log")  # as make load does: not timed
    with serving(env=env, log=tmp_path / "server.log") as url:
        quiet, [stage] = episodes.stages(url, tmp_path / "reports", profile)
    assert quiet is None and stage.failures == 0, stage.errors
    found = episodes.figures_of(quiet, [stage])
    assert found["whole episodes/s at 2 agents"].value > 0
    assert found["failed requests at 2 agents"].value == 0
    assert found["finish p50 at 2 agents"].value > 0
    assert stage.failed == {"create": 0, "step": 0, "finish": 0}


def test_a_stage_with_no_requests_has_no_rates_and_does_not_crash(tmp_path: Path) -> None:
    prefix = tmp_path / "users-0001"  # a stage too short to complete a request
    Path(f"{prefix}.json").write_text("[]")
    Path(f"{prefix}_held.json").write_text('{"peak": 1, "mean": 1.0}')
    Path(f"{prefix}_failures.csv").write_text("Method,Name,Error,Occurrences\n")
    Path(f"{prefix}.log").write_text("")
    stage = Stage.read(prefix, users=1)
    assert math.isnan(stage.steps_per_s) and math.isnan(stage.episodes_per_s)
    assert "nan" in row("capacity", stage) and "0/0/0" in episodes.row("this checkout", stage)
    assert math.isnan(episodes.figures_of(stage, [stage])["whole episodes/s at 1 agents"].value)
