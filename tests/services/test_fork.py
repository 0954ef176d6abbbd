"""Forking an episode (POST /v1/episodes/{id}/fork, Env.fork, Session.fork): a new episode in
its parent's state, which then goes its own way and is scored on its own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from tests.refusals import refusal
from workgym.errors import Refused
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.session import Session
from workgym_core.registry import Quota, _ep

T = TypeVar("T")


def _redis(local: LocalServer, call: Awaitable[T]) -> T:
    """A Redis call's answer, awaited in the server's loop (redis-py's are Awaitables)."""
    async def answer() -> T:
        return await call
    return local.run(answer())

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone, with its customer
CROSS_TASK = "helpdesk/refund-standard"  # the helpdesk's and the checkout's

Action = tuple[str, str, dict[str, Any] | None]


def _ticket(env: Env) -> int:
    found = env.call("GET", "/api/v2/search",
                     params={"query": "type:ticket status:open", "per_page": 1}).json()
    return int(found["results"][0]["id"])


def _comment(ticket: int, body: str, public: bool = False) -> Action:
    return ("PUT", f"/api/v2/tickets/{ticket}",
            {"ticket": {"comment": {"body": body, "public": public}}})


def _act(env: Env, actions: list[Action]) -> list[int]:
    return [env.call(method, path, json=body).status_code for method, path, body in actions]


def _gym(local: LocalServer, method: str, path: str, token: str | None = None
         ) -> httpx.Response:
    key = token or local.server.settings.api_key
    return local.request(method, f"http://workgym.local{path}",
                         headers={"authorization": f"Bearer {key}"})


def test_a_fork_and_its_parent_end_where_an_unforked_episode_ends(
        make_env: Callable[..., Env]) -> None:
    whole, parent = make_env(TASK, 5), make_env(TASK, 5)
    whole.reset()
    parent.reset()
    ticket = _ticket(whole)
    assert _ticket(parent) == ticket
    # A public comment: the scripted customer answers it (the actors' memory carries over).
    before = [_comment(ticket, "We are on it.", public=True), ("GET", "/api/v2/groups", None)]
    after = [_comment(ticket, "Checked the notes."),
             ("PUT", f"/api/v2/tickets/{ticket}", {"ticket": {"priority": "high"}}),
             _comment(ticket, "Done, thank you.", public=True)]
    codes = _act(whole, before + after)
    assert _act(parent, before) == codes[:len(before)]
    fork = parent.fork()
    assert _act(fork, after) == _act(parent, after) == codes[len(before):]
    hashes = {env.finish()["final_state_hash"] for env in (whole, parent, fork)}
    assert len(hashes) == 1


def test_a_fork_carries_the_steps_and_trajectory_so_far(make_env: Callable[..., Env]) -> None:
    parent = make_env(TASK, 6)
    parent.reset()
    ticket = _ticket(parent)
    _act(parent, [_comment(ticket, "First look.")])
    parent.wait(2.0)
    fork = parent.fork()
    assert fork.observation is not None and parent.observation is not None
    assert fork.observation.episode_id != parent.observation.episode_id
    assert fork.observation.token != parent.observation.token
    assert fork.observation.instruction == parent.observation.instruction
    assert fork.waits == [2.0]
    assert fork.state()["steps"] == parent.state()["steps"] == 2
    assert fork.trajectory() == parent.trajectory()
    _act(fork, [("GET", "/api/v2/groups", None)])
    assert [s["index"] for s in fork.trajectory()] == [0, 1, 2]
    assert len(parent.trajectory()) == 2
    fork.close()


def test_a_fork_and_its_parent_diverge_and_are_scored_on_their_own(
        make_env: Callable[..., Env]) -> None:
    parent = make_env(TASK, 7)
    parent.reset()
    ticket = _ticket(parent)
    _act(parent, [_comment(ticket, "Shared note.")])
    fork = parent.fork()

    def comments(env: Env) -> list[str]:
        found = env.call("GET", f"/api/v2/tickets/{ticket}/comments").json()["comments"]
        return [c["body"] for c in found]

    _act(fork, [_comment(ticket, "Only in the fork.")])
    _act(parent, [_comment(ticket, "Only in the parent.")])
    assert "Shared note." in comments(fork) and "Shared note." in comments(parent)
    assert "Only in the fork." in comments(fork)
    assert "Only in the fork." not in comments(parent)
    assert "Only in the parent." not in comments(fork)
    first = parent.finish()
    assert fork.state()["status"] == "active"  # finishing one leaves the other open
    second = fork.finish()
    assert first["episode_id"] != second["episode_id"]
    assert first["final_state_hash"] != second["final_state_hash"]
    assert (first["steps"], second["steps"]) == (5, 6)  # each its own reads


def test_a_fork_of_several_apps_copies_each(make_env: Callable[..., Env]) -> None:
    parent = make_env(CROSS_TASK, 2)
    obs = parent.reset()
    fork = parent.fork()
    assert fork.observation is not None
    assert fork.observation.apps == obs.apps
    created = parent.call("POST", "/v1/customers", json={"email": "branch@example.com"},
                          app="checkout")
    assert created.status_code == 200, created.text
    path = f"/v1/customers/{created.json()['id']}"
    assert parent.call("GET", path, app="checkout").status_code == 200
    assert fork.call("GET", path, app="checkout").status_code == 404
    fork.close()


def test_a_fork_meets_the_faults_its_parent_would_meet_next(
        make_env: Callable[..., Env]) -> None:
    # The second accepted GET fails: the parent has made the first; so has its fork.
    plan = [{"kind": "server_error", "target": {"method": "GET"},
             "window": {"start": 2, "end": 2}}]
    parent = make_env(TASK, 8, plan)
    parent.reset()
    assert _act(parent, [("GET", "/api/v2/groups", None)]) == [200]
    fork = parent.fork()
    assert _act(fork, [("GET", "/api/v2/groups", None)])[0] >= 500
    assert _act(parent, [("GET", "/api/v2/groups", None)])[0] >= 500
    fork.close()


def test_a_revoked_token_stays_revoked_in_the_fork(make_env: Callable[..., Env]) -> None:
    plan = [{"kind": "token_expiry", "window": {"start": 1, "end": 1}}]
    parent = make_env(TASK, 9, plan)
    parent.reset()
    assert _act(parent, [("GET", "/api/v2/groups", None)]) == [401]
    fork = parent.fork()
    assert _act(fork, [("GET", "/api/v2/groups", None)]) == [401]
    fork.refresh_token()
    assert _act(fork, [("GET", "/api/v2/groups", None)]) == [200]
    assert _act(parent, [("GET", "/api/v2/groups", None)]) == [401]  # the parent's own
    fork.close()


def test_session_fork(local: LocalServer) -> None:
    session = Session.inprocess(local)
    session.start(TASK, seed=3)
    session.call_tool("helpdesk_list_groups", {})
    branch = session.fork()
    assert branch.env.state()["steps"] == 1
    assert not branch.call_tool("helpdesk_list_groups", {})["error"]
    assert branch.finish()["steps"] == 2
    assert session.finish()["steps"] == 1
    session.close()
    branch.close()


def test_only_the_operator_forks_an_active_episode(
        make_env: Callable[..., Env], local: LocalServer) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    path = f"/v1/episodes/{obs.episode_id}/fork"
    by_token = _gym(local, "POST", path, token=obs.token)
    assert by_token.status_code == 403 and refusal(by_token)["code"] == "operator_only"
    unknown = _gym(local, "POST", "/v1/episodes/ep_0000000000000000/fork")
    assert unknown.status_code == 404 and refusal(unknown)["code"] == "episode_not_found"
    env.finish()
    finished = _gym(local, "POST", path)
    assert finished.status_code == 409 and refusal(finished)["code"] == "episode_finished"
    deleted = make_env(TASK, 1)
    gone = deleted.reset()
    deleted.close()
    refused = _gym(local, "POST", f"/v1/episodes/{gone.episode_id}/fork")
    assert refused.status_code == 410 and refusal(refused)["code"] == "episode_deleted"
    with pytest.raises(Refused, match="episode_finished"):
        env.fork()


def test_a_fork_counts_against_its_owners_live_quota(
        server: Callable[..., LocalServer]) -> None:
    local = server(max_live_episodes=2)
    env = Env.inprocess(local, TASK, 1)
    env.reset()
    fork = env.fork()
    with pytest.raises(Refused, match="live_episode_quota"):
        env.fork()
    fork.close()  # deleting one frees its place
    env.fork().close()
    env.close()


def test_a_fork_waits_for_requests_in_flight(server: Callable[..., LocalServer]) -> None:
    local = server(finish_wait_s=0.05)
    env = Env.inprocess(local, TASK, 1)
    obs = env.reset()
    registry = local.server.registry
    assert registry is not None
    # A request admitted and never recorded (its proxy died): the fork cannot copy it.
    _redis(local, registry.redis.hincrby(_ep(obs.episode_id), "inflight", 1))
    refused = _gym(local, "POST", f"/v1/episodes/{obs.episode_id}/fork")
    assert refused.status_code == 409 and refusal(refused)["code"] == "episode_busy"
    _redis(local, registry.redis.hincrby(_ep(obs.episode_id), "inflight", -1))
    env.fork().close()
    env.close()


def test_the_registry_copies_only_an_episode_that_has_not_moved_on(
        make_env: Callable[..., Env], local: LocalServer) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    registry = local.server.registry
    assert registry is not None
    identity = registry.new_identity(60)
    owner = local.run(registry.get(obs.episode_id)).owner
    quota = Quota(max_live=100, rate_per_s=100.0, burst=100)
    # It took a step since the fork read its count: no copy (the fork tries again), and
    # nothing counted against the owner's quota.
    assert local.run(registry.fork(obs.episode_id, identity, steps=1, owner=owner,
                                   quota=quota)) is False
    assert _redis(local, registry.redis.exists(_ep(identity.episode_id))) == 0
    live = f"wg:live:{owner}"
    assert _redis(local, registry.redis.zscore(live, identity.episode_id)) is None
    assert local.run(registry.fork(obs.episode_id, identity, steps=0, owner=owner,
                                   quota=quota)) is True
    record = local.run(registry.get(identity.episode_id))
    assert (record.task, record.seed, record.owner, record.steps) == (TASK, 1, owner, 0)
    assert _redis(local, registry.redis.zscore(live, identity.episode_id)) is not None


def test_a_fork_shares_an_unwritten_world_and_copies_a_written_one(
        make_env: Callable[..., Env], local: LocalServer) -> None:
    store = local.server.replicas["helpdesk"].state.store
    parent = make_env(TASK, 4)
    obs = parent.reset()
    idle = parent.fork()
    assert idle.observation is not None
    copied, source = store.get(idle.observation.episode_id), store.get(obs.episode_id)
    assert copied.own is None and copied.initial is source.initial  # no database of its own
    _act(parent, [_comment(_ticket(parent), "A write.", public=True)])
    written = parent.fork()
    assert written.observation is not None
    copied = store.get(written.observation.episode_id)
    # What the parent wrote, kept as its changed pages until the fork's first request.
    assert copied.own is None and copied.cold is not None and copied.cold.pages
    assert copied.state() == source.state() and copied.step == source.step == 2
    assert copied.memory == source.memory and copied.memory is not source.memory
    idle.close()
    written.close()
