"""A loopback stand-in for stripe-mock's key: stripe-python's suite reaches
``http://localhost:$STRIPE_MOCK_PORT/v1/...`` with the key ``sk_test_123``, written into
hundreds of its tests (and checked by them in the Authorization header they expect). This
forwards each request, its path unchanged, to the checkout's own root (the episode's
``roots["checkout"]``: the app at Stripe's base path, the episode chosen by the token) with
the episode's token in place of that key, and counts what it forwarded (``/__shim/count``,
``/__shim/paths?since=N``) for the suite's plugin: the credentials are the only change."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from workgym.processes import free_port

# Headers the stripe library sends that the checkout reads; the rest stay here.
_FORWARDED = ("content-type", "idempotency-key", "stripe-version", "user-agent")


def shim_app(checkout: str, token: str) -> Starlette:
    paths: list[str] = []
    client = httpx.AsyncClient(timeout=30)

    async def forward(request: Request) -> Response:
        path = request.url.path
        paths.append(f"{request.method} {path}")
        headers = {k: v for k, v in request.headers.items() if k in _FORWARDED}
        answer = await client.request(
            request.method, f"{checkout}{path}", params=request.url.query,
            content=await request.body(), headers={**headers,
                                                   "authorization": f"Bearer {token}"})
        kept = {k: v for k, v in answer.headers.items()
                if k in ("content-type", "idempotent-replayed", "request-id")}
        return Response(answer.content, status_code=answer.status_code, headers=kept)

    async def count(request: Request) -> Response:
        return JSONResponse(len(paths))

    async def since(request: Request) -> Response:
        return JSONResponse(paths[int(request.query_params.get("since", "0")):])

    async def root(request: Request) -> Response:  # the suite's "is stripe-mock up?" probe
        return JSONResponse({})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()  # its connections closed before the loop is

    return Starlette(lifespan=lifespan, routes=[
        Route("/__shim/count", count), Route("/__shim/paths", since), Route("/", root),
        Route("/v1/{rest:path}", forward, methods=["GET", "POST", "DELETE"])])


@contextmanager
def shim(checkout: str, token: str) -> Iterator[int]:
    """The shim serving on a free loopback port for the block: its port. ``checkout`` is the
    app's own root (``/v1/...`` at its top)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(shim_app(checkout, token), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
