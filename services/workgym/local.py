"""An in-process WorkGym server on a background event loop, for ``workgym.make``.

One per process and settings: every environment made in the process shares its
replicas, snapshot caches and Redis, as parallel rollouts of a real server do.
Nothing listens on a port: clients reach it through :class:`LoopTransport`, an httpx
transport that hands each request, from any thread, to the loop.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, cast

import httpx

from workgym_core.asgi import ASGIApp
from workgym_core.settings import Settings

from .app import Server, create_app
from .asgi_transport import DroppingASGITransport

T = TypeVar("T")
BASE_URL = "http://workgym.local"
log = logging.getLogger("workgym")
# Building the apps (and starting the embedded Redis), on a loaded machine.
START_S = 120.0
# The loop's thread, once the server is closed.
STOP_S = 5.0


class LocalServerTimeout(TimeoutError):
    """The in-process server did not finish something within its bound; says what."""


class LoopTransport(httpx.BaseTransport):
    """Sends each request through an ASGI app on an event loop run by another thread.

    A connection the app drops (the ``connection_reset`` fault) reaches the client as it
    would over a network: an ``httpx.RemoteProtocolError``, a TransportError."""

    def __init__(self, app: ASGIApp, run: Callable[[Coroutine[Any, Any, httpx.Response]],
                                                   httpx.Response]) -> None:
        self._asgi = DroppingASGITransport(app=app)
        self._run = run

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()  # the body, buffered here: the app reads it on the loop
        return self._run(self._send(request))

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
        # Scored in a thread unless asked otherwise: one rollout loop waits on each score,
        # which a worker process would only make longer (its IPC).
        workers = settings.scoring_workers if "scoring_workers" in settings.model_fields_set \
            else 0
        self.server: Server = self.run(self._build(settings.model_copy(
            update={"public_url": BASE_URL, "scoring_workers": workers})), START_S,
            "its start (its apps and Redis)")
        self.transport = LoopTransport(self.server, self.run)
        self._client = self.client()
        # What the start built (modules, apps, the catalogue) lives as long as the process:
        # out of the collector's way, as `workgym serve` does, so full collections among many
        # live episodes stay short (the process's objects until now are never collected).
        gc.freeze()

    @staticmethod
    async def _build(settings: Settings) -> Server:
        return create_app(settings)

    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None,
            what: str = "") -> T:
        """``coro`` run on the server's loop; with ``timeout_s``, a LocalServerTimeout naming
        ``what`` past it (a request's bounds are the server's own)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout_s)
        except TimeoutError:
            if future.done():  # the coroutine's own TimeoutError
                raise
            future.cancel()
            raise LocalServerTimeout(f"in-process WorkGym server: gave up after "
                                     f"{timeout_s:.0f} s waiting on {what}") from None

    def client(self) -> httpx.Client:
        """A new client of this server (closing it leaves the server running)."""
        return httpx.Client(transport=self.transport, base_url=BASE_URL)

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._client.request(method, url, **kwargs)

    def close(self) -> None:
        """Close the server and stop its loop. Never hangs: a part that does not close in
        time is named in one error line (:meth:`Server.aclose`), and so is the loop."""
        if self.loop.is_closed():
            return
        self._client.close()
        try:
            self.run(self.server.aclose(), self.server.shutdown_s + STOP_S, "its shutdown")
        except LocalServerTimeout as exc:
            log.error("%s", exc)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=STOP_S)
        if self._thread.is_alive():  # a callback holds the loop: it is left to the process
            log.error("in-process WorkGym server: its loop did not stop within %.0f s", STOP_S)
            return
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
