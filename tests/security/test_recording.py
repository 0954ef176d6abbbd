"""Every forwarded request is recorded, whatever its body or outcome, in the order it was
admitted; finish waits for requests in flight and never fails on anything an agent sent.

Before: a deeply nested body was applied by the replica and then failed to serialise into
the trajectory (and made finish fail with 500, then 409 forever); a replica 500 was dropped
from the trajectory; a write still in flight when finish ran was scored but not recorded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from replicas.helpdesk.rules import tickets
from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.registry import Registry

from .conftest import TASK, agent, app_url, operator, ticket_of, trajectory

MakeEnv = Callable[..., Env]


def _nested(depth: int) -> bytes:
    return (b'{"ticket": {"comment": {"body": "x"}}, "extra": ' + b"[" * depth + b"]" * depth
            + b"}")


def test_bodies_nested_too_deep_are_refused_before_anything_is_forwarded(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    for depth in (40, 5_000, 100_000):
        refused = local.request("PUT", app_url(env, f"/api/v2/tickets/{ticket}"),
                                content=_nested(depth), headers={
                                    **agent(env), "content-type": "application/json"})
        assert refused.status_code == 422, depth
        assert refusal(refused) == {
            "code": "too_deep", "field": "body", "rule": "max_depth:32",
            "message": "the JSON body nests deeper than 32 levels"}
    assert trajectory(local, env) == []  # nothing was forwarded, nothing counted
    report = env.finish()
    assert report["steps"] == 0 and not any(
        a["passed"] for a in report["assertions"] if a["name"] == "customer_told")


def test_any_body_that_is_forwarded_is_recorded(local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    bodies: list[bytes] = [_nested(20), b"\xff\xfe not utf-8", b"{not json", b"[]"]
    for body in bodies:
        answer = local.request("PUT", app_url(env, f"/api/v2/tickets/{ticket}"),
                               content=body, headers={**agent(env),
                                                      "content-type": "application/json"})
        assert 400 <= answer.status_code < 500, answer.text
    steps = trajectory(local, env)
    assert [s.index for s in steps] == [0, 1, 2, 3]
    assert steps[0].request_body["ticket"]["comment"]["body"] == "x"  # 21 levels deep: within
    assert steps[1].request_body is None and steps[1].request_text.endswith("not utf-8")
    assert steps[2].request_text == "{not json" and steps[3].request_body == []
    assert all(s.route == "/api/v2/tickets/{ticket_id}" for s in steps)
    assert env.finish()["steps"] == 4


def test_a_replica_failure_is_recorded_as_the_500_the_agent_got(
    local: LocalServer, make_env: MakeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("SELECT secret FROM somewhere; internal host replica-7:8000")

    monkeypatch.setattr(tickets, "update", broken)
    write = {"ticket": {"comment": {"body": "hi"}}}
    failed = env.call("PUT", f"/api/v2/tickets/{ticket}", json=write)
    assert failed.status_code == 500
    assert failed.json()["error"] == "InternalError"  # Zendesk's body
    assert "SELECT" not in failed.text and "replica-7" not in failed.text
    [step] = trajectory(local, env)
    assert (step.status, step.error_code, step.request_body) == (500, "InternalError", write)
    assert env.finish()["steps"] == 1


def test_finish_waits_for_a_write_in_flight_and_records_it(
    local: LocalServer, make_env: MakeEnv
) -> None:
    slow = [{"kind": "latency", "delay_ms": 400, "target": {"method": "PUT"}}]
    env = make_env(TASK, 2, slow)
    env.reset()
    ticket = ticket_of(local, env)
    answers: list[int] = []
    writer = threading.Thread(target=lambda: answers.append(env.call(
        "PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {"comment": {
            "body": "Thank you for your message.", "public": True}}}).status_code))
    writer.start()
    time.sleep(0.1)  # the write is admitted and held by its latency
    report = env.finish()
    writer.join()
    assert answers == [200]
    assert report["steps"] == 1 and "unrecorded_steps" not in report
    # The write held in flight when finish ran was scored: its comment is what was told.
    told = next(a for a in report["assertions"] if a["name"] == "customer_told")
    assert told["detail"].startswith("1 message(s) in comments"), told
    [step] = trajectory(local, env)
    assert step.method == "PUT" and step.status == 200 and step.fault == "latency"
    late = env.call("GET", "/api/v2/groups")
    assert late.status_code == 409 and refusal(late)["code"] == "episode_finished"


def test_a_finish_that_fails_on_our_side_can_be_retried(
    local: LocalServer, make_env: MakeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transient failure (here Redis, while the trajectory is read) leaves the episode
    open; the scorer's own failure ends it (tests/security/test_scoring_total.py)."""
    env = make_env(TASK, 2, "none")
    obs = env.reset()
    assert env.call("GET", "/api/v2/groups").status_code == 200
    real = Registry.recorded_steps

    async def failing(self: Registry, episode_id: str) -> list[str]:
        raise RedisConnectionError("Redis is restarting")

    monkeypatch.setattr(Registry, "recorded_steps", failing)
    crashed = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish", json={},
                            headers=operator(local))
    assert crashed.status_code == 503 and refusal(crashed)["code"] == "store_unavailable"
    monkeypatch.setattr(Registry, "recorded_steps", real)
    assert env.state()["status"] == "active"  # not stuck 'finishing': 409 forever before
    assert env.finish()["steps"] == 1


@pytest.mark.parametrize(("headers", "rule"), [
    ([(f"x-h{i}", "1") for i in range(5_000)], "max_count:100"),
    ([("x-big", "a" * 20_000)], "max_bytes:16384"),
])
def test_too_many_or_too_large_headers_are_refused_first(
    local: LocalServer, make_env: MakeEnv, headers: list[tuple[str, str]], rule: str
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    refused = local.request("GET", app_url(env, "/api/v2/groups"),
                            headers=[*agent(env).items(), *headers])
    assert refused.status_code == 431
    assert refusal(refused)["rule"] == rule
    assert trajectory(local, env) == []
