"""What the tracker's tests share: seeded worlds for the rules' tests, and for the HTTP tests
the app and episodes of world 1 called as the proxy forwards an agent's requests (``await
jira(role=...)``: a fresh one)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from replicas.runtime.app import create_replica_app
from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import dict_factory
from replicas.tracker.seed import seed
from replicas.tracker.spec import SPEC
from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.settings import Settings

SECRET = "s"
BASE = "https://gym.example/apps/tracker"
API = "/rest/api/3"
_ids = itertools.count(1)


def seeded(world: int = 1) -> sqlite3.Connection:
    """The tracker's world ``world`` in a fresh database, as the rules read it."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.row_factory = dict_factory
    seed(conn, world, WORLD_START)
    return conn


@pytest.fixture
def world() -> Iterator[sqlite3.Connection]:
    conn = seeded()
    yield conn
    conn.close()


class Jira:
    """One episode, called as the proxy forwards the agent's requests."""

    def __init__(self, client: httpx.AsyncClient, episode_id: str) -> None:
        self.client, self.episode_id, self.step = client, episode_id, 0

    async def call(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        """The JSON answer (None if empty) of a request that must answer ``status``."""
        self.step += 1
        response = await self.client.request(method, path, headers={
            INTERNAL_HEADER: SECRET, EPISODE_HEADER: self.episode_id,
            STEP_HEADER: str(self.step), BASE_HEADER: BASE}, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json() if response.content else None

    async def db(self) -> sqlite3.Connection:
        """The episode's database as it is now (a copy)."""
        response = await self.client.get(f"/_env/episodes/{self.episode_id}/state/final",
                                         headers={INTERNAL_HEADER: SECRET})
        conn = sqlite3.connect(":memory:")
        conn.deserialize(response.content)
        conn.row_factory = sqlite3.Row
        return conn

    async def create(self, summary: str, kind: str = "Task", **fields: Any) -> str:
        made = await self.call("POST", f"{API}/issue", status=201, json={"fields": {
            "project": {"key": "SHOP"}, "issuetype": {"name": kind}, "summary": summary,
            **fields}})
        return str(made["key"])


def my_role(role: str, project_id: int = 10000) -> list[dict[str, Any]]:
    """Setup ops making the agent (user 1) hold ``role`` in the project instead."""
    return [{"select": "project_role_members", "bind": "me",
             "where": {"project_id": project_id, "user_id": 1}},
            {"update": "project_role_members", "id": "$me.id", "values": {"role": role}}]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return create_replica_app(SPEC, Settings(data_dir=tmp_path_factory.mktemp("tracker"),
                                             internal_secret=SECRET))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def jira(app: FastAPI, anyio_backend: str
               ) -> AsyncIterator[Callable[..., Awaitable[Jira]]]:
    """``await jira(role="Support", setup=[...])``: a fresh episode of world 1, the agent
    holding ``role`` in SHOP instead of Developers, after ``setup``."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://tracker") as client:
        async def make(role: str | None = None,
                       setup: list[dict[str, Any]] | None = None) -> Jira:
            episode_id = f"ep{next(_ids)}"
            created = await client.post("/_env/episodes", headers={INTERNAL_HEADER: SECRET},
                                        json={"episode_id": episode_id, "seed": 1, "setup": [
                                            *(my_role(role) if role else []), *(setup or [])]})
            assert created.status_code == 201, created.text
            return Jira(client, episode_id)
        yield make
