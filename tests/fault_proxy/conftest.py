"""Helpers the proxy tests share."""

from __future__ import annotations

from typing import Any

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.registry import Registry
from workgym_core.trajectory import TrajectoryStep

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone, with a ticket
REFUND_TASK = "checkout/refund-returned-order"  # its reference makes a refund (the checkout's)


def auth(env: Env) -> dict[str, str]:
    """The episode's bearer header, for raw requests the SDK would not send."""
    assert env.observation is not None
    return {"authorization": f"Bearer {env.observation.token}"}


def registry(local: LocalServer) -> Registry:
    """The server's episode registry (the gym's; the proxy records into it)."""
    assert local.server.registry is not None
    return local.server.registry


def trajectory(local: LocalServer, episode_id: str) -> list[TrajectoryStep]:
    """The episode's recorded steps, in order."""
    return local.run(registry(local).trajectory(episode_id))


def _bound(local: LocalServer, env: Env, name: str) -> dict[str, Any]:
    """A row the task's setup bound as ``name``."""
    assert env.observation is not None
    return dict(local.run(registry(local).get(env.observation.episode_id)).vars["helpdesk"][name])


def task_ticket(local: LocalServer, env: Env) -> int:
    """The id of the task's ticket (bound by the task's setup)."""
    return int(_bound(local, env, "ticket")["id"])


def task_customer_email(local: LocalServer, env: Env) -> str:
    """The email of the task's customer, the ticket's requester."""
    return str(_bound(local, env, "customer")["email"])
