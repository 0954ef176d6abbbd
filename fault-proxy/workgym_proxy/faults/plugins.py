"""The fault plugins. Each is one small class; ``FaultSpec`` is their union and ``PLUGINS``,
derived from it, maps kind -> class: adding a plugin is adding its class to ``FaultSpec``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import Field

from workgym_core.errors import TooManyRequests, Unauthorized
from workgym_core.rowops import RowOps

from .base import Fault, Reply, StepContext, draw

_JSON = [(b"content-type", b"application/json")]


def _error(status: int, code: str, message: str,
           headers: list[tuple[bytes, bytes]] | None = None) -> Reply:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return Reply(status, [*_JSON, *(headers or [])], body)


class Latency(Fault):
    """Delay the answer by ``delay_ms`` plus up to ``jitter_ms`` (drawn, not random)."""

    kind: Literal["latency"] = "latency"
    delay_ms: int = Field(50, ge=0, le=30_000, description="Fixed delay.")
    jitter_ms: int = Field(0, ge=0, le=30_000, description="Extra delay, up to this much.")

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        jitter = draw(ctx.seed, ctx.step, position, "jitter") * self.jitter_ms
        await asyncio.sleep((self.delay_ms + jitter) / 1000)
        return reply


class TimeoutBefore(Fault):
    """The request never reaches the replica: 504 after ``delay_ms``. Safe to retry."""

    kind: Literal["timeout_before"] = "timeout_before"
    delay_ms: int = Field(100, ge=0, le=30_000, description="How long the agent waits first.")

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        await asyncio.sleep(self.delay_ms / 1000)
        return _error(504, "gateway_timeout", "upstream request timed out")


class TimeoutAfter(Fault):
    """The replica applies the request but the response is lost: 504. Check before retrying."""

    kind: Literal["timeout_after"] = "timeout_after"
    delay_ms: int = Field(100, ge=0, le=30_000, description="How long the agent waits first.")

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        await asyncio.sleep(self.delay_ms / 1000)
        return _error(504, "gateway_timeout", "upstream request timed out")


ServerStatus = Literal[500, 502, 503]
_SERVER_ERRORS: dict[ServerStatus, Reply] = {
    500: _error(500, "internal_error", "An unexpected error occurred. Please try again."),
    502: Reply(502, [(b"content-type", b"text/html"), (b"server", b"nginx")],
               b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
               b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
               b"</body>\r\n</html>\r\n"),
    503: _error(503, "service_unavailable", "The service is temporarily overloaded.",
                [(b"retry-after", b"1")]),
}


class ServerError(Fault):
    """A 500/502/503 with the body a real server sends; the request is not applied."""

    kind: Literal["server_error"] = "server_error"
    statuses: list[ServerStatus] = Field(
        default_factory=lambda: list(_SERVER_ERRORS), min_length=1,
        description="Statuses to choose from (drawn per step).",
    )

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        pick = int(draw(ctx.seed, ctx.step, position, "status") * len(self.statuses))
        return _SERVER_ERRORS[self.statuses[pick]]


class RateLimit(Fault):
    """429 with Retry-After, on this request and the episode's next ``refusals - 1``.

    Counted in requests, never timed: the same requests meet the same refusals whether the
    agent waited or not, so a reward never depends on how fast a machine ran it."""

    kind: Literal["rate_limit"] = "rate_limit"
    retry_after_s: int = Field(1, ge=1, le=60, description="The Retry-After it answers.")
    refusals: int = Field(1, ge=1, le=20, description="Requests refused in a row, this one "
                          "first (a too-eager retry meets another 429).")

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        await ctx.limit(self.refusals - 1, self.retry_after_s)
        return ctx.refuse(limited(self.retry_after_s))


def limited(seconds: int) -> TooManyRequests:
    """The refusal (in the app's shape: ``ctx.refuse``) of a rate-limited request."""
    return TooManyRequests(f"Too many requests; retry after {seconds} s.", code="rate_limited",
                           retry_after_s=seconds)


class ConnectionReset(Fault):
    """The connection drops before the request is delivered (nothing is applied)."""

    kind: Literal["connection_reset"] = "connection_reset"

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        raise ConnectionResetError("connection reset by peer")


class TokenExpiry(Fault):
    """From the step it fires on, the token is refused (401 token_expired) until refreshed."""

    kind: Literal["token_expiry"] = "token_expiry"

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        await ctx.expire_token()
        return ctx.refuse(token_expired())


# RFC 6750's challenge, the same in every app's shape (a product's body may have no place for
# WorkGym's code: Jira's ErrorCollection): what an OAuth client reads to refresh.
EXPIRED_CHALLENGE = 'Bearer error="invalid_token", error_description="The access token expired"'


def token_expired() -> Unauthorized:
    """The refusal (in the app's shape: ``ctx.refuse``) of a request with an expired token."""
    return Unauthorized("The access token has expired; refresh it with "
                        "POST /v1/episodes/{id}/token and your refresh_token.",
                        code="token_expired",
                        headers={"www-authenticate": EXPIRED_CHALLENGE})


class StateDrift(Fault):
    """Right after the request (an accepted one) another actor changes records, before the
    agent's next request: row operations on the app's own tables (checked against them when
    the plan is accepted), never SQL, applied to the rows as they are then (an update's
    values may name the row's current fields as ``$this.field`` / ``{{ this.field }}``: an
    agent's earlier change to the row survives).

    After, never before: a change landing between an agent's read and the write it sends
    next could not be seen by any agent; landing after a request, it is always visible to an
    agent that reads again before its next write."""

    kind: Literal["state_drift"] = "state_drift"
    ops: RowOps = Field(
        min_length=1, max_length=20, description="Row operations applied to the world, e.g. "
        "{update: users, id: $customer.id, values: {notes: '{{ this.notes }} (checked)'}}.",
    )

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        await ctx.apply_ops([op.model_dump() for op in self.ops])
        return reply


_ISO = re.compile(rb'"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):\d{2}Z"')


class SchemaDrift(Fault):
    """Responses change shape: fields renamed and/or timestamps in a legacy format."""

    kind: Literal["schema_drift"] = "schema_drift"
    rename: dict[str, str] = Field(default_factory=dict, description="old field -> new name.")
    legacy_dates: bool = Field(False, description="Render timestamps as 'MM/DD/YYYY HH:MM'.")

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        body = reply.body
        if self.rename:
            try:
                body = orjson.dumps(_renamed(orjson.loads(body), self.rename))
            except orjson.JSONDecodeError:
                return reply
        if self.legacy_dates:
            body = _ISO.sub(rb'"\2/\3/\1 \4:\5"', body)
        return Reply(reply.status, reply.headers, body)


def _renamed(value: Any, rename: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {rename.get(k, k): _renamed(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, rename) for v in value]
    return value


class TruncatedBody(Fault):
    """The response body is cut short (the request itself was applied)."""

    kind: Literal["truncated_body"] = "truncated_body"
    keep: float = Field(0.5, ge=0.0, lt=1.0, description="Fraction of the body delivered.")

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        return Reply(reply.status, reply.headers, reply.body[: int(len(reply.body) * self.keep)])


class DuplicateDelivery(Fault):
    """The request is delivered to the replica twice (a retrying load balancer)."""

    kind: Literal["duplicate_delivery"] = "duplicate_delivery"

    def deliveries(self) -> int:
        return 2


FaultSpec = Annotated[
    Latency | TimeoutBefore | TimeoutAfter | ServerError | RateLimit | ConnectionReset
    | TokenExpiry | StateDrift | SchemaDrift | TruncatedBody | DuplicateDelivery,
    Field(discriminator="kind"),
]
"""One fault config of a plan, any plugin, told apart by ``kind``."""

PLUGINS: Mapping[str, type[Fault]] = {
    cls.model_fields["kind"].default: cls for cls in get_args(get_args(FaultSpec)[0])
}
"""Every plugin by its ``kind``."""
