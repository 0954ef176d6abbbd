"""Pure-ASGI middleware of every replica: an episode's request served in a worker thread under
its time budget (``workers.py``), with one ``replica.request`` span per request
(joined to the proxy's trace) with its SQL statements while tracing is on; and, reported
to the proxy in internal headers, the route the request matched (its template and
canonical path parameters), the tables a read read (what it could have seen: the reward
engine's recovery rules ask whether an agent read what a lost write changed) and the rows a
write changed."""

from __future__ import annotations

import re

import orjson
from opentelemetry.trace import SpanKind

import workgym_core.observability as obs
from workgym_core import spans
from workgym_core.asgi import READ_METHODS, ASGIApp, Message, Receive, Scope, Send
from workgym_core.errors import WorkGymError
from workgym_core.internal import (
    CHANGES_HEADER,
    EPISODE_HEADER,
    MAIL_HEADER,
    ROUTE_HEADER,
    STEP_HEADER,
    VALIDATE_HEADER,
)

from . import changes
from .episode import Episode
from .errors import WORKGYM_ERRORS
from .store import EpisodeStore

_ROUTE = ROUTE_HEADER.encode()


def canonical(value: str) -> int | str:
    """A path parameter as the replica understood it: ids are integers (a non-canonical
    spelling never reaches a route: it is refused with 422); other digits ('²') stay text."""
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else value


_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+([A-Za-z][A-Za-z0-9_]*)", re.IGNORECASE)


def tables_read(statements: list[str]) -> list[str]:
    """The app tables the statements read from (not json_each, not the change log)."""
    return sorted({table for sql in statements for table in _TABLE.findall(sql)
                   if table.lower() not in ("json_each", "json_tree")})


def matched_route(scope: Scope, statements: list[str] | None) -> bytes | None:
    """``{"route", "params", "reads"}`` of the route that handled the request, if one did
    (``reads``: the tables a read's statements read from)."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if template is None:
        return None
    params = {k: canonical(str(v)) for k, v in scope.get("path_params", {}).items()}
    reads = tables_read(statements) if statements is not None else []
    return orjson.dumps({"route": template, "params": params, "reads": reads})


def _refused_late(exc: RuntimeError) -> WorkGymError | None:
    """The error a write was refused with once its answer had started (Starlette's
    RuntimeError from it): an error raised as its transaction ends (``deps.current_episode``,
    the world answering it: an actor's outside service unavailable)."""
    return exc.__cause__ if isinstance(exc.__cause__, WorkGymError) else None


def _trace_sql(episode: Episode) -> list[str]:
    """Collect the request's SQL statements (set on its span as one ``db.statements``
    attribute: measured ~10% of in-process throughput cheaper than an event per statement)."""
    statements: list[str] = []
    episode.db.set_trace_callback(lambda sql: statements.append(sql[:2000]))
    return statements


class ObserveRequests:
    def __init__(self, app: ASGIApp, store: EpisodeStore) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        episode = self.store.peek(headers.get(EPISODE_HEADER, ""))
        if episode is None:  # the route answers for itself (a 404, say)
            await self._observe(scope, receive, send, headers, None)
            return
        async with self.store.opened(episode, write=scope["method"] not in READ_METHODS) as opened:
            await self.store.workers.serve(
                lambda scope, receive, send: self._observe(scope, receive, send, headers,
                                                           opened),
                scope, receive, send, opened.id, opened.db)

    async def _observe(self, scope: Scope, receive: Receive, send: Send,
                       headers: dict[str, str], episode: Episode | None) -> None:
        write = scope["method"] not in READ_METHODS and episode is not None
        # A validate-only pass (deps.current_episode) changes nothing: no change is logged.
        logs = write and headers.get(VALIDATE_HEADER) != "1"
        start = episode.memory.get("changes_seq", 0) if logs and episode else 0
        attributes = {spans.EPISODE_ID: episode.id if episode else None,
                      spans.STEP: int(step) if (step := headers.get(STEP_HEADER, "")
                                                    ).isdigit() else None,
                      spans.HTTP_METHOD: scope["method"], spans.URL_PATH: scope["path"]}
        with obs.span(spans.REPLICA_REQUEST, attributes, kind=SpanKind.SERVER,
                      context=obs.extract(headers)) as span:
            recording = span.is_recording() and episode is not None

            # The statements: for the span while tracing, and for the tables a read reads.
            statements = (_trace_sql(episode) if episode is not None and (recording or not write)
                          else None)

            # A write's answer is held until its transaction ended (deps.current_episode):
            # one refused then is answered with its error instead.
            held: list[Message] | None = [] if write else None

            async def observed_send(message: Message) -> None:
                if message["type"] == "http.response.start" and episode is not None:
                    read = None if write else statements
                    if (route := matched_route(scope, read)) is not None:
                        message["headers"] = [*message.get("headers", []), (_ROUTE, route)]
                    if recording:
                        span.set_attribute(spans.HTTP_STATUS, message["status"])
                    if logs and episode is not None:
                        found, episode.memory["changes_seq"] = changes.since(
                            episode.db, start, self.store.spec.public_id)
                        if found:
                            encoded = orjson.dumps(found)
                            message["headers"] = [*message.get("headers", []),
                                                  (CHANGES_HEADER.encode(), encoded)]
                            sent = self.store.spec.mail and self.store.spec.mail(episode, found)
                            if sent:
                                message["headers"].append((MAIL_HEADER.encode(),
                                                           orjson.dumps(sent)))
                            if recording:
                                span.set_attribute(spans.CHANGES, encoded.decode())
                if held is None:
                    await send(message)
                else:
                    held.append(message)

            try:
                try:
                    await self.app(scope, receive, observed_send)
                except RuntimeError as exc:
                    if held is None or (refusal := _refused_late(exc)) is None:
                        raise
                    # Refused as its transaction ended (rolled back): its error instead of
                    # the answer held, and no change logged.
                    if logs and episode is not None:
                        episode.memory["changes_seq"] = start
                    held = []
                    if recording:
                        span.set_attribute(spans.HTTP_STATUS, refusal.status_code)
                    await (self.store.spec.errors or WORKGYM_ERRORS).render(refusal)(
                        scope, receive, send)
                for message in held or []:
                    await send(message)
            finally:
                if statements is not None and episode is not None:
                    episode.db.set_trace_callback(None)
                    if recording:
                        span.set_attributes({spans.DB_SYSTEM: "sqlite",
                                             spans.DB_STATEMENTS: statements})
