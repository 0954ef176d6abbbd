"""How the proxy reaches replicas: (method, url, headers, body) -> (status, headers, body).

In-process replicas are ASGI apps mounted on an ``httpx.AsyncClient`` (no sockets); replicas
over the network are reached by the client ``Settings.proxy_client`` names. ``make bench``
(tests/bench/proxy.py: replica and proxy each alone, loopback, 2 cores) chose aiohttp: its hop
adds ~1.0-1.3 ms p50 over a direct call where httpx's adds ~2.0-2.2 ms, and it keeps ~2.3x
httpx's throughput at 16 episodes; the client alone costs ~0.2 ms CPU per request against
httpx's ~0.9-1.6 ms.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Literal, Protocol

import httpx

from workgym_core.errors import ReplicaUnreachable

if TYPE_CHECKING:
    import aiohttp

Headers = list[tuple[bytes, bytes]]
Exchange = tuple[int, Headers, bytes]  # status, headers (names lower-case), body
NetworkClient = Literal["httpx", "aiohttp"]
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
    """An ``httpx.AsyncClient``: ASGI mounts in-process, or the network."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        try:
            response = await self.client.request(method, url, headers=headers, content=body)
        except httpx.TransportError as exc:
            raise _unreachable(url, exc) from exc
        return (response.status_code, [(k.lower(), v) for k, v in response.headers.raw],
                response.content)

    async def aclose(self) -> None:
        await self.client.aclose()


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


class Split:
    """URLs under ``local`` bases (in-process replicas) through one upstream, others through
    the network one."""

    def __init__(self, local_bases: Collection[str], local: Upstream, network: Upstream) -> None:
        self.bases = tuple(local_bases)
        self.local = local
        self.network = network

    async def request(self, method: str, url: str, headers: Headers, body: bytes) -> Exchange:
        upstream = self.local if url.startswith(self.bases) else self.network
        return await upstream.request(method, url, headers, body)

    async def aclose(self) -> None:
        await self.local.aclose()
        await self.network.aclose()


def make_upstream(client: NetworkClient, http: httpx.AsyncClient,
                  local_bases: Collection[str]) -> Upstream:
    """The proxy's upstream: ``http`` (with its ASGI mounts) for ``local_bases``, ``client``
    for replicas over the network."""
    inprocess = HttpxUpstream(http)
    if client == "httpx":
        return inprocess
    network = AiohttpUpstream()
    return Split(local_bases, inprocess, network) if local_bases else network
