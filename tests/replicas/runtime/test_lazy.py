"""An episode has no database of its own until it writes: its reads run on read copies of its
snapshot, shared in turn by every unwritten episode of it and never written through."""

from __future__ import annotations

from collections.abc import Callable

from workgym.local import LocalServer
from workgym.sdk import Env

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone


def test_an_episode_gets_its_own_database_on_its_first_write(
        local: LocalServer, make_env: Callable[..., Env]) -> None:
    store = local.server.replicas["helpdesk"].state.store
    a, b = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    ids = [env.reset().episode_id for env in (a, b)]
    found = a.call("GET", "/api/v2/search",
                   params={"query": "type:ticket status:open", "per_page": 1}).json()
    ticket = found["results"][0]["id"]
    comments = a.call("GET", f"/api/v2/tickets/{ticket}/comments").json()["count"]
    assert store.get(ids[0]).own is None and store.get(ids[1]).own is None  # reads only
    assert a.call("PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {"comment": {
        "body": "Looking into it.", "public": False}}}).status_code == 200
    assert store.get(ids[0]).own is not None and store.get(ids[1]).own is None
    # The write is a's alone: b, still unwritten, reads its snapshot as it was.
    assert a.call("GET", f"/api/v2/tickets/{ticket}/comments").json()["count"] == comments + 1
    assert b.call("GET", f"/api/v2/tickets/{ticket}/comments").json()["count"] == comments
    assert store.get(ids[1]).state() == store.get(ids[1]).initial
    assert store.get(ids[0]).state() != store.get(ids[0]).initial


def test_idle_episodes_reading_in_turn_share_one_read_copy(
        local: LocalServer, make_env: Callable[..., Env]) -> None:
    store = local.server.replicas["helpdesk"].state.store
    envs = [make_env(TASK, 4, "none") for _ in range(12)]
    episodes = []
    for env in envs:
        episodes.append(env.reset().episode_id)
        assert env.call("GET", "/api/v2/groups").status_code == 200
    key = store.get(episodes[0]).snapshot_key
    assert all(store.get(episode).own is None for episode in episodes)
    assert len(store._reads._idle[key]) == 1
