"""The locustfile against a real `workgym serve`, for a few seconds: its agents do episodes,
nothing fails, and every request is reported under its route. Never a speed: the machine is
shared. Locust runs in a process of its own (it patches the process it runs in with gevent)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from workgym.processes import serving
from workgym_perf.load.stage import EPISODE, run_stage

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
