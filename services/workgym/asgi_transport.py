"""httpx's in-process ASGI transport as a network client sees it: a connection the app drops
(the proxy's ``connection_reset`` fault raises ``ConnectionResetError``) reaches the caller as
over a socket, an ``httpx.RemoteProtocolError`` (a TransportError). The in-process server's
clients (:mod:`workgym.local`) and the MCP endpoint's calls to the proxy both go through it."""

from __future__ import annotations

import httpx


class DroppingASGITransport(httpx.ASGITransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except ConnectionResetError as exc:
            raise httpx.RemoteProtocolError("connection reset by peer", request=request) from exc
