"""Determinism under pressure: every fault decision and rate limit counts requests, never
wall time, and trajectories are in the order requests were admitted; so the same actions
give the same state, faults and reward at any speed.

Before: rate limits were enforced in wall time and trajectories stored in completion order,
so the same actions could score 0.925, 0.95 or 1.0."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from replicas.runtime.codes import email_change_code
from workgym.agents import AGENTS
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.credentials import mac
from workgym_core.settings import Settings

from .conftest import TASK, trajectory

MakeEnv = Callable[..., Env]
# Two bursts of three 429s (Retry-After: 1) on the task's lookups and on its writes; the first
# on the 1st or the 2nd lookup (drawn by the seed). Counted, not timed.
RATE_LIMITED = [
    {"kind": "rate_limit", "retry_after_s": 1, "refusals": 3,
     "target": {"method": "GET",
                "path": ["/api/v2/users/search", "/api/v2/users/*/tickets/requested"]},
     "window": {"start": 1, "end": 2, "once": True}},
    {"kind": "rate_limit", "retry_after_s": 1, "refusals": 3,
     "target": {"method": "PUT", "path": ["/api/v2/users/*", "/api/v2/tickets/*"]},
     "window": {"start": 2, "end": 2}},
]
CROSS_APP = "helpdesk/refund-standard"  # the checkout's customer, the helpdesk's ticket


def _run(make_env: MakeEnv) -> dict[str, Any]:
    env = make_env(TASK, 3, RATE_LIMITED)
    env.reset()
    return env.finish(answer=AGENTS["reference"](env, catalogue().get(TASK)))


def _outcome(report: dict[str, Any]) -> tuple[Any, ...]:
    return (report["reward"], report["final_state_hash"], report["steps"],
            [(f["step"], f["kind"], f["recovered"]) for f in report["faults"]])


def test_the_same_actions_score_the_same_at_any_speed(
    make_env: MakeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    hurried = _run(make_env)  # the reference waits on the episode's clock: no wall time
    monkeypatch.setattr(Env, "wait", lambda _, seconds: time.sleep(seconds))
    waited = _run(make_env)  # the same requests, each Retry-After waited out on the wall
    assert waited["reward"] == 1.0 and waited["faults"]
    assert _outcome(hurried) == _outcome(waited)


def test_trajectories_are_in_admission_order_not_completion_order(
    local: LocalServer, make_env: MakeEnv
) -> None:
    slow_first = [{"kind": "latency", "delay_ms": 400, "window": {"start": 1, "end": 1}}]
    env = make_env(TASK, 1, slow_first)
    env.reset()
    first = threading.Thread(target=env.call, args=("GET", "/api/v2/groups"))
    first.start()
    time.sleep(0.1)  # admitted first, held by its latency
    assert env.call("GET", "/api/v2/users").status_code == 200  # admitted and answered second
    first.join()
    steps = trajectory(local, env)
    assert [(s.index, s.path, s.fault) for s in steps] == [
        (0, "/api/v2/groups", "latency"), (1, "/api/v2/users", None)]
    assert steps[0].duration_ms > steps[1].duration_ms  # it completed last


def test_a_verification_code_comes_from_the_episodes_secret(
    local: LocalServer, make_env: MakeEnv, settings: Settings
) -> None:
    """Before, the code was sha256(customer_id:email): an agent could compute it without
    asking the customer. Now: the same for the same world (determinism), the same in each of
    its apps (one app's customer says the code another app sent), unknowable without the
    deployment's secret, and nowhere in the world's tables."""
    codes = []
    for _ in range(2):
        env = make_env(CROSS_APP, 3)
        env.reset()
        assert local.server.registry is not None and env.observation is not None
        record = local.run(local.server.registry.get(env.observation.episode_id))
        email = record.vars["checkout"]["customer"]["email"]
        checkout, helpdesk = (local.server.replicas[app].state.store.get(
            env.observation.episode_id) for app in ("checkout", "helpdesk"))
        assert checkout.secret == helpdesk.secret
        codes.append(email_change_code(checkout.secret, email, "x@example.com"))
        assert settings.internal_secret not in checkout.secret
        assert b"x@example.com" not in checkout.state()
        assert b"x@example.com" not in helpdesk.state()
    digest = hashlib.sha256(f"{email}:x@example.com".encode()).hexdigest()
    assert codes[0] == codes[1] != f"{int(digest[:8], 16) % 1_000_000:06d}"
    other = mac("another deployment's secret", "world", "3")
    assert mac(settings.internal_secret, "world", "3") == checkout.secret  # what it derives from
    assert email_change_code(other, email, "x@example.com") != codes[0]
