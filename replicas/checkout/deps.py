"""Dependencies of checkout routes: the request's :class:`~.rules.common.World`."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from replicas.runtime.deps import EpisodeDep
from workgym_core.asgi import READ_METHODS

from .rules import coupons, funds, refunds, sessions, subscriptions
from .rules.common import World, unix
from .rules.payment_intents import expire_authorizations


async def world(episode: EpisodeDep, request: Request) -> World:
    """The episode at its clock; before a write, what the clock has made due is done
    (authorizations, Checkout Sessions and promotion codes that expired, asynchronous
    refunds that settled, subscriptions' renewals, expiries and cancellations, payouts sent
    and arrived)."""
    found = World(episode.db, unix(episode.now()), episode.seed,
                  idempotency_key=request.headers.get("idempotency-key"),
                  secret=episode.secret)
    if request.method not in READ_METHODS:
        expire_authorizations(found)
        sessions.expire_due(found)
        coupons.expire_due(found)
        refunds.settle_due(found)
        subscriptions.advance_due(found)
        funds.advance_payouts(found)
    return found


WorldDep = Annotated[World, Depends(world)]
