"""Helpers the proxy tests share."""

from __future__ import annotations

from workgym.local import LocalServer
from workgym.sdk import Env

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone, with a ticket
REFUND_TASK = "checkout/refund-returned-order"  # its reference makes a refund (the checkout's)


def auth(env: Env) -> dict[str, str]:
    """The episode's bearer header, for raw requests the SDK would not send."""
    assert env.observation is not None
    return {"authorization": f"Bearer {env.observation.token}"}


def task_ticket(local: LocalServer, env: Env) -> int:
    """The id of the task's ticket (bound by the task's setup)."""
    assert env.observation is not None
    registry = local.server.registry
    assert registry is not None
    return int(local.run(registry.get(env.observation.episode_id)).vars["helpdesk"]["ticket"]["id"])
