"""An in-process WorkGym server on a background event loop, for ``workgym.make``.

One per process and settings: every environment made in the process shares its
replicas, snapshot caches and Redis, as parallel rollouts of a real server do.
Calls from any thread are handed to the loop; nothing listens on a port.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx

from workgym_core.settings import Settings

from .app import Server, create_app

T = TypeVar("T")
BASE_URL = "http://workgym.local"


class LocalServer:
    def __init__(self, settings: Settings) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="workgym-local",
                                        daemon=True)
        self._thread.start()
        # Agents of an in-process server reach its apps at BASE_URL, whatever was configured.
        self.server: Server = self.run(self._build(settings.model_copy(
            update={"public_url": BASE_URL})))
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.server), base_url=BASE_URL, timeout=60.0
        )

    @staticmethod
    async def _build(settings: Settings) -> Server:
        return create_app(settings)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self.run(self.client.request(method, url, **kwargs))

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.run(self.client.aclose())
        self.run(self.server.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


_servers: dict[str, LocalServer] = {}
_lock = threading.Lock()


def local_server(settings: Settings | None = None) -> LocalServer:
    """The process's in-process server for these settings (started on first use)."""
    settings = settings or Settings()
    # Credentials are never part of the key (nor logged through it).
    key = settings.model_dump_json(exclude={"internal_secret", "api_key"})
    with _lock:
        server = _servers.get(key)
        if server is None:
            server = _servers[key] = LocalServer(settings)
            atexit.register(server.close)
        return server
