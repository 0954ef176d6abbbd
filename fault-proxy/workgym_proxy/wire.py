"""The proxy's own HTTP/1.1 client to replicas over the network (``proxy_client = "wire"``).

Only what the hop needs: keep-alive connections per host, each request written in one
piece (head and body), the answer parsed by httptools (the parser uvicorn serves with, so no
new dependency). A general client's per-request work (URL objects, header multidicts,
default headers, a timeout context, a request and a response object) was a quarter of the
proxy's CPU at 16 episodes (``make bench``'s proxy section).

A connection idle past ``IDLE_S`` is closed rather than reused: the replica's server closes
idle ones after 75 s (workgym/http_server.py), and a request written on a connection the
server is closing could not be told apart from one the replica received, so it is never
retried.
"""

from __future__ import annotations

import asyncio
import time
from typing import cast

import httptools

IDLE_S = 15.0  # well within the replica's keep-alive (75 s)
_NO_BODY = frozenset({"HEAD"})
_WITH_LENGTH = frozenset({"POST", "PUT", "PATCH", "DELETE"})


Headers = list[tuple[bytes, bytes]]  # names lower-case, as they came


class WireError(Exception):
    """The connection failed, closed or answered something that is not HTTP/1.1."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection; one request at a time."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.answer: asyncio.Future[tuple[int, Headers, bytes]] | None = None
        self.headers: Headers = []
        self.chunks: list[bytes] = []
        self.head_only = False
        self.reusable = False  # set once an answer completed on a connection kept alive
        self.closed = False
        self.idle_since = 0.0

    # A socket's transport (uvloop's is not an asyncio.Transport subclass, but is one);
    # asyncio types the hook with the base class.
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(WireError(f"the connection closed before the answer: {exc!r}"))

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(WireError(f"not an HTTP/1.1 answer: {exc!r}"))
            self.close()

    # httptools' callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        if self.head_only:  # a HEAD's answer has no body, whatever its length says
            self._complete(reusable=False)

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        if not self.head_only:
            self._complete(reusable=self.parser.should_keep_alive())

    def _complete(self, *, reusable: bool) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_result((self.parser.get_status_code(), self.headers,
                                    b"".join(self.chunks)))
            self.reusable = reusable

    def _fail(self, error: Exception) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(error)

    def send(self, request: bytes, head_only: bool) -> asyncio.Future[tuple[int, Headers, bytes]]:
        assert self.transport is not None
        self.answer = asyncio.get_running_loop().create_future()
        self.headers, self.chunks, self.head_only, self.reusable = [], [], head_only, False
        self.transport.write(request)
        return self.answer

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class WireClient:
    """Keep-alive connections to ``http://host:port`` bases, opened as needed, never queued."""

    def __init__(self, timeout_s: float, connect_s: float) -> None:
        self.timeout_s = timeout_s
        self.connect_s = connect_s
        self._idle: dict[str, list[_Connection]] = {}
        self._busy: set[_Connection] = set()

    async def request(self, method: str, url: str, headers: Headers,
                      body: bytes) -> tuple[int, Headers, bytes]:
        """(status, headers, body) of ``method url``; WireError or TimeoutError if none."""
        scheme, _, rest = url.partition("://")
        host, slash, target = rest.partition("/")
        if scheme != "http" or not host:
            raise WireError(f"not an http:// URL: {url[:200]!r}")
        head = [f"{method} /{target if slash else ''} HTTP/1.1\r\nhost: {host}\r\n".encode(
            "latin-1")]
        head += [name + b": " + value + b"\r\n" for name, value in headers]
        if body or method in _WITH_LENGTH:
            head.append(b"content-length: %d\r\n" % len(body))
        head += [b"\r\n", body]
        connection = await self._connection(host)
        self._busy.add(connection)
        ok = False
        try:
            async with asyncio.timeout(self.timeout_s):
                answer = await connection.send(b"".join(head), method in _NO_BODY)
            ok = True
            return answer
        finally:
            self._busy.discard(connection)
            if ok and connection.reusable and not connection.closed:
                connection.idle_since = time.monotonic()
                self._idle.setdefault(host, []).append(connection)
            else:  # failed, cancelled or not kept alive: never reused mid-answer
                connection.close()

    async def _connection(self, host: str) -> _Connection:
        idle = self._idle.get(host)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if not connection.closed and now - connection.idle_since < IDLE_S:
                return connection
            connection.close()
        name, _, port = host.rpartition(":") if ":" in host else (host, "", "80")
        async with asyncio.timeout(self.connect_s):
            _, connection = await asyncio.get_running_loop().create_connection(
                _Connection, name.strip("[]"), int(port))
        return connection

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        for connection in self._busy:
            connection.close()
        self._idle.clear()
        self._busy.clear()
