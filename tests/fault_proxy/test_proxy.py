"""The proxy: the agent's only door. Isolation between episodes, no internal routes,
bad input refused without changing state, and the trajectory recorded."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.refusals import refusal
from workgym.agents.reference import reference
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

from .conftest import REFUND_TASK, TASK, auth, trajectory


def test_requests_need_a_valid_token(make_env: Callable[..., Env], local: LocalServer) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    url = obs.apps["helpdesk"] + "/api/v2/tickets"
    assert refusal(local.request("GET", url))["code"] == "missing_token"
    for token in ("garbage", f"{obs.episode_id}.wrong", "ep_0000000000000000.x"):
        response = local.request("GET", url, headers={"authorization": f"Bearer {token}"})
        assert response.status_code == 401, token


def test_one_episode_cannot_reach_another(make_env: Callable[..., Env]) -> None:
    a, b = make_env(REFUND_TASK, 5), make_env(REFUND_TASK, 5)
    a.reset()
    b.reset()
    reference(a, catalogue().get(REFUND_TASK))  # a refund only a's world has: the newest
    refund = a.call("GET", "/v1/refunds", params={"limit": 1}, app="checkout"
                    ).json()["data"][0]["id"]
    assert a.call("GET", f"/v1/refunds/{refund}", app="checkout").status_code == 200
    assert b.call("GET", f"/v1/refunds/{refund}", app="checkout").status_code == 404
    # Headers the proxy sets itself cannot be forged by an agent.
    assert b.observation is not None and a.observation is not None
    forged = b.call("GET", f"/v1/refunds/{refund}", app="checkout")
    spoof = b._http.request(  # noqa: SLF001 - raw request with forged internal headers
        "GET", b.observation.apps["checkout"] + f"/v1/refunds/{refund}",
        headers={**auth(b), "x-workgym-episode": a.observation.episode_id,
                 "x-workgym-internal": "guess"})
    assert forged.status_code == spoof.status_code == 404
    untouched = make_env(REFUND_TASK, 5)
    untouched.reset()
    assert b.finish()["final_state_hash"] == untouched.finish()["final_state_hash"]


@pytest.mark.parametrize("path", [
    "/_env/health", "/_env/episodes", "//_env/episodes", "/x/../_env/episodes",
    "/./_env/episodes", "/api/v2/tickets/../../../_env/episodes",
])
def test_internal_routes_are_unreachable(
    make_env: Callable[..., Env], local: LocalServer, path: str
) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    response = local.request("POST", obs.apps["helpdesk"] + path, headers=auth(env),
                             json={"episode_id": "evil", "seed": 1})
    assert response.status_code == 404
    assert "evil" not in str(local.server.replicas["helpdesk"].state.store._episodes)


def test_unknown_app_and_gym_internal_paths_are_404(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    env = make_env(TASK, 1)
    env.reset()
    assert local.request("GET", "http://workgym.local/apps/shop/orders",
                         headers=auth(env)).status_code == 404
    assert local.request("GET", "http://workgym.local/_env/health").status_code == 404


def _bad_requests(env: Env) -> list[tuple[str, str, dict[str, Any], int, str]]:
    """(method, path, httpx kwargs, expected status, field named: the key of a Zendesk
    error's details, or the gateway's own error.field)."""
    ticket = env.call("GET", "/api/v2/search", params={"query": "type:ticket status:open",
                                                       "per_page": 1}).json()["results"][0]["id"]
    path = f"/api/v2/tickets/{ticket}"

    def comment(**fields: object) -> dict[str, object]:
        return {"json": {"ticket": {"comment": fields}}}

    return [
        ("PUT", path, {"content": b'{"ticket": {"comment": {"body": "x", '}, 422, "base"),
        ("PUT", path, comment(body=123, public=True), 422, "comment"),
        ("PUT", path, comment(body="hi", public="maybe"), 422, "comment"),
        ("PUT", path, {"json": {"ticket": {"comment": {"body": "hi"}, "bogus": 1}}}, 422,
         "bogus"),
        ("PUT", path, comment(body="x" * 300_000), 413, "body"),  # the gateway's limit
        ("PUT", path, {"json": {"ticket": {"status": "exploded"}}}, 422, "status"),
        ("GET", "/api/v2/tickets/1 OR 1=1", {}, 422, "ticket_id"),
        ("GET", "/api/v2/tickets", {"params": {"per_page": 0}}, 422, "per_page"),  # > 100: capped
        ("POST", f"{path}/merge", {"json": {"ids": ["1; DROP TABLE tickets"]}}, 422, "ids"),
    ]


def _field(body: dict[str, Any]) -> str:
    """The field an error names: Zendesk's details key, or the gateway's error.field."""
    if isinstance(body["error"], dict):
        return str(body["error"]["field"])
    [field] = body["details"]
    return str(field)


def test_bad_input_is_refused_with_the_field_and_changes_nothing(
    make_env: Callable[..., Env],
) -> None:
    env, clean = make_env(TASK, 4), make_env(TASK, 4)
    env.reset()
    clean.reset()
    for method, path, kwargs, status, field in _bad_requests(env):
        assert env.observation is not None
        response = env._http.request(  # noqa: SLF001 - raw bodies the SDK would not send
            method, env.observation.apps["helpdesk"] + path,
            headers={**auth(env), "content-type": "application/json"}, **kwargs)
        assert response.status_code == status, (path, response.text)
        assert _field(response.json()) == field, (path, response.text)
    injection = env.call("GET", "/api/v2/search", params={"query": "'; DROP TABLE tickets; --"})
    assert injection.status_code == 200 and injection.json()["results"] == []
    assert env.finish()["final_state_hash"] == clean.finish()["final_state_hash"]


def test_the_trajectory_records_every_request(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    env.call("GET", "/api/v2/tickets", params={"sort_by": "status", "per_page": 2})
    write = {"ticket": {"comment": {"body": "hello"}}}
    env.call("PUT", "/api/v2/tickets/999999", json=write)
    env.call("PUT", "/api/v2/tickets/1", json={"ticket": {"status": "exploded"}})
    steps = trajectory(local, obs.episode_id)
    assert [(s.index, s.method, s.path, s.status) for s in steps] == [
        (0, "GET", "/api/v2/tickets", 200), (1, "PUT", "/api/v2/tickets/999999", 404),
        (2, "PUT", "/api/v2/tickets/1", 422)]
    assert steps[0].query == "sort_by=status&per_page=2"
    assert steps[0].error_code is None
    assert steps[1].request_body == write
    # Zendesk names its errors with a string: that name is the step's error code.
    assert steps[1].error_code == "RecordNotFound"
    assert steps[2].error_code == "RecordInvalid"


def test_a_refusal_in_a_body_without_a_code_records_the_replicas_rule(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    """Jira's error body names no rule: the replica names it in a header the proxy keeps for
    the trajectory and never forwards."""
    env = make_env("tracker/start-work-on-bug", 1)
    obs = env.reset()
    answer = env.call("POST", "/rest/api/3/issue/SHOP-1/transitions",
                      json={"transition": {"id": "711"}})  # Mark as duplicate: no link
    assert answer.status_code == 400 and set(answer.json()) == {"errorMessages", "errors"}
    assert not [h for h in answer.headers if h.startswith("x-workgym-")]
    [step] = trajectory(local, obs.episode_id)
    assert step.error_code == "transition_refused"


def test_concurrent_episodes_do_not_interfere(make_env: Callable[..., Env]) -> None:
    task = catalogue().get(TASK)
    envs = [make_env(TASK, 9) for _ in range(32)]

    def rollout(env: Env) -> dict[str, object]:
        env.reset()
        return env.finish(answer=reference(env, task))

    with ThreadPoolExecutor(max_workers=32) as pool:
        reports = list(pool.map(rollout, envs))
    assert all(r["reward"] == 1.0 for r in reports)
    assert len({r["final_state_hash"] for r in reports}) == 1
    assert len({r["episode_id"] for r in reports}) == 32
