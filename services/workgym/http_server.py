"""How ``workgym serve`` (and each Ray actor) runs uvicorn: every connection bounded.

uvicorn times out neither a half-sent request head nor a connection that sends nothing, and
its ``limit_concurrency`` still reads the request of a connection over the limit (then answers
plain text). :class:`BoundedHttp` adds both bounds to its httptools protocol; the request's
headers and body are bounded at the app's entry (:class:`workgym_core.asgi.EntryLimits`).
"""

from __future__ import annotations

import asyncio
import functools
import resource
from http import HTTPStatus
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from workgym_core.asgi import headers_too_large
from workgym_core.errors import RequestTimeout, WorkGymError, busy
from workgym_core.settings import ServerLimits

# Idle HTTP connections stay open this long (uvicorn's default is 5 s): longer than an LLM
# agent thinks between steps, so its client never reuses a connection the server just closed
# (a reset under locust's llm-paced profile, 3-30 s of think time).
KEEP_ALIVE_S = 75
# A request line (method, path and query string) may take this much of a request's head.
REQUEST_LINE_BYTES = 65_536


class BoundedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol, plus: a request head must be whole ``header_timeout_s``
    after the connection opened (or after the request's first byte), else 408 and the
    connection is closed; a connection past ``max_connections`` open ones is answered 503
    ``server_busy`` and closed before anything of it is read."""

    def __init__(self, *args: Any, limits: ServerLimits, max_connections: int,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.max_connections = max_connections
        self.head_timer: asyncio.TimerHandle | None = None  # set while a head is awaited
        self.head_bytes = 0  # received of it so far
        self.refused = False  # answered and closing: what it sends is dropped
        # The most a whole head may take on the wire: its headers, their separators and a
        # request line (a long query string) of up to REQUEST_LINE_BYTES.
        self.max_head_bytes = (limits.max_header_bytes + 4 * limits.max_header_count
                               + REQUEST_LINE_BYTES)

    # uvicorn hands its HTTP protocols a socket's Transport; asyncio types the hook with any.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            self._refuse(busy())
        else:
            self._arm()

    def data_received(self, data: bytes) -> None:
        """As uvicorn's; a head still not whole past ``max_head_bytes`` is answered 431 as it
        arrives (the app's entry would refuse it: it is never buffered whole)."""
        if self.refused:
            return
        head_open = self.head_timer is not None
        super().data_received(data)
        if head_open or self.head_timer is not None:
            self.head_bytes += len(data)
        if self.head_timer is not None and self.head_bytes > self.max_head_bytes:
            self._refuse(headers_too_large(self.limits))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.head_bytes = 0
        self.head_timer = self.loop.call_later(self.limits.header_timeout_s, self._head_late)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_late(self) -> None:
        self.head_timer = None
        timeout = self.limits.header_timeout_s
        self._refuse(RequestTimeout(f"the request head did not arrive within {timeout:g} s",
                                    field="headers", rule=f"timeout_s:{timeout:g}"))

    def _refuse(self, error: WorkGymError) -> None:
        """``error`` as a whole response, then the connection closed."""
        if self.transport.is_closing():
            return
        response = error.response()
        status = HTTPStatus(response.status_code)
        head = [f"HTTP/1.1 {status.value} {status.phrase}".encode(),
                *(name + b": " + value for name, value in response.raw_headers),
                b"connection: close"]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + bytes(response.body))
        # A lingering close: what the client still sends is read and dropped (closing on
        # unread data would reset the connection, and the client might never read the
        # answer) until it closes (EOF closes the transport), or for header_timeout_s at most.
        self.refused = True
        self.transport.write_eof()
        self.loop.call_later(self.limits.header_timeout_s, self.transport.close)


def default_max_connections() -> int:
    """Three quarters of this process's open-file limit: the rest for its databases, Redis
    and logs."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(1, soft * 3 // 4) if soft != resource.RLIM_INFINITY else 65_536


def config(app: Any, limits: ServerLimits, **kwargs: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` under ``limits`` (``kwargs``: host, port, log level)."""
    protocol = functools.partial(
        BoundedHttp, limits=limits,
        max_connections=limits.max_connections or default_max_connections())
    # uvicorn calls ``http`` to make each connection's protocol, but types it as a class.
    return uvicorn.Config(app, http=protocol, timeout_keep_alive=KEEP_ALIVE_S,  # type: ignore[arg-type]
                          **kwargs)
