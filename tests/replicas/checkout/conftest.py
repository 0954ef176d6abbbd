"""Fixtures for the checkout replica: one app per session, a fresh episode per test."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from fastapi import FastAPI

from replicas.checkout.rules.common import World, unix
from replicas.checkout.spec import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.refs import Vars
from workgym_core.settings import Settings

SECRET = "s"
_ids = itertools.count(1)
T = TypeVar("T")


class Api:
    """A client bound to one episode, as the proxy forwards an agent's requests; and the
    episode's rules called directly, as the app's pages call them."""

    def __init__(self, app: FastAPI, client: httpx.AsyncClient, episode_id: str) -> None:
        self.app = app
        self.client = client
        self.episode_id = episode_id
        self.step = 0
        self.vars: Vars = {}  # the rows the episode's setup bound (make_api)

    async def world(self, act: Callable[[World], T]) -> T:
        """``act`` on the episode's world at its clock, in one transaction (as a write
        request runs): its result; rolled back if it raises."""
        store = self.app.state.store
        async with store.opened(store.get(self.episode_id), write=True) as episode:
            episode.db.execute("BEGIN IMMEDIATE")
            try:
                found = act(World(episode.db, unix(episode.now()), episode.seed,
                                  secret=episode.secret))
            except BaseException:
                episode.db.execute("ROLLBACK")
                raise
            episode.db.execute("COMMIT")
        return found

    def headers(self, **extra: str) -> dict[str, str]:
        self.step += 1
        return {INTERNAL_HEADER: SECRET, EPISODE_HEADER: self.episode_id,
                STEP_HEADER: str(self.step), **extra}

    async def request(self, method: str, path: str, *, key: str | None = None,
                      headers: dict[str, str] | None = None, **kwargs: Any) -> httpx.Response:
        extra = {"Idempotency-Key": key} if key else {}
        return await self.client.request(method, path, headers=self.headers(
            **extra, **(headers or {})), **kwargs)

    async def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.request(method, path, **kwargs)
        assert response.status_code == 200, response.text
        return response.json()

    async def refused(self, method: str, path: str, status: int, code: str,
                      **kwargs: Any) -> dict[str, Any]:
        """Stripe's error object of a refusal, checked for its status and code."""
        response = await self.request(method, path, **kwargs)
        assert response.status_code == status, response.text
        error: dict[str, Any] = response.json()["error"]
        assert error["code"] == code and error["type"] in (
            "invalid_request_error", "card_error", "idempotency_error"), error
        return error


@pytest.fixture(scope="session")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    data_dir: Path = tmp_path_factory.mktemp("checkout")
    return create_replica_app(SPEC, Settings(data_dir=data_dir, internal_secret=SECRET))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def make_api(app: FastAPI, anyio_backend: str) -> AsyncIterator[Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://checkout") as client:

        def make(seed: int = 1, setup: list[dict[str, Any]] | None = None) -> Api:
            episode_id = f"ep{next(_ids)}"
            created = app.state.store.create(episode_id, seed=seed, setup=setup or [],
                                             script={}, ttl_s=3600)
            api = Api(app, client, episode_id)
            api.vars = created.vars
            return api

        yield make
