"""Abandoned episodes expire: the registry forgets them and replicas reclaim their state on
time (a reaper), not only when another episode is created."""

from __future__ import annotations

import time
from pathlib import Path

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone


def test_expired_episodes_are_reclaimed(tmp_path: Path) -> None:
    local = LocalServer(Settings(data_dir=tmp_path, episode_ttl_s=1))
    try:
        old = Env.inprocess(local, TASK, 1)
        obs = old.reset()
        store = local.server.replicas["helpdesk"].state.store
        assert len(store) == 1
        time.sleep(1.2)
        expired = old.call("GET", "/api/v2/tickets")
        assert expired.status_code == 410
        assert refusal(expired)["code"] == "episode_expired"
        deadline = time.monotonic() + 2
        while len(store) and time.monotonic() < deadline:  # nothing else is created
            time.sleep(0.05)
        assert len(store) == 0
        assert obs.episode_id not in store._episodes  # noqa: SLF001
    finally:
        local.close()
