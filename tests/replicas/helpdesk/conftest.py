"""Fixtures for the helpdesk replica: one app per session, one fresh episode per call."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from replicas.helpdesk.spec import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.settings import Settings

SECRET = "s"
# The app's public base as the proxy passes it (BASE_HEADER): absolute links start with it.
BASE = "https://gym.example/apps/helpdesk"
_ids = itertools.count(1)


class Api:
    """A client bound to one episode, as the proxy forwards an agent's requests: every
    request carries the internal headers and (unless ``base=None``) the app's public base."""

    def __init__(self, client: httpx.AsyncClient, episode_id: str, base: str | None = BASE
                 ) -> None:
        self.client = client
        self.episode_id = episode_id
        self.base = base
        self.step = 0
        self.vars: dict[str, Any] = {}
        self.secret = ""  # the episode's secret (what its verification codes derive from)

    async def request(self, method: str, path: str, *, json: Any = None,
                      params: Any = None, base: str | None | bool = True,
                      content: bytes | None = None) -> httpx.Response:
        """``base``: True sends the Api's base, a string that one, None no base header;
        ``content``: a raw body (an upload's file) instead of ``json``."""
        self.step += 1
        headers = {INTERNAL_HEADER: SECRET, EPISODE_HEADER: self.episode_id,
                   STEP_HEADER: str(self.step)}
        sent = self.base if base is True else base
        if isinstance(sent, str):
            headers[BASE_HEADER] = sent
        return await self.client.request(method, path, json=json, params=params,
                                         headers=headers, content=content)

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return await self.request("POST", path, json=json, **kwargs)

    async def put(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return await self.request("PUT", path, json=json, **kwargs)

    async def delete(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return await self.request("DELETE", path, json=json, **kwargs)

    async def ok(self, method: str, path: str, json: Any = None, status: int = 200,
                 **kwargs: Any) -> Any:
        """The JSON of a request that must answer ``status``."""
        response = await self.request(method, path, json=json, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json() if response.content else None

    async def refused(self, method: str, path: str, json: Any = None, status: int = 422,
                      **kwargs: Any) -> dict[str, Any]:
        """The Zendesk error body of a request that must be refused with ``status``."""
        response = await self.request(method, path, json=json, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        found: dict[str, Any] = response.json()
        return found

    async def state(self) -> bytes:
        response = await self.client.get(
            f"/_env/episodes/{self.episode_id}/state/final",
            headers={INTERNAL_HEADER: SECRET},
        )
        assert response.status_code == 200
        return response.content

    async def db(self) -> sqlite3.Connection:
        """The episode's database as it is now (a copy, rows as sqlite3.Row): what the API
        does not show (merged_into_id, status_updated_at, metric events' rows)."""
        conn = sqlite3.connect(":memory:")
        conn.deserialize(await self.state())
        conn.row_factory = sqlite3.Row
        return conn


@pytest.fixture(scope="session")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    data_dir: Path = tmp_path_factory.mktemp("helpdesk")
    return create_replica_app(SPEC, Settings(data_dir=data_dir, internal_secret=SECRET))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(app: FastAPI, anyio_backend: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://helpdesk") as client:
        yield client


@pytest.fixture
def episode(app: FastAPI, client: httpx.AsyncClient) -> Callable[..., Awaitable[Api]]:
    """Factory: ``await episode(seed=1, setup=[...], script={...})`` -> an :class:`Api`."""

    async def make(
        seed: int = 1, setup: list[Any] | None = None, script: dict[str, Any] | None = None
    ) -> Api:
        episode_id = f"e{next(_ids)}"
        response = await client.post(
            "/_env/episodes",
            json={
                "episode_id": episode_id,
                "seed": seed,
                "setup": setup or [],
                "script": script or {},
            },
            headers={INTERNAL_HEADER: SECRET},
        )
        assert response.status_code == 201, response.text
        api = Api(client, episode_id)
        api.vars = response.json()["vars"]
        api.secret = app.state.store.get(episode_id).secret
        return api

    return make
