"""Helpers of the security suite: raw calls as the operator or as an agent."""

from __future__ import annotations

from typing import Any

from workgym.local import LocalServer
from workgym.sdk import Env

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone, with a ticket


def operator(local: LocalServer) -> dict[str, str]:
    return {"authorization": f"Bearer {local.server.settings.api_key}"}


def agent(env: Env) -> dict[str, str]:
    assert env.observation is not None
    return {"authorization": f"Bearer {env.observation.token}"}


def app_url(env: Env, path: str) -> str:
    assert env.observation is not None
    return env.observation.apps["helpdesk"] + path


def ticket_of(local: LocalServer, env: Env) -> int:
    """The id of the task's ticket (bound by its setup), never shown to the agent."""
    assert local.server.registry is not None and env.observation is not None
    record = local.run(local.server.registry.get(env.observation.episode_id))
    return int(record.vars["helpdesk"]["ticket"]["id"])


def trajectory(local: LocalServer, env: Env) -> list[Any]:
    assert local.server.registry is not None and env.observation is not None
    return local.run(local.server.registry.trajectory(env.observation.episode_id))
