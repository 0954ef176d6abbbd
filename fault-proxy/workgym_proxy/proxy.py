"""Forward an agent's request to its episode's replica, inject its faults, record it.

URL shape: ``/apps/<app>/<path inside the app>``. Each request must carry the
episode's bearer token; the proxy counts the step, applies the episode's fault
plan, forwards to the replica instance the episode was placed on with the
internal credential, and appends the exchange to the episode's trajectory.
Agents can never reach another episode (the replica only sees the episode id
the proxy derived from the token), an internal ``/_env`` route, or any host but
the episode's replicas.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import orjson

from workgym.registry import Registry, StepGrant
from workgym.runtime.asgi import Receive, Scope, Send, read_body, send_error, send_response
from workgym.runtime.errors import NotFound, Unauthorized, WorkGymError
from workgym.runtime.internal import (
    EPISODE_HEADER,
    INTERNAL_HEADER,
    INTERNAL_PREFIX,
    STEP_HEADER,
)
from workgym.runtime.settings import Settings
from workgym.runtime.trajectory import TrajectoryStep

from .faults import Fault, Reply, StepContext
from .faults.plan import cached_plan
from .faults.plugins import limited, token_expired

PREFIX = "/apps/"
# Never forwarded in either direction: hop-by-hop, routing and credentials.
_DROP_REQUEST = frozenset({
    b"host", b"authorization", b"connection", b"keep-alive", b"te", b"trailer",
    b"transfer-encoding", b"upgrade", b"proxy-authorization", b"content-length",
})
_DROP_RESPONSE = frozenset({
    b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
    b"content-length", b"content-encoding",
})


def _bearer(headers: list[tuple[bytes, bytes]]) -> str:
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    raise Unauthorized("missing bearer token: send 'Authorization: Bearer <episode token>'",
                       code="missing_token")


def _json_or_none(body: bytes, limit: int) -> Any:
    if not body or len(body) > limit:
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _error_code(body: Any) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = body["error"].get("code")
        return code if isinstance(code, str) else None
    return None


class Proxy:
    """Pure ASGI app serving ``/apps/<app>/...``."""

    def __init__(self, settings: Settings, registry: Registry, upstream: httpx.AsyncClient,
                 apps: frozenset[str]) -> None:
        self.settings = settings
        self.registry = registry
        self.upstream = upstream
        self.apps = apps

    def _route(self, path: str) -> tuple[str, str]:
        app, _, rest = path[len(PREFIX):].partition("/")
        segments = rest.split("/")
        # Dot segments would be normalised away downstream; internal routes never leave here.
        if (app not in self.apps or "." in segments or ".." in segments
                or ("/" + rest.lstrip("/")).startswith(INTERNAL_PREFIX)):
            raise NotFound(f"no route {path}", code="not_found")
        return app, "/" + rest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self._serve(scope, receive, send)
        except WorkGymError as error:
            await send_error(send, error)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        app, path = self._route(scope["path"])
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        token = _bearer(headers)
        grant = await self.registry.begin_step(token)
        if app not in grant.apps:
            raise NotFound(f"this episode has no app '{app}'", code="app_not_in_episode")
        body = await read_body(receive, self.settings.max_body_bytes)
        method, query = scope["method"], scope.get("query_string", b"").decode("latin-1")
        ctx = self._context(grant, token, app, method, path)
        fired: list[str] = []
        try:
            reply = await self._exchange(ctx, grant, app, query, headers, body, fired)
        except ConnectionResetError:
            await self._record(grant, app, method, path, query, body, Reply(0, [], b""),
                               fired, started)
            # Start a response and abandon it: the client sees the connection drop.
            await send({"type": "http.response.start", "status": 200, "headers": []})
            raise
        await send_response(send, reply.status, reply.body, reply.headers)
        await self._record(grant, app, method, path, query, body, reply, fired, started)

    def _context(self, grant: StepGrant, token: str, app: str, method: str,
                 path: str) -> StepContext:
        episode_id = grant.episode_id

        async def apply_ops(ops: list[dict[str, Any]]) -> None:
            response = await self.upstream.post(
                f"{grant.apps[app]}{INTERNAL_PREFIX}/episodes/{episode_id}/apply",
                json={"ops": ops}, headers={INTERNAL_HEADER: self.settings.internal_secret},
            )
            response.raise_for_status()

        async def set_rate_limit(until: float) -> None:
            await self.registry.limit_until(episode_id, until)

        async def expire_token() -> None:
            await self.registry.expire_token(episode_id, token)

        return StepContext(
            episode_id=episode_id, seed=grant.seed, step=grant.step, method=method, path=path,
            apply_ops=apply_ops, set_rate_limit=set_rate_limit, expire_token=expire_token,
        )

    async def _exchange(self, ctx: StepContext, grant: StepGrant, app: str, query: str,
                        headers: list[tuple[bytes, bytes]], body: bytes,
                        fired: list[str]) -> Reply:
        """The reply the agent gets, after the faults that fire on this step."""
        if grant.token_expired:
            fired.append("token_expiry")
            return token_expired()
        wait = grant.limited_until - time.time()
        if wait > 0:
            fired.append("rate_limit")
            return limited(wait)
        plan: tuple[Fault, ...] = cached_plan(grant.faults)
        active = [(i, f) for i, f in enumerate(plan) if f.fires(ctx, i)]
        for n, (position, fault) in enumerate(active):
            early = await fault.before(ctx, position)
            if early is not None:  # it answered: only the faults that acted so far happened
                fired.extend(f.name for _, f in active[: n + 1] if f.acts_before)
                return early
        fired.extend(f.name for _, f in active)
        deliveries = max((f.deliveries() for _, f in active), default=1)
        for _ in range(deliveries):
            reply = await self._forward(grant, app, ctx.method, ctx.path, query, headers, body)
        for _, fault in active:
            reply = await fault.after(ctx, reply)
        return reply

    async def _forward(self, grant: StepGrant, app: str, method: str, path: str, query: str,
                       headers: list[tuple[bytes, bytes]], body: bytes) -> Reply:
        forwarded = [
            (k, v) for k, v in headers
            if k not in _DROP_REQUEST and not k.startswith(b"x-workgym-")
        ]
        forwarded += [
            (INTERNAL_HEADER.encode(), self.settings.internal_secret.encode()),
            (EPISODE_HEADER.encode(), grant.episode_id.encode()),
            (STEP_HEADER.encode(), str(grant.step).encode()),
        ]
        url = grant.apps[app] + path + ("?" + query if query else "")
        response = await self.upstream.request(method, url, headers=forwarded, content=body)
        out = [(k, v) for k, v in response.headers.raw if k.lower() not in _DROP_RESPONSE]
        return Reply(response.status_code, out, response.content)

    async def _record(self, grant: StepGrant, app: str, method: str, path: str, query: str,
                      body: bytes, reply: Reply, fired: list[str], started: float) -> None:
        limit = self.settings.trajectory_body_bytes
        response_body = _json_or_none(reply.body, limit)
        await self.registry.record_step(grant, TrajectoryStep(
            index=grant.step - 1, app=app, method=method, path=path, query=query,
            request_body=_json_or_none(body, limit), status=reply.status,
            response_body=response_body, error_code=_error_code(response_body),
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            fault=",".join(fired) or None,
        ))
