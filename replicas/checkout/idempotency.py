"""Idempotent requests as Stripe defines them (docs.stripe.com/api/idempotent_requests): the
first answer to a POST carrying an ``Idempotency-Key`` is saved, once the endpoint has begun
(a request refused by validation saves nothing), and every later request with that key gets
it again (``Idempotent-Replayed: true``), errors included; the same key with other
parameters is an ``idempotency_error`` (400); while a request with the key is being served,
another is refused with 409 ``idempotency_key_in_use``. Keys are the episode's: saved in its
database (``_idempotency_keys``, outside the world's diff), so they reset with it; a key is
forgotten 24 hours (on the episode's clock) after its first use.

:class:`InFlightKeys` (middleware, outside the episode's lock) sees concurrent duplicates;
:class:`Idempotent` (a route dependency, inside the request's transaction) saves and replays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Annotated

import orjson
from fastapi import Depends, Header, Request
from pydantic import BaseModel
from starlette.responses import Response

from replicas.runtime import db as sql
from workgym_core.asgi import ASGIApp, Receive, Scope, Send
from workgym_core.errors import WorkGymError
from workgym_core.internal import EPISODE_HEADER

from .deps import WorldDep
from .errors import IdempotencyError, IdempotencyKeyInUse, render
from .rules.common import World

KEY_TTL_S = 24 * 3600
HEADER = "idempotency-key"
REPLAYED = "Idempotent-Replayed"

IdempotencyKeyHeader = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=255,
    description="Makes the request safe to retry: the first answer to a key is saved and "
    "given again to every retry with the same parameters (24 hours).")]


class InFlightKeys:
    """Pure-ASGI: a POST whose episode and Idempotency-Key a request being served has is
    refused (409), before it waits for the episode."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.serving: set[tuple[str, str]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        key = headers.get(HEADER.encode())
        if scope["type"] != "http" or scope["method"] != "POST" or not key:
            await self.app(scope, receive, send)
            return
        held = (headers.get(EPISODE_HEADER.encode(), b"").decode("latin-1"),
                key.decode("latin-1"))
        if held in self.serving:
            await render(IdempotencyKeyInUse(
                "There is currently another in-progress request using this Idempotent Key "
                f"(that probably means you submitted twice, and the other request is still "
                f"going through): {held[1]}. Please try again later."))(scope, receive, send)
            return
        self.serving.add(held)
        try:
            await self.app(scope, receive, send)
        finally:
            self.serving.discard(held)


class Idempotent:
    """A write route's world and its Idempotency-Key: :meth:`run` runs the endpoint once per
    key."""

    def __init__(self, world: World, key: str | None, method: str, path: str) -> None:
        self.world = world
        self.key = key
        self.method = method
        self.path = path

    def run(self, params: BaseModel, endpoint: Callable[[World], Response]) -> Response:
        """``endpoint``'s answer, or the one saved for this key (a refusal from it is saved
        and answered too, its changes undone)."""
        if self.key is None:
            return endpoint(self.world)
        db, now = self.world.db, self.world.now
        fingerprint = hashlib.sha256(orjson.dumps(
            [self.method, self.path, params.model_dump(mode="json", exclude_unset=True)],
            option=orjson.OPT_SORT_KEYS)).hexdigest()
        db.execute("DELETE FROM _idempotency_keys WHERE created <= ?", (now - KEY_TTL_S,))
        saved = sql.one(db, "SELECT * FROM _idempotency_keys WHERE key = ?", (self.key,))
        if saved is not None:
            if saved["fingerprint"] != fingerprint:
                raise IdempotencyError(
                    "Keys for idempotent requests can only be used with the same parameters "
                    f"they were first used with. Try using a key other than '{self.key}' if "
                    "you meant to execute a different request.")
            return Response(saved["body"], status_code=saved["status"],
                            media_type="application/json", headers={REPLAYED: "true"})
        db.execute("SAVEPOINT idempotent")
        try:
            response = endpoint(self.world)
        except WorkGymError as exc:
            db.execute("ROLLBACK TO idempotent")
            response = render(exc)
        db.execute("RELEASE idempotent")
        sql.insert(db, "_idempotency_keys", {
            "key": self.key, "fingerprint": fingerprint, "status": response.status_code,
            "body": bytes(response.body), "created": now})
        return response


async def idempotent(world: WorldDep, request: Request,
                     key: IdempotencyKeyHeader = None) -> Idempotent:
    return Idempotent(world, key, request.method, request.url.path)


IdempotentDep = Annotated[Idempotent, Depends(idempotent)]
