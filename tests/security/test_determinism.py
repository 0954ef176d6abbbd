"""Determinism under pressure: every fault decision and rate limit counts requests, never
wall time, and trajectories are in the order requests were admitted; so the same actions
give the same state, faults and reward at any speed.

Before: rate limits were enforced in wall time and trajectories stored in completion order,
so the same actions could score 0.925, 0.95 or 1.0."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from workgym.agents import AGENTS
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

from .conftest import TASK, trajectory

MakeEnv = Callable[..., Env]
RATE_LIMITED = "helpdesk/fault-rate-limited-lookup"


def _run(make_env: MakeEnv) -> dict[str, Any]:
    env = make_env(RATE_LIMITED, 3)
    env.reset()
    return env.finish(answer=AGENTS["reference"](env, catalogue().get(RATE_LIMITED)))


def _outcome(report: dict[str, Any]) -> tuple[Any, ...]:
    return (report["reward"], report["final_state_hash"], report["steps"],
            [(f["step"], f["kind"], f["recovered"]) for f in report["faults"]])


def test_the_same_actions_score_the_same_at_any_speed(
    make_env: MakeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    waited = _run(make_env)  # the reference agent waits out each Retry-After
    agent_module = sys.modules["workgym.agents.reference"]
    monkeypatch.setattr(agent_module, "time", type("NoWait", (), {"sleep": lambda _: None}))
    hurried = _run(make_env)  # the same requests, as fast as the machine goes
    assert waited["reward"] == 1.0 and waited["faults"]
    assert _outcome(hurried) == _outcome(waited)


def test_trajectories_are_in_admission_order_not_completion_order(
    local: LocalServer, make_env: MakeEnv
) -> None:
    slow_first = [{"kind": "latency", "delay_ms": 400, "window": {"start": 1, "end": 1}}]
    env = make_env(TASK, 1, slow_first)
    env.reset()
    first = threading.Thread(target=env.call, args=("GET", "/groups"))
    first.start()
    time.sleep(0.1)  # admitted first, held by its latency
    assert env.call("GET", "/agents").status_code == 200  # admitted and answered second
    first.join()
    steps = trajectory(local, env)
    assert [(s.index, s.path, s.fault) for s in steps] == [
        (0, "/groups", "latency"), (1, "/agents", None)]
    assert steps[0].duration_ms > steps[1].duration_ms  # it completed last
