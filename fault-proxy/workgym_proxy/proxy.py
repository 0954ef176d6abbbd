"""Forward an agent's request to its episode's replica, inject its faults, record it.

URL shape: ``/apps/<app>/<path inside the app>``, or the path inside the app alone on the
app's own port (``at_root``: the product's own base path, WORKGYM_APP_PORTS). Each request
must carry the episode's token: as its bearer, as the password of HTTP Basic (any user
name), in a browser's cookie (browser.py) or in the product's session cookie (gateway.py);
the proxy checks its headers
and body against the limits, counts the step, applies the episode's fault plan, forwards
to the replica instance the episode was placed on with the internal credential, and
records the exchange on the episode's trajectory at the index it was admitted with —
whatever its body or outcome, even when the agent's connection drops or Redis is
restarting. Agents can never reach another episode (the replica only sees the episode id
the proxy derived from the token), an internal ``/_env`` route, or any host but the
episode's replicas.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import quote

import orjson
from opentelemetry.trace import Span, SpanKind
from redis.exceptions import RedisError

import workgym_core.observability as obs
from workgym_core import spans
from workgym_core.asgi import (
    Receive,
    Scope,
    Send,
    json_body,
    nests_deeper,
    read_body,
    send_response,
)
from workgym_core.credentials import bearer
from workgym_core.errors import (
    EpisodeNotFound,
    Forbidden,
    NotFound,
    ReplicaUnreachable,
    Unauthorized,
    UpstreamError,
    WorkGymError,
    busy,
    error_code,
    from_wire,
)
from workgym_core.forms import decode, is_form
from workgym_core.internal import (
    APPS_PREFIX,
    BASE_HEADER,
    CHANGES_HEADER,
    EPISODE_HEADER,
    ERROR_CODE_HEADER,
    INTERNAL_HEADER,
    INTERNAL_PREFIX,
    MAIL_HEADER,
    OPERATIONS_HEADER,
    ROUTE_HEADER,
    STEP_HEADER,
    VALIDATE_HEADER,
    escapes,
)
from workgym_core.pages import cross_site
from workgym_core.redis_store import unavailable
from workgym_core.registry import (
    RESTARTED,
    UNREACHABLE,
    Registry,
    StepGrant,
    invalid_token,
    lost_error,
    step_index,
)
from workgym_core.settings import Settings
from workgym_core.trajectory import Operation, TrajectoryStep, goes_on, leads_on

from . import browser
from .faults import Fault, Reply, StepContext
from .faults.base import accepted
from .faults.plan import cached_plan
from .faults.plugins import limited, token_expired
from .gateway import PLATFORM, Gateway, Session
from .recorder import Recorder
from .upstream import Upstream

log = logging.getLogger("workgym.proxy")

PREFIX = APPS_PREFIX
_CHANGES = CHANGES_HEADER.encode()
_ROUTE = ROUTE_HEADER.encode()
_ERROR_CODE = ERROR_CODE_HEADER.encode()
_MAIL = MAIL_HEADER.encode()
_OPERATIONS = OPERATIONS_HEADER.encode()
# The agent's trace context is continued by the proxy's span, not forwarded as is.
_TRACE_CONTEXT = frozenset({b"traceparent", b"tracestate"})
# What carried a request's token: an Authorization header (or the product's login body), the
# browser's episode cookie (browser.py), or the product's session cookie (gateway.py).
Credential = Literal["header", "browser", "session"]
# Never forwarded in either direction: hop-by-hop, routing and credentials (a browser's
# cookie holds the episode's token).
_DROP_REQUEST = frozenset({
    b"host", b"authorization", b"connection", b"keep-alive", b"te", b"trailer",
    b"transfer-encoding", b"upgrade", b"proxy-authorization", b"content-length", b"cookie",
})
_DROP_RESPONSE = frozenset({
    b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade",
    b"content-length", b"content-encoding", b"date", b"server",  # the proxy's server sets these
})


_SAFE = "/!$&'()*+,;=:@-._~%"
# The scope key of a request that came in on its app's own port: the app's public root.
ROOT = "workgym.root"


def _basic_password(authorization: str) -> str | None:
    """The password of an ``Authorization: Basic`` header (Zendesk's ``email/token:TOKEN``,
    Jira's ``user:api_token``), if it is one."""
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded.partition(":")[2] or None


def _token(headers: list[tuple[bytes, bytes]], session_cookie: str | None
           ) -> tuple[str, Credential]:
    """The episode's token: the bearer, or the password of HTTP Basic; else a browser's
    episode cookie (browser.py) or the product's session cookie (gateway.py); which of them
    it was (a cookie is a credential the browser adds by itself)."""
    cookie: tuple[str, Credential] | None = None
    for name, value in headers:
        if name == b"authorization":
            sent = value.decode("latin-1")
            found = bearer(sent) or _basic_password(sent)
            if found:
                return found, "header"
        elif name == b"cookie" and cookie is None:
            if found := browser.cookie_token(value):
                cookie = found, "browser"
            elif found := browser.cookie_token(value, session_cookie):
                cookie = found, "session"
    if cookie:
        return cookie
    raise Unauthorized("missing credentials: send 'Authorization: Bearer <episode token>' (or "
                       "HTTP Basic with the token as the password)", code="missing_token")


def _json_or_none(body: bytes, limit: int, max_depth: int) -> Any:
    """A response body as the trajectory keeps it: None when it is cut (over ``limit``
    bytes, or nested deeper than ``max_depth``, which the scorer's JSON readers refuse)."""
    if not body or len(body) > limit:
        return None
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return None if nests_deeper(parsed, max_depth) else parsed


def _idempotency_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The request's Idempotency-Key (Stripe's header), for the trajectory."""
    found = next((v for k, v in headers if k == b"idempotency-key"), None)
    return found.decode("latin-1")[:255] if found else None


def _form_or_none(body: bytes) -> Any:
    """A form body in bracket notation as the JSON it stands for; None if it is not one
    (the replica answers that itself)."""
    try:
        return decode(body.decode("utf-8"))
    except (UnicodeDecodeError, WorkGymError):
        return None


def _canonical_path(route: str, params: dict[str, Any]) -> str:
    """A route template filled with its canonical parameters."""
    path = route
    for name, value in params.items():
        path = path.replace(f"{{{name}}}", str(value)).replace(f"{{{name}:path}}", str(value))
    return path


class Proxy:
    """Pure ASGI app serving ``/apps/<app>/...``."""

    def __init__(self, settings: Settings, registry: Registry, upstream: Upstream,
                 apps: frozenset[str], gateways: Mapping[str, Gateway] | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self.upstream = upstream
        self.apps = apps
        self.gateways = dict(gateways or {})  # app -> what it does in the app's place
        self.roots = settings.app_roots()
        self.bases = {app: f"{settings.public_url.rstrip('/')}{APPS_PREFIX}{app}"
                      for app in apps}
        self.metrics = obs.Metrics()
        self.recorder = Recorder(registry, settings.redis_retry_s)
        self.inflight = 0  # agent requests being served: beyond max_inflight, load is shed
        browser.redact_access_log()

    def _route(self, scope: Scope) -> tuple[str, str, str]:
        """(app, decoded path inside it, the path as sent, to forward unchanged)."""
        path: str = scope["path"]
        app, _, rest = path[len(PREFIX):].partition("/")
        if app not in self.apps or escapes(rest):
            raise NotFound(f"no route {path}", code="not_found")
        raw = (scope.get("raw_path") or b"").decode("latin-1")
        prefix = f"{PREFIX}{app}/"
        sent = raw[len(prefix) - 1:] if raw.startswith(prefix) else quote("/" + rest, safe=_SAFE)
        return app, "/" + rest, sent

    async def at_root(self, app: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A request on the app's own port (its path is the product's own, e.g. ``/v1/...``):
        served as ``/apps/<app>/<path>`` is, the app's links on its root."""
        prefix = f"{PREFIX}{app}"
        raw: bytes | None = scope.get("raw_path")
        await self({**scope, "path": prefix + scope["path"], ROOT: self.roots[app],
                    "raw_path": None if raw is None else prefix.encode() + raw},
                   receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.inflight >= self.settings.max_inflight:
            await self._refuse(send, scope, busy())  # before anything is counted or forwarded
            return
        self.inflight += 1
        try:
            await self._serve(scope, receive, send)
        except WorkGymError as error:
            await self._refuse(send, scope, error)
        except RedisError as exc:
            await self._refuse(send, scope, unavailable(exc))
        finally:
            self.inflight -= 1

    def _gateway(self, app: str) -> Gateway:
        return self.gateways.get(app, PLATFORM)

    async def _refuse(self, send: Send, scope: Scope, error: WorkGymError) -> None:
        """A refusal before the request is admitted, in its app's product's shape."""
        app = scope["path"][len(PREFIX):].partition("/")[0]
        reply = self._gateway(app).refusal(error)
        await send_response(send, reply.status, reply.body, reply.headers)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        app, path, sent = self._route(scope)
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        root: str | None = scope.get(ROOT)
        if (entry := browser.entry(scope)) is not None:
            token, location = entry
            await self._enter(send, app, token, location[len(PREFIX) + len(app):]
                              if root else location, secure=scope.get("scheme") == "https",
                              cookie_path="/" if root else PREFIX)
            return
        session = self._gateway(app).session
        login = session is not None and session.is_login(scope["method"], path)
        if not login:  # a login's credential is in its body
            token, carrier = self._credential(scope, headers, session)
        # Everything an agent sent is checked before the step is counted or forwarded.
        body = await read_body(receive, self.settings.max_body_bytes)
        parsed = json_body(body, self.settings.max_json_depth)
        if session and login:
            if found := session.password_of(parsed):
                token, carrier = found, "header"  # the product's login: the token as password
                parsed = session.redacted(parsed)
                body = orjson.dumps(parsed)
            else:
                token, carrier = self._credential(scope, headers, session)
        if parsed is None and body and is_form(headers):
            parsed = _form_or_none(body)  # recorded as the JSON it stands for
        grant = await self.registry.begin_step(
            token, goes_on=goes_on(carrier == "browser", scope["method"]))
        ctx = self._context(grant, token, app, scope["method"], path,
                            scope.get("query_string", b"").decode("latin-1"), body)
        ctx.sent_path = sent
        ctx.browser = carrier == "browser"
        ctx.base = root or self.bases[app]
        ctx.idempotency_key = _idempotency_key(headers)
        # The agent's own trace context, if it sent one (only looked at while tracing).
        parent = obs.extract({k.decode("latin-1"): v.decode("latin-1") for k, v in headers}
                             ) if obs.active() else None
        with obs.span(spans.PROXY_STEP, {
            spans.EPISODE_ID: grant.episode_id, spans.TASK: grant.task,
            spans.STEP: grant.step, spans.APP: app, spans.HTTP_METHOD: ctx.method,
            spans.URL_PATH: path, spans.URL_QUERY: ctx.query,
        }, kind=SpanKind.SERVER, context=parent) as span:
            reply = Reply(0, [], b"")  # what the agent got: nothing, if the connection drops
            try:
                reply = await self._reply(ctx, grant, headers)
                if leads_on(ctx.browser, reply.status, ",".join(ctx.fired) or None):
                    await self.registry.lead_on(grant.episode_id)
                # The product's session cookie is the agent's alone: never recorded.
                sent_reply = session.answered(ctx.method, path, token, reply) if session \
                    else reply
                await send_response(send, sent_reply.status, sent_reply.body,
                                    sent_reply.headers)
            finally:
                # Recorded whatever happened, even if this task is being cancelled.
                self._record(ctx, grant, parsed, reply, started, span)

    @staticmethod
    def _credential(scope: Scope, headers: list[tuple[bytes, bytes]],
                    session: Session | None) -> tuple[str, Credential]:
        """The request's token and what carried it (``_token``); a cookie's only from the
        site's own pages."""
        token, carrier = _token(headers, session.cookie if session else None)
        if carrier != "header" and (reason := cross_site(scope["method"], headers)):
            raise Forbidden(f"refused a cross-site request: {reason}", code="cross_site_request",
                            field="origin", rule="same_origin")
        return token, carrier

    async def _enter(self, send: Send, app: str, token: str, location: str, *,
                     secure: bool, cookie_path: str) -> None:
        """A browser's entry (browser.py): the episode's access token becomes its cookie."""
        found = self.registry.tokens.parse(token)
        if found is None or found.refresh:
            raise invalid_token()
        record = await self.registry.authorize(found.episode_id, token)
        if app not in record.apps:
            raise NotFound(f"this episode has no app '{app}'", code="app_not_in_episode")
        await send_response(send, 303, b"", browser.entered(
            token, found.expires_at, location, secure=secure, path=cookie_path))

    async def _reply(self, ctx: StepContext, grant: StepGrant,
                     headers: list[tuple[bytes, bytes]]) -> Reply:
        """The reply to an admitted request; errors are replies too (they are recorded)."""
        if ctx.app not in grant.apps:
            return self._as_reply(ctx, NotFound(f"this episode has no app '{ctx.app}'",
                                                code="app_not_in_episode"))
        try:
            return await self._exchange(ctx, grant, headers)
        except ConnectionResetError:
            raise  # the agent's connection drops: recorded with status 0
        except (ReplicaUnreachable, EpisodeNotFound) as error:
            # The instance the episode was placed on is gone (or restarted without it), and
            # the episode with it.
            reason = UNREACHABLE if isinstance(error, ReplicaUnreachable) else RESTARTED
            await self.registry.mark_lost(grant.episode_id, reason)
            return self._as_reply(ctx, lost_error(reason))
        except WorkGymError as error:
            return self._as_reply(ctx, error)

    def _as_reply(self, ctx: StepContext, error: WorkGymError) -> Reply:
        """A refusal of an admitted request, in its app's product's shape; its code kept
        for the trajectory (a product's shape may have no place for it)."""
        ctx.error_code = error.code
        return self._gateway(ctx.app).refusal(error)

    def _context(self, grant: StepGrant, token: str, app: str, method: str, path: str,
                 query: str, body: bytes) -> StepContext:
        episode_id = grant.episode_id

        async def apply_ops(ops: list[dict[str, Any]]) -> None:
            url = f"{grant.apps[app]}{INTERNAL_PREFIX}/episodes/{episode_id}/apply"
            status, _, body = await self.upstream.request("POST", url, [
                (INTERNAL_HEADER.encode(), self.settings.internal_secret.encode()),
                (b"content-type", b"application/json"),
            ], orjson.dumps({"ops": ops}))
            if status >= 400:
                log.error("state_drift on %s refused: %s %r", episode_id, status, body[:300])
                raise UpstreamError("another actor's change could not be applied",
                                    code="fault_failed")
            ctx.affected = orjson.loads(body)["changes"]

        async def limit(requests: int, retry_after_s: int) -> None:
            await self.registry.limit(episode_id, requests, retry_after_s)

        async def expire_token() -> None:
            await self.registry.expire_token(episode_id, token)

        def refuse(error: WorkGymError) -> Reply:
            return self._as_reply(ctx, error)

        ctx = StepContext(
            episode_id=episode_id, seed=grant.seed, step=grant.step, app=app, method=method,
            path=path, query=query, body=body, apply_ops=apply_ops, limit=limit,
            expire_token=expire_token, refuse=refuse,
        )
        return ctx

    async def _exchange(self, ctx: StepContext, grant: StepGrant,
                        headers: list[tuple[bytes, bytes]]) -> Reply:
        """The reply the agent gets, after the faults that fire on this step.

        A fault's window counts only the requests of its target the app accepts
        (faults/base.py): a fault that answers in the app's place fires only once a
        validate-only pass has shown that the app would accept the request; one that acts on
        the app's answer, on that answer's status."""
        fired = ctx.fired
        if grant.token_expired:
            fired.append("token_expiry")
            return ctx.refuse(token_expired())
        if grant.limited_s:
            fired.append("rate_limit")
            return ctx.refuse(limited(grant.limited_s))
        plan: tuple[Fault, ...] = cached_plan(grant.faults)
        matching = [i for i, fault in enumerate(plan) if fault.matches(ctx)]
        if not matching:
            return await self._forward(ctx, grant, headers)
        # Would a fault that answers in the app's place fire if the app accepts this one?
        so_far = await self.registry.matches_so_far(grant.episode_id, matching)
        ahead = any(plan[i].acts_before and plan[i].fires(ctx, i, so_far[i] + 1)
                    for i in matching)
        first = await self._forward(ctx, grant, headers, validate=ahead)
        # Refused, it takes no fault's turn; a target's tables read are known by now.
        counted = [i for i in matching if plan[i].target.read_by(ctx.reads)] \
            if accepted(first.status) else []
        if not counted:
            return await self._forward(ctx, grant, headers) if ahead else first
        counts = await self.registry.count_matches(grant.episode_id, counted)
        active = [(i, plan[i]) for i in counted if plan[i].fires(ctx, i, counts[i])
                  and (ahead or not plan[i].acts_before)]  # too late to act before it
        for n, (position, fault) in enumerate(active):
            try:
                early = await fault.before(ctx, position)
            except (ConnectionResetError, WorkGymError):
                fired.extend(f.name for _, f in active[: n + 1] if f.acts_before)
                raise
            if early is not None:  # it answered: only the faults that acted so far happened
                fired.extend(f.name for _, f in active[: n + 1] if f.acts_before)
                return early
        fired.extend(f.name for _, f in active)
        reply = await self._forward(ctx, grant, headers) if ahead else first
        deliveries = max((f.deliveries() for _, f in active), default=1)
        for _ in range(deliveries - 1):  # a retrying middlebox: the agent sees the first answer
            await self._forward(ctx, grant, headers)
        for position, fault in active:
            reply = await fault.after(ctx, reply, position)
        return reply

    async def _forward(self, ctx: StepContext, grant: StepGrant,
                       headers: list[tuple[bytes, bytes]], *, validate: bool = False) -> Reply:
        """The replica's answer to the request (``validate``: a validate-only pass, undone
        by the replica, whose changes are none)."""
        forwarded = [
            (k, v) for k, v in headers
            if k not in _DROP_REQUEST and not k.startswith(b"x-workgym-")
            and k not in _TRACE_CONTEXT
        ]
        forwarded += [
            (INTERNAL_HEADER.encode(), self.settings.internal_secret.encode()),
            (EPISODE_HEADER.encode(), grant.episode_id.encode()),
            (STEP_HEADER.encode(), str(grant.step).encode()),
            (BASE_HEADER.encode(), ctx.base.encode()),
            *((k.encode(), v.encode()) for k, v in obs.inject().items()),
            *([(VALIDATE_HEADER.encode(), b"1")] if validate else []),
        ]
        url = grant.apps[ctx.app] + ctx.sent_path + ("?" + ctx.query if ctx.query else "")
        status, received, content = await self.upstream.request(
            ctx.method, url, forwarded, ctx.body)
        if status == 404 and isinstance(
                refused := from_wire(status, _json_or_none(content, 4096, 8)), EpisodeNotFound):
            raise refused  # the instance answers but no longer holds the episode: it restarted
        out = []
        for k, v in received:
            if k == _CHANGES:
                ctx.changes = orjson.loads(v)
            elif k == _MAIL:
                await self._deliver(grant, ctx.app, v)
            elif k == _ERROR_CODE:
                ctx.error_code = v.decode("latin-1")
            elif k == _OPERATIONS:
                ctx.operations = orjson.loads(v)
            elif k == _ROUTE:
                matched = orjson.loads(v)
                ctx.route, ctx.params, ctx.reads = (matched["route"], matched["params"],
                                                    matched["reads"])
            elif k not in _DROP_RESPONSE and not k.startswith(b"x-workgym-"):
                out.append((k, v))
        return Reply(status, out, content)

    async def _deliver(self, grant: StepGrant, sender: str, mail: bytes) -> None:
        """What a write sent the world's people (the replica's MAIL_HEADER), delivered to the
        episode's other apps before the agent gets its answer: their actors (a customer
        reading the code an email change sent them) know it from the next request on."""
        for app, base in grant.apps.items():
            if app == sender:
                continue
            status, _, body = await self.upstream.request(
                "POST", f"{base}{INTERNAL_PREFIX}/episodes/{grant.episode_id}/mail", [
                    (INTERNAL_HEADER.encode(), self.settings.internal_secret.encode()),
                    (b"content-type", b"application/json"),
                ], b'{"mail":' + mail + b"}")
            if status >= 400:
                log.error("mail of %s to %s refused: %s %r", grant.episode_id, app, status,
                          body[:300])
                raise UpstreamError("mail to another app could not be delivered",
                                    code="mail_failed")

    def _step(self, ctx: StepContext, grant: StepGrant, parsed: Any, reply: Reply,
              started: float) -> TrajectoryStep:
        limit = self.settings.trajectory_body_bytes
        response_body = _json_or_none(reply.body, limit, self.settings.trajectory_json_depth)
        return TrajectoryStep(
            index=step_index(grant), app=ctx.app, method=ctx.method,
            path=_canonical_path(ctx.route, ctx.params) if ctx.route else ctx.path,
            route=ctx.route, params=ctx.params, query=ctx.query,
            request_body=parsed if len(ctx.body) <= limit else None,
            idempotency_key=ctx.idempotency_key,
            request_text=ctx.body[:limit].decode("utf-8", "replace")
            if ctx.body and (parsed is None or len(ctx.body) > limit) else None,
            status=reply.status, response_body=response_body,
            error_code=ctx.error_code or error_code(response_body),
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            fault=",".join(ctx.fired) or None, changes=ctx.changes, reads=ctx.reads,
            affected=ctx.affected, browser=ctx.browser,
            operations=[Operation(method=op["method"], route=op["route"], params=op["params"],
                                  path=_canonical_path(op["route"], op["params"]),
                                  request_body=op["body"], status=op["status"])
                        for op in ctx.operations],
        )

    def _record(self, ctx: StepContext, grant: StepGrant, parsed: Any, reply: Reply,
                started: float, span: Span) -> None:
        """Queue the step for the trajectory (written off the response path: it stays in
        flight on the episode until it is)."""
        step = self._step(ctx, grant, parsed, reply, started)
        self.recorder.put(grant.episode_id, step.index, step.model_dump_json().encode(),
                          grant.expires_at)
        self.metrics.steps.add(1, {"app": ctx.app})
        self.metrics.step_latency.record(step.duration_ms, {"app": ctx.app})
        for kind in ctx.fired:
            self.metrics.faults.add(1, {"kind": kind})
        if span.is_recording():
            span.set_attributes({
                spans.HTTP_STATUS: reply.status,
                spans.REQUEST_BODY: obs.body_text(ctx.body),
                spans.RESPONSE_BODY: obs.body_text(reply.body),
                **({spans.FAULT: step.fault} if step.fault else {}),
            })

    async def aclose(self) -> None:
        """Write the steps still queued (the upstream is its owner's to close)."""
        await self.recorder.aclose()

