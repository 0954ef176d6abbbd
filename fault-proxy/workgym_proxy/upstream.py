"""How the proxy reaches replicas: (method, url, headers, body) -> (status, headers, body).

In-process replicas are ASGI apps the proxy calls directly (:class:`AsgiUpstream`: no
sockets, no HTTP client, no copies); replicas over the network are reached by the client
``Settings.proxy_client`` names. ``make bench`` (services/workgym_perf/bench/proxy.py:
replica and proxy each alone, loopback, 2 cores) chose aiohttp: its hop adds ~1.0-1.3 ms
p50 over a direct call where httpx's adds ~2.0-2.2 ms, and it keeps ~2.3x httpx's throughput
at 16 episodes; the client alone costs ~0.2 ms CPU per request against httpx's ~0.9-1.6 ms.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import unquote

from workgym_core.asgi import ASGIApp, Message
from workgym_core.errors import ReplicaUnreachable

from .wire import WireClient, WireError

if TYPE_CHECKING:
    import aiohttp
    import httpx

Headers = list[tuple[bytes, bytes]]
Exchange = tuple[int, Headers, bytes]  # status, headers (names lower-case), body
NetworkClient = Literal["wire", "httpx", "aiohttp"]
TIMEOUT_S = 30.0
CONNECT_S = 3.0


log = logging.getLogger("workgym.proxy")


def _unreachable(url: str, exc: Exception) -> ReplicaUnreachable:
    """The error a caller may see: what failed, never where (internal hosts stay internal)."""
    log.warning("replica at %s unreachable: %r", url, exc)
    return ReplicaUnreachable()


class Upstream(Protocol):
    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange: ...

    async def aclose(self) -> None: ...


class HttpxUpstream:
    """An ``httpx.AsyncClient`` over the network."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        import httpx  # loaded with the client

        try:
            response = await self.client.request(method, url, headers=headers, content=body)
        except httpx.TransportError as exc:
            raise _unreachable(url, exc) from exc
        return (response.status_code, [(k.lower(), v) for k, v in response.headers.raw],
                response.content)

    async def aclose(self) -> None:
        await self.client.aclose()


_APP_FAILED = (500, [(b"content-type", b"application/json")],
               b'{"error":{"code":"internal_error","message":"the app failed on this request"}}')


class AsgiUpstream:
    """In-process replicas, by base URL (``http://<app>.replica``): each request is one call
    of the app with a scope built from the URL, as a server would make it. An app that
    raises is logged with its traceback and, if it had not answered, answers 500, recorded
    like any other reply."""

    def __init__(self, apps: dict[str, ASGIApp]) -> None:
        self.apps = {base.partition("://")[2]: app for base, app in apps.items()}

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        host, _, target = url.partition("://")[2].partition("/")
        path, _, query = target.partition("?")
        raw_path = "/" + path
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": unquote(raw_path),
            "raw_path": raw_path.encode("latin-1"), "query_string": query.encode("latin-1"),
            "root_path": "", "headers": [(b"host", host.encode("latin-1")), *headers],
            "server": (host, 80), "client": ("127.0.0.1", 0), "state": {},
        }
        delivered = False

        async def receive() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the app reads past the body: nothing more, ever
            raise AssertionError("unreachable")

        start: Message = {}
        chunks: list[bytes] = []

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.apps[host](scope, receive, send)
        except Exception:
            # Logged as a server logs it, whether or not the app answered first (Starlette
            # sends its 500, then re-raises for the server to log: this is that server).
            log.exception("in-process replica %s failed on %s %s", host, method, raw_path)
            if not start:
                return _APP_FAILED
        return start["status"], list(start.get("headers", [])), b"".join(chunks)

    async def aclose(self) -> None:
        return None


class AiohttpUpstream:
    """An ``aiohttp.ClientSession`` over the network, opened on first use: it needs a running
    loop, and importing aiohttp costs ~0.25 s a process with in-process replicas never needs."""

    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self._session: aiohttp.ClientSession | None = None
        self._errors: tuple[type[Exception], ...] = (asyncio.TimeoutError,)

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            import aiohttp

            self._errors = (aiohttp.ClientError, asyncio.TimeoutError)
            self._session = aiohttp.ClientSession(
                # A dead instance's address answers nothing: fail the connect fast.
                timeout=aiohttp.ClientTimeout(total=self.timeout_s, sock_connect=CONNECT_S),
                cookie_jar=aiohttp.DummyCookieJar(),
                # Pooled per host, never queued; names re-resolved after 1 s, so a killed
                # replica container's name stops resolving at once (compose --scale).
                connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=1),
            )
        return self._session

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        from yarl import URL  # aiohttp's own URL type, loaded with it

        pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers]
        try:
            # encoded=True: the proxy vetted the path as sent; it must not be re-normalised.
            async with self._open().request(method, URL(url, encoded=True), headers=pairs,
                                            data=body or None,
                                            allow_redirects=False) as response:
                return (response.status, [(k.lower(), v) for k, v in response.raw_headers],
                        await response.read())
        except self._errors as exc:
            raise _unreachable(url, exc) from exc

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class WireUpstream:
    """The proxy's own keep-alive HTTP/1.1 client (wire.py)."""

    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self.client = WireClient(timeout_s, CONNECT_S)

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        try:
            return await self.client.request(method, url, headers, body)
        except (WireError, OSError, TimeoutError) as exc:
            raise _unreachable(url, exc) from exc

    async def aclose(self) -> None:
        await self.client.aclose()


class Split:
    """URLs under ``local`` bases (in-process replicas) through one upstream, others through
    the network one."""

    def __init__(self, local_bases: Collection[str], local: Upstream, network: Upstream) -> None:
        # Each base with its path's slash: http://127.0.0.1:4012 is not http://127.0.0.1:40123.
        self.bases = tuple(base.rstrip("/") + "/" for base in local_bases)
        self.local = local
        self.network = network

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        upstream = self.local if url.startswith(self.bases) else self.network
        return await upstream.request(method, url, headers, body)

    async def aclose(self) -> None:
        await self.local.aclose()
        await self.network.aclose()


def make_upstream(client: NetworkClient, local: dict[str, ASGIApp]) -> Upstream:
    """How replicas are reached: in-process ones (``local``, by base URL) called directly,
    those over the network by ``client``."""
    network: Upstream
    if client == "httpx":
        import httpx  # only this client needs it (importing it costs a process ~50 ms)

        network = HttpxUpstream(httpx.AsyncClient(
            timeout=httpx.Timeout(TIMEOUT_S, connect=CONNECT_S)))
    elif client == "aiohttp":
        network = AiohttpUpstream()
    else:
        network = WireUpstream()
    return Split(local, AsgiUpstream(local), network) if local else network
