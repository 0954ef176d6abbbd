"""Every 5xx a replica answers is logged with its traceback, however it is served: called
in-process by the all-in-one server's proxy, or alone in its own process (``--role``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from workgym.app import create_app
from workgym.sdk import Env
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER
from workgym_core.settings import Settings

TASK = "checkout/refund-jpy-partial"


class Boom(RuntimeError):
    pass


def _boom(*_: object, **__: object) -> None:
    raise Boom("the replica failed")


def _logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.exc_info and isinstance(r.exc_info[1], Boom) and r.levelno >= logging.ERROR]


def test_a_replica_500_in_the_all_in_one_server_is_logged(
    make_env: Callable[..., Env], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = make_env(TASK)
    env.reset()
    monkeypatch.setattr("replicas.checkout.routes.customers.retrieve", _boom)
    with caplog.at_level(logging.ERROR):
        response = env.call("GET", "/v1/customers/cus_anyone")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "internal_error"
    [record] = _logged(caplog)
    assert "GET /v1/customers/cus_anyone" in record.getMessage()


def test_a_replica_500_in_its_own_process_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(data_dir=tmp_path, internal_secret="s",
                        roles=frozenset({"replica:checkout"}))
    monkeypatch.setattr("replicas.checkout.routes.customers.retrieve", _boom)

    async def run() -> httpx.Response:
        server = create_app(settings)
        server.replicas["checkout"].state.store.create(
            "ep", seed=0, setup=[], script={}, ttl_s=60)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server),
                                     base_url="http://checkout") as client:
            try:
                return await client.get("/v1/customers/cus_anyone", headers={
                    INTERNAL_HEADER: "s", EPISODE_HEADER: "ep"})
            finally:
                await server.aclose()

    with caplog.at_level(logging.ERROR):
        response = asyncio.run(run())
    assert response.status_code == 500
    [record] = _logged(caplog)
    assert "/v1/customers/cus_anyone" in record.getMessage()
