"""The proxy's own HTTP/1.1 client (workgym_proxy/wire.py), against a scripted server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from workgym_core.errors import ReplicaUnreachable
from workgym_proxy.upstream import WireUpstream

Answer = Callable[[bytes], bytes | None]  # a request's head and body -> the raw answer


async def _exchange(answer: Answer, calls: Callable[[WireUpstream, str], Awaitable[None]]
                    ) -> list[bytes]:
    """Serve ``answer`` on a loopback port while ``calls`` runs; the requests received, each
    prefixed with the number of its connection."""
    received: list[bytes] = []
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        number = connections
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:  # the client closed it
                    return
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                request = head + await reader.readexactly(length)
                received.append(b"%d " % number + request)
                raw = answer(request)
                if raw is None:  # dropped mid-answer
                    return
                writer.write(raw)
                await writer.drain()
                if b"connection: close" in raw:
                    return
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    upstream = WireUpstream(timeout_s=5)
    try:
        await calls(upstream, f"http://127.0.0.1:{port}")
    finally:
        await upstream.aclose()
        server.close()
    return received


def _ok(body: bytes, *extra: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" + b"".join(
        e + b"\r\n" for e in extra) + b"content-length: %d\r\n\r\n" % len(body) + body


def test_requests_go_out_whole_and_answers_come_back_on_one_kept_alive_connection() -> None:
    async def calls(upstream: WireUpstream, base: str) -> None:
        assert await upstream.request("POST", f"{base}/api/x?q=1", [(b"x-a", b"1")],
                                      b'{"a":1}') == (200, [(b"content-type", b"application/json"),
                                                            (b"content-length", b"7")], b'{"a":1}')
        status, headers, body = await upstream.request("GET", f"{base}/b", [], b"")
        assert (status, body) == (200, b"{}")

    received = asyncio.run(_exchange(lambda r: _ok(r.partition(b"\r\n\r\n")[2] or b"{}"), calls))
    assert received == [
        b"1 POST /api/x?q=1 HTTP/1.1\r\nhost: 127.0.0.1:%s\r\nx-a: 1\r\ncontent-length: 7\r\n\r\n"
        b'{"a":1}' % received[0].split(b"host: 127.0.0.1:")[1].split(b"\r\n")[0],
        b"1 GET /b HTTP/1.1\r\nhost: 127.0.0.1:%s\r\n\r\n"
        % received[0].split(b"host: 127.0.0.1:")[1].split(b"\r\n")[0],
    ]


def test_chunked_head_and_closing_answers() -> None:
    chunked = (b"HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n"
               b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")

    def answer(request: bytes) -> bytes:
        if request.startswith(b"HEAD"):
            return _ok(b"0123456789")[: -10]  # a length, and no body
        if b"/chunked" in request:
            return chunked
        return _ok(b"bye", b"connection: close")

    async def calls(upstream: WireUpstream, base: str) -> None:
        assert (await upstream.request("GET", f"{base}/chunked", [], b""))[::2] == (201, b"abcde")
        assert (await upstream.request("HEAD", f"{base}/h", [], b""))[::2] == (200, b"")
        assert (await upstream.request("GET", f"{base}/c", [], b""))[::2] == (200, b"bye")
        assert (await upstream.request("GET", f"{base}/d", [], b""))[::2] == (200, b"bye")

    received = asyncio.run(_exchange(answer, calls))
    # A HEAD's connection is not reused (its answer's length was not sent), nor a closed one.
    assert [r.split(b" ")[0] for r in received] == [b"1", b"1", b"2", b"3"]


def test_a_dropped_answer_or_no_server_is_unreachable() -> None:
    async def calls(upstream: WireUpstream, base: str) -> None:
        with pytest.raises(ReplicaUnreachable):
            await upstream.request("POST", f"{base}/x", [], b"{}")

    asyncio.run(_exchange(lambda _: None, calls))

    async def nobody() -> None:
        with pytest.raises(ReplicaUnreachable):
            await WireUpstream().request("GET", "http://127.0.0.1:9/x", [], b"")

    asyncio.run(nobody())
