"""A connection an in-process app drops is what a network client sees, through both in-process
transports: the MCP endpoint's (async) and the in-process server's clients' (a loop thread)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from workgym.asgi_transport import DroppingASGITransport
from workgym.local import LoopTransport
from workgym_core.asgi import Receive, Scope, Send


async def _drops(scope: Scope, receive: Receive, send: Send) -> None:
    raise ConnectionResetError("the connection_reset fault")


def test_a_dropped_connection_is_a_remote_protocol_error_over_asgi() -> None:
    async def call() -> None:
        async with httpx.AsyncClient(transport=DroppingASGITransport(app=_drops),
                                     base_url="http://app.local") as client:
            with pytest.raises(httpx.RemoteProtocolError, match="connection reset by peer"):
                await client.get("/")

    asyncio.run(call())


def test_a_dropped_connection_is_a_remote_protocol_error_over_the_loop_transport() -> None:
    with httpx.Client(transport=LoopTransport(_drops, asyncio.run),
                      base_url="http://app.local") as client, \
            pytest.raises(httpx.RemoteProtocolError, match="connection reset by peer"):
        client.get("/")
