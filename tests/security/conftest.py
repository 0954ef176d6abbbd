"""Helpers of the security suite: raw calls as the operator or as an agent, and in-process
servers with settings of a test's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

TASK = "helpdesk/refund-standard"


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


@pytest.fixture
def server(settings: Settings, tmp_path: Path) -> Iterator[Callable[..., LocalServer]]:
    """Factory: an in-process server with these settings overridden (its own API key, so its
    quotas are its own; the session's snapshots on disk); closed after the test."""
    made: list[LocalServer] = []

    def factory(**overrides: Any) -> LocalServer:
        made.append(LocalServer(settings.model_copy(update={
            "api_key": f"wgk_test_{len(made)}_{tmp_path.name}", **overrides})))
        return made[-1]

    yield factory
    for local in made:
        local.close()
