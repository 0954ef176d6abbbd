"""Checkout Sessions (docs.stripe.com/api/checkout/sessions): the hosted checkout's payments.
Customers pay them on the checkout page (pages/, its rules in rules/sessions.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter, cursor_page
from ..render import Row
from ..rules import sessions
from ..rules.common import World
from ..schemas.requests import SessionCreate, SessionExpire
from ..schemas.stripe import CheckoutSession, LineItem, StripeList
from .common import SessionId, answer, listing, retrieve

router = APIRouter(tags=["checkout_sessions"])


def _session(w: World, session: str) -> Row:
    return w.objects.row("checkout_sessions", session, kind="checkout.session")


@router.post("/v1/checkout/sessions", operation_id="create_checkout_session",
             summary="Create a Checkout Session", response_model=CheckoutSession)
async def create_checkout_session(body: SessionCreate, call: IdempotentDep) -> Response:
    """A session the customer pays on the checkout page (its url): mode=payment, line_items
    (one-time prices of one currency, each with a quantity), customer or customer_email, and
    either a discount now (discounts: a coupon or promotion code) or allow_promotion_codes.
    It expires after 24 hours (or at expires_at) unless completed."""
    return call.run(body, lambda w: answer(w, "checkout_sessions", sessions.create(w, body),
                                           body.expand))


@router.get("/v1/checkout/sessions/{session}", operation_id="retrieve_checkout_session",
            summary="Retrieve a Checkout Session", response_model=CheckoutSession)
async def retrieve_checkout_session(session: SessionId, w: WorldDep,
                                    expand: Expand = None) -> Response:
    """One session (expand[]=line_items includes what was bought)."""
    return retrieve(w, "checkout_sessions", session, "checkout.session", expand)


@router.post("/v1/checkout/sessions/{session}/expire", operation_id="expire_checkout_session",
             summary="Expire a Checkout Session", response_model=CheckoutSession)
async def expire_checkout_session(session: SessionId, body: SessionExpire,
                                  call: IdempotentDep) -> Response:
    """Expire an open session: the customer can no longer pay it (a PaymentIntent it made is
    canceled). Only open sessions can be expired."""
    return call.run(body, lambda w: answer(w, "checkout_sessions", sessions.expire(
        w, _session(w, session)), body.expand))


@router.get("/v1/checkout/sessions/{session}/line_items",
            operation_id="list_checkout_session_line_items",
            summary="List a Checkout Session's line items", response_model=StripeList[LineItem])
async def list_checkout_session_line_items(
    session: SessionId, w: WorldDep, limit: Limit = DEFAULT_LIMIT,
    starting_after: StartingAfter = None, ending_before: EndingBefore = None,
) -> Response:
    """What was bought: price, quantity, and each item's share of the discount."""
    _session(w, session)
    return ok(cursor_page(w.objects, "checkout_line_items", ["session = ?"], [session],
                          url=f"/v1/checkout/sessions/{session}/line_items", limit=limit,
                          starting_after=starting_after, ending_before=ending_before,
                          kind="line item"))


@router.get("/v1/checkout/sessions", operation_id="list_checkout_sessions",
            summary="List Checkout Sessions", response_model=StripeList[CheckoutSession])
async def list_checkout_sessions(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's."))] = None,
    payment_intent: Annotated[str | None, Query(max_length=255, description=(
        "Only the session of this PaymentIntent."))] = None,
    status: Annotated[Literal["open", "complete", "expired"] | None, Query(description=(
        "Only sessions in this status."))] = None,
) -> Response:
    """Checkout Sessions, newest first."""
    return listing(w, "checkout_sessions", "checkout.session", url="/v1/checkout/sessions",
                   limit=limit, starting_after=starting_after, ending_before=ending_before,
                   expand=expand, customer=customer, payment_intent=payment_intent,
                   status=status)
