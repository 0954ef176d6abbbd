"""Fixtures of the telemetry tests: a store served by uvicorn on a free loopback port, and
clients holding each credential (the operator's API key, the services' internal secret,
none)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from workgym_telemetry.app import create_app
from workgym_telemetry.settings import TelemetrySettings
from workgym_telemetry.store import SpanStore


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
    running: list[tuple[uvicorn.Server, threading.Thread, list[httpx.Client]]] = []

    def factory(**overrides: Any) -> Served:
        settings = TelemetrySettings(data_dir=tmp_path / f"telemetry-{len(running)}", **overrides)
        app = create_app(settings)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="none",
                                               lifespan="on"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        url = f"http://127.0.0.1:{port}"
        clients = [httpx.Client(base_url=url, timeout=10, headers=headers) for headers in (
            _bearer(settings.api_key), _bearer(settings.internal_secret), {})]
        running.append((server, thread, clients))
        return Served(url, settings, app.state.store, *clients)

    yield factory
    for server, thread, clients in running:
        for client in clients:
            client.close()
        server.should_exit = True
        thread.join(timeout=10)


def _bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


@pytest.fixture
def served(make_server: MakeServer) -> Served:
    return make_server()
