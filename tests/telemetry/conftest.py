"""Fixtures of the telemetry tests: a store served by uvicorn on a free loopback port, and
clients holding each credential (the operator's API key, the services' internal secret,
none)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from workgym_telemetry.app import create_app
from workgym_telemetry.settings import TelemetrySettings
from workgym_telemetry.store import SpanStore

from ..serving import serving_app


@dataclass
class Served:
    """A telemetry store listening on loopback: ``http`` reads as the operator, ``ingest``
    exports as a WorkGym service, ``anonymous`` holds no credential."""

    url: str
    settings: TelemetrySettings
    store: SpanStore
    http: httpx.Client
    ingest: httpx.Client
    anonymous: httpx.Client

    @property
    def api_key(self) -> str:
        return self.settings.api_key

    @property
    def secret(self) -> str:
        return self.settings.internal_secret


MakeServer = Callable[..., Served]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[MakeServer]:
    """Factory: a real uvicorn server of ``create_app`` with settings overrides."""
    running: list[list[httpx.Client]] = []
    stack = contextlib.ExitStack()

    def factory(**overrides: Any) -> Served:
        settings = TelemetrySettings(data_dir=tmp_path / f"telemetry-{len(running)}", **overrides)
        app = create_app(settings)
        url = stack.enter_context(serving_app(lambda _: app))
        clients = [httpx.Client(base_url=url, timeout=10, headers=headers) for headers in (
            _bearer(settings.api_key), _bearer(settings.internal_secret), {})]
        running.append(clients)
        return Served(url, settings, app.state.store, *clients)

    yield factory
    for clients in running:
        for client in clients:
            client.close()
    stack.close()


def _bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


@pytest.fixture
def served(make_server: MakeServer) -> Served:
    return make_server()
