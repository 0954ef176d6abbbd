"""Limits and reclamation: per-key quotas on live episodes and on the creation rate (429
with Retry-After), a memory ceiling that refuses new episodes before the machine suffers,
and a reaper that frees expired episodes on time.

Before: 12,000 episode creations in a row all succeeded (~0.9 MB each), and expired state
was freed only when another episode was created."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from workgym.local import LocalServer

from .conftest import TASK, operator

Factory = Callable[..., LocalServer]


def _create(local: LocalServer, **body: Any) -> httpx.Response:
    return local.request("POST", "/v1/episodes", headers=operator(local),
                         json={"task": TASK, "seed": 1, "faults": "none", **body})


def test_live_episodes_per_key_are_capped(server: Factory) -> None:
    local = server(max_live_episodes=2)
    first, second = _create(local), _create(local)
    assert first.status_code == second.status_code == 201
    refused = _create(local)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "live_episode_quota"
    assert int(refused.headers["retry-after"]) >= 1
    finished = local.request("POST", f"/v1/episodes/{first.json()['id']}/finish", json={},
                             headers=operator(local))
    assert finished.status_code == 200
    assert _create(local).status_code == 201  # a finished episode no longer counts
    deleted = local.request("DELETE", f"/v1/episodes/{second.json()['id']}",
                            headers=operator(local))
    assert deleted.status_code == 204
    assert _create(local).status_code == 201


def test_the_creation_rate_per_key_is_capped(server: Factory) -> None:
    local = server(create_rate_per_s=0.2, create_burst=2)
    assert [_create(local).status_code for _ in range(2)] == [201, 201]
    refused = _create(local)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "creation_rate_quota"
    assert 1 <= int(refused.headers["retry-after"]) <= 5
    other = server()  # another key has a bucket of its own
    assert _create(other).status_code == 201


def test_a_replica_at_its_memory_ceiling_refuses_new_episodes(server: Factory) -> None:
    local = server(memory_limit_mb=1, max_live_episodes=1)
    refused = _create(local)
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "capacity_exhausted"
    assert int(refused.headers["retry-after"]) >= 1
    store = local.server.replicas["helpdesk"].state.store
    assert len(store) == 0
    store.memory_limit_mb = 1e9  # memory freed: the refused episode did not use the quota
    assert _create(local).status_code == 201


def test_expired_episodes_are_freed_on_time_without_new_traffic(server: Factory) -> None:
    local = server(episode_ttl_s=1)
    created = [_create(local, seed=seed) for seed in (1, 2, 3)]
    assert all(c.status_code == 201 for c in created)
    store = local.server.replicas["helpdesk"].state.store
    assert len(store) == 3
    deadline = time.monotonic() + 3
    while len(store) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(store) == 0  # freed by the reaper: nothing else was created or requested
    expired = local.request("GET", created[0].json()["apps"]["helpdesk"] + "/api/v2/groups",
                            headers={"authorization": f"Bearer {created[0].json()['token']}"})
    assert expired.status_code == 410 and expired.json()["error"]["code"] == "episode_expired"
    assert _create(local).status_code == 201  # the expired ones left the live quota


def test_a_creation_that_reaches_redis_late_drains_no_tokens(server: Factory) -> None:
    """The bucket refills by the callers' clocks: one whose admit arrives after a later one's
    (late by 10 s under load) counts no negative time, which would drain rate x 10 tokens."""
    local = server()
    registry = local.server.registry
    assert registry is not None

    async def admit(now: float, episode_id: str) -> list[str]:
        return await registry._admit(  # noqa: SLF001 - the script, with the caller's clock
            keys=["wg:live:late", "wg:rate:late"],
            args=[now, now + 60, 100, 1_000_000, 10, episode_id])

    assert local.run(admit(1_000.0, "a")) == ["ok"]
    assert local.run(admit(990.0, "b")) == ["ok"]  # before: refused, 'rate'
    assert local.run(admit(1_000.5, "c")) == ["ok"]
