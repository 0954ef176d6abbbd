"""An in-process WorkGym server on a background event loop, for ``workgym.make``.

One per process and settings: every environment made in the process shares its
replicas, snapshot caches and Redis, as parallel rollouts of a real server do.
Nothing listens on a port: clients reach it through :class:`LoopTransport`, an httpx
transport that hands each request, from any thread, to the loop.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, cast

import httpx

from workgym_core.asgi import ASGIApp
from workgym_core.settings import Settings

from .app import Server, create_app

T = TypeVar("T")
BASE_URL = "http://workgym.local"


class LoopTransport(httpx.BaseTransport):
    """Sends each request through an ASGI app on an event loop run by another thread.

    A connection the app drops (the ``connection_reset`` fault) reaches the client as it
    would over a network: an ``httpx.RemoteProtocolError``, a TransportError."""

    def __init__(self, app: ASGIApp, run: Callable[[Coroutine[Any, Any, httpx.Response]],
                                                   httpx.Response]) -> None:
        self._asgi = httpx.ASGITransport(app=app)
        self._run = run

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()  # the body, buffered here: the app reads it on the loop
        try:
            return self._run(self._send(request))
        except ConnectionResetError as exc:
            raise httpx.RemoteProtocolError("connection reset by peer", request=request) from exc

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self._asgi.handle_async_request(request)
        # The app has answered in full: its body, as is, becomes a stream the caller's
        # thread reads (and decodes) like any other.
        stream = cast(httpx.AsyncByteStream, response.stream)
        response.stream = httpx.ByteStream(b"".join([chunk async for chunk in stream]))
        return response


class LocalServer:
    def __init__(self, settings: Settings) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="workgym-local",
                                        daemon=True)
        self._thread.start()
        # Agents of an in-process server reach its apps at BASE_URL, whatever was configured.
        self.server: Server = self.run(self._build(settings.model_copy(
            update={"public_url": BASE_URL})))
        self.transport = LoopTransport(self.server, self.run)
        self._client = self.client()

    @staticmethod
    async def _build(settings: Settings) -> Server:
        return create_app(settings)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def client(self) -> httpx.Client:
        """A new client of this server (closing it leaves the server running)."""
        return httpx.Client(transport=self.transport, base_url=BASE_URL)

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._client.request(method, url, **kwargs)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self._client.close()
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
    key = settings.model_dump_json(exclude={"internal_secret", "token_secret", "api_key"})
    with _lock:
        server = _servers.get(key)
        if server is None:
            server = _servers[key] = LocalServer(settings)
            atexit.register(server.close)
        return server
