"""Refunds (docs.stripe.com/api/refunds)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import refunds
from ..schemas.requests import RefundCancel, RefundCreate, RefundUpdate
from ..schemas.stripe import Refund, StripeList
from .common import RefundId, answer, listing, retrieve

router = APIRouter(tags=["refunds"])


@router.post("/v1/refunds", operation_id="create_refund", summary="Create a refund",
             response_model=Refund)
async def create_refund(body: RefundCreate, call: IdempotentDep) -> Response:
    """Refund a captured charge (or a PaymentIntent's), all that is left or amount: never
    more in all than was captured ('amount_too_large', 'charge_already_refunded'), never a
    disputed charge ('charge_disputed')."""
    return call.run(body, lambda w: answer(w, "refunds", refunds.create(w, body), body.expand))


@router.get("/v1/refunds/{refund}", operation_id="retrieve_refund", summary="Retrieve a refund",
            response_model=Refund)
async def retrieve_refund(refund: RefundId, w: WorldDep, expand: Expand = None) -> Response:
    """One refund."""
    return retrieve(w, "refunds", refund, "refund", expand)


@router.post("/v1/refunds/{refund}", operation_id="update_refund", summary="Update a refund",
             response_model=Refund)
async def update_refund(refund: RefundId, body: RefundUpdate, call: IdempotentDep) -> Response:
    """Change its metadata."""
    return call.run(body, lambda w: answer(w, "refunds", refunds.update(
        w, w.objects.row("refunds", refund, kind="refund"), body.metadata), body.expand))


@router.post("/v1/refunds/{refund}/cancel", operation_id="cancel_refund",
             summary="Cancel a refund", response_model=Refund)
async def cancel_refund(refund: RefundId, body: RefundCancel, call: IdempotentDep) -> Response:
    """Cancel a refund waiting on the customer (requires_action); no other can be."""
    return call.run(body, lambda w: answer(w, "refunds", refunds.cancel(
        w, w.objects.row("refunds", refund, kind="refund")), body.expand))


@router.get("/v1/refunds", operation_id="list_refunds", summary="List refunds",
            response_model=StripeList[Refund])
async def list_refunds(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    charge: Annotated[str | None, Query(max_length=255, description=(
        "Only refunds of this charge."))] = None,
    payment_intent: Annotated[str | None, Query(max_length=255, description=(
        "Only refunds of this PaymentIntent."))] = None,
) -> Response:
    """Refunds, newest first."""
    return listing(w, "refunds", "refund", url="/v1/refunds", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   charge=charge, payment_intent=payment_intent)
