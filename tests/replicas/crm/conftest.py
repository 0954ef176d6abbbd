"""What the CRM's tests share: the app, module-scoped, and episodes of world 1 called as the
proxy forwards an agent's requests (``await crm()``: a fresh one)."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from replicas.crm.spec import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.settings import Settings

SECRET = "s"
BASE = "https://gym.example/apps/crm"
_ids = itertools.count(1)


class Crm:
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

    async def state(self) -> bytes:
        """The episode's database as it is now, serialized."""
        response = await self.client.get(f"/_env/episodes/{self.episode_id}/state/final",
                                         headers={INTERNAL_HEADER: SECRET})
        return response.content

    async def db(self) -> sqlite3.Connection:
        """The episode's database as it is now (a copy)."""
        conn = sqlite3.connect(":memory:")
        conn.deserialize(await self.state())
        conn.row_factory = sqlite3.Row
        return conn


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return create_replica_app(SPEC, Settings(data_dir=tmp_path_factory.mktemp("crm"),
                                             internal_secret=SECRET))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def crm(app: FastAPI, anyio_backend: str) -> AsyncIterator[Callable[[], Awaitable[Crm]]]:
    """``await crm()``: a fresh episode of world 1."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://crm") as client:
        async def make() -> Crm:
            episode_id = f"crm{next(_ids)}"
            created = await client.post("/_env/episodes", headers={INTERNAL_HEADER: SECRET},
                                        json={"episode_id": episode_id, "seed": 1, "setup": []})
            assert created.status_code == 201, created.text
            return Crm(client, episode_id)
        yield make
