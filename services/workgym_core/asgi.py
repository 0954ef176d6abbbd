"""Pure-ASGI helpers (no BaseHTTPMiddleware: it costs ~4x throughput)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from .errors import HeadersTooLarge, InvalidRequest, PayloadTooLarge, RequestTimeout, WorkGymError
from .settings import ServerLimits

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# The HTTP methods that only read (RFC 9110's safe methods): a request with one changes nothing.
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole request body, or PayloadTooLarge past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(
                f"request body exceeds {limit} bytes", field="body", rule=f"max_bytes:{limit}"
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def send_response(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    """A whole response, with its Content-Length (so servers do not fall back to chunking)."""
    headers = [*(h for h in headers if h[0] != b"content-length"),
               (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_error(send: Send, error: WorkGymError) -> None:
    response = error.response()
    await send_response(send, response.status_code, bytes(response.body), response.raw_headers)


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the already-read body to the next app first."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays/objects deeper than ``limit`` (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def json_body(body: bytes, max_depth: int) -> Any:
    """The parsed JSON body, or None when there is none or it is not JSON (the app answers
    that itself); 422 ``too_deep`` when it nests deeper than ``max_depth``, before any app
    (or serialiser) recurses into it."""
    if not body:
        return None
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if "depth limit" not in str(exc):  # past orjson's own limit (1024): past ours
            return None
        deep = True
    else:
        deep = nests_deeper(parsed, max_depth)
    if deep:
        raise InvalidRequest(f"the JSON body nests deeper than {max_depth} levels",
                             code="too_deep", field="body", rule=f"max_depth:{max_depth}")
    return parsed


class BodyLimit:
    """Refuse bodies over ``limit`` bytes (413) or nested deeper than ``max_depth`` (422)
    before the app parses them."""

    def __init__(self, app: ASGIApp, limit: int, max_depth: int = 32) -> None:
        self.app = app
        self.limit = limit
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "DELETE"):
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, self.limit)
            json_body(body, self.max_depth)
        except WorkGymError as error:
            await send_error(send, error)
            return
        await self.app(scope, replay(body, receive), send)


def headers_too_large(limits: ServerLimits) -> HeadersTooLarge:
    """The 431 for a request's headers past ``max_header_bytes`` (at the app's entry, or while
    the head is still arriving: ``workgym.http_server``)."""
    return HeadersTooLarge(f"request headers exceed {limits.max_header_bytes} bytes",
                           field="headers", rule=f"max_bytes:{limits.max_header_bytes}")


def check_headers(headers: list[tuple[bytes, bytes]], limits: ServerLimits) -> None:
    """431 for a request with too many or too large headers."""
    if len(headers) > limits.max_header_count:
        raise HeadersTooLarge(f"more than {limits.max_header_count} request headers",
                              field="headers", rule=f"max_count:{limits.max_header_count}")
    if sum(len(k) + len(v) for k, v in headers) > limits.max_header_bytes:
        raise headers_too_large(limits)


def body_within(receive: Receive, timeout_s: float) -> Receive:
    """A ``receive`` whose request body must have wholly arrived ``timeout_s`` after this call,
    else it raises 408 (which every app answers before it stores anything). Once the body is
    in, waiting (for a disconnect, under a stream) is not bounded."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    done = False

    async def timed() -> Message:
        nonlocal done
        if done:
            return await receive()
        try:
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            raise RequestTimeout(f"the request body did not arrive within {timeout_s:g} s",
                                 field="body", rule=f"timeout_s:{timeout_s:g}",
                                 headers={"connection": "close"}) from None
        done = message["type"] != "http.request" or not message.get("more_body", False)
        return message

    return timed


class EntryLimits:
    """A served process's entry, whatever its role: a request's headers within
    ``max_header_count`` / ``max_header_bytes`` (else 431, before any app looks at it) and
    its body in within ``body_timeout_s`` (else 408)."""

    def __init__(self, app: ASGIApp, limits: ServerLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            check_headers(scope["headers"], self.limits)
        except WorkGymError as error:
            await send_error(send, error)
            return
        await self.app(scope, body_within(receive, self.limits.body_timeout_s), send)
