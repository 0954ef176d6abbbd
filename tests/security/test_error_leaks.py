"""Nothing unhandled leaks: an exception in any WorkGym FastAPI app (a replica, the gym API,
the telemetry store) answers a JSON 500 without its text, traceback, SQL or internal URLs."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from replicas.catalog import app_names, spec
from replicas.runtime.app import create_replica_app
from workgym_core.settings import Settings

pytestmark = pytest.mark.anyio

SECRETS = ("SELECT", "secret_table", "internal.replica", "Traceback", "sqlite3", "leaks.py")


def _replica(name: str) -> Callable[[Path], FastAPI]:
    return lambda data_dir: create_replica_app(spec(name), Settings(data_dir=data_dir))


def _gym(data_dir: Path) -> FastAPI:
    from workgym.app import create_gym_app

    return create_gym_app(Settings(data_dir=data_dir), service=None)  # type: ignore[arg-type]  # the route tested needs none


def _telemetry(data_dir: Path) -> FastAPI:
    from workgym_telemetry.app import create_app
    from workgym_telemetry.settings import TelemetrySettings

    return create_app(TelemetrySettings(data_dir=data_dir))


FACTORIES = {**{f"replica:{name}": _replica(name) for name in sorted(app_names())},
             "gym": _gym, "telemetry": _telemetry}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("role", sorted(FACTORIES))
async def test_an_unhandled_exception_is_a_bare_json_500(
    role: str, tmp_path: Path, anyio_backend: str
) -> None:
    app = FACTORIES[role](tmp_path)

    async def boom() -> None:
        raise sqlite3.OperationalError(
            "no such column: x in SELECT * FROM secret_table -- http://helpdesk.internal.replica")

    app.add_api_route("/_boom", boom)
    # As a server sees it: Starlette answers the 500, then re-raises for the server to log.
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        response = await client.get("/_boom")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    if "correlationId" in body:  # HubSpot's body: its category, words and a correlation id
        assert body["status"] == "error" and body["category"] == "INTERNAL_ERROR"
        assert set(body) == {"status", "message", "correlationId", "category"}
    elif "errorMessages" in body:  # Jira's body: words only
        assert set(body) == {"errorMessages", "errors"} and not body["errors"]
    elif isinstance(body["error"], str):  # Zendesk's body: the error's name and a description
        assert body["error"] == "InternalError" and set(body) == {"error", "description"}
    else:
        error = body["error"]
        assert error["code"] == "internal_error"
        # WorkGym's body, or an app's product's (Stripe's adds its type: api_error).
        assert set(error) - {"code", "message"} <= {"type", "param"}
    assert not [s for s in SECRETS if s.lower() in response.text.lower()]
