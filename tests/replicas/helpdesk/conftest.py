"""Fixtures for the helpdesk replica: one app per session, one fresh episode per call."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from replicas.helpdesk import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.settings import Settings

SECRET = "s"
_ids = itertools.count(1)


class Api:
    """A client bound to one episode: every request carries the internal headers."""

    def __init__(self, client: httpx.AsyncClient, episode_id: str) -> None:
        self.client = client
        self.episode_id = episode_id
        self.headers = {"x-workgym-internal": SECRET, "x-workgym-episode": episode_id}
        self.step = 0
        self.vars: dict[str, Any] = {}
        self.secret = ""  # the episode's secret (what its verification codes derive from)

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        self.step += 1
        headers = {**self.headers, "x-workgym-step": str(self.step)}
        return await self.client.request(method, path, headers=headers, **kwargs)

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, json: Any = None) -> httpx.Response:
        return await self.request("POST", path, json=json)

    async def patch(self, path: str, json: Any = None) -> httpx.Response:
        return await self.request("PATCH", path, json=json)

    async def ok(self, method: str, path: str, json: Any = None, status: int = 200) -> Any:
        response = await self.request(method, path, json=json)
        assert response.status_code == status, response.text
        return response.json()

    async def state(self) -> bytes:
        response = await self.client.get(
            f"/_env/episodes/{self.episode_id}/state/final",
            headers={"x-workgym-internal": SECRET},
        )
        assert response.status_code == 200
        return response.content


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
            headers={"x-workgym-internal": SECRET},
        )
        assert response.status_code == 201, response.text
        api = Api(client, episode_id)
        api.vars = response.json()["vars"]
        api.secret = app.state.store.get(episode_id).secret
        return api

    return make
