"""Abandoned episodes expire: the registry forgets them and replicas reclaim their state."""

from __future__ import annotations

import time
from pathlib import Path

from workgym.local import BASE_URL, LocalServer
from workgym.runtime.settings import Settings
from workgym.sdk import Env

TASK = "helpdesk/refund-standard"


def test_expired_episodes_are_reclaimed(tmp_path: Path) -> None:
    local = LocalServer(Settings(data_dir=tmp_path, episode_ttl_s=1))
    try:
        old, new = Env(local, BASE_URL, TASK, 1), Env(local, BASE_URL, TASK, 1)
        obs = old.reset()
        store = local.server.replicas["helpdesk"].state.store
        assert len(store) == 1
        time.sleep(1.2)
        expired = old.call("GET", "/tickets")
        assert expired.status_code == 401
        assert expired.json()["error"]["code"] == "invalid_token"
        new.reset()  # creating an episode sweeps expired ones
        assert len(store) == 1
        assert obs.episode_id not in store._episodes  # noqa: SLF001
    finally:
        local.close()
