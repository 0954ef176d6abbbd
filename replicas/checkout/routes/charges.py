"""Charges (docs.stripe.com/api/charges): each payment attempt of a PaymentIntent; read-only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..schemas.stripe import Charge, StripeList
from .common import ChargeId, listing, retrieve

router = APIRouter(tags=["charges"])


@router.get("/v1/charges/{charge}", operation_id="retrieve_charge", summary="Retrieve a charge",
            response_model=Charge)
async def retrieve_charge(charge: ChargeId, w: WorldDep, expand: Expand = None) -> Response:
    """One charge: captured, refunded (amount_refunded), disputed, and its outcome."""
    return retrieve(w, "charges", charge, "charge", expand)


@router.get("/v1/charges", operation_id="list_charges", summary="List charges",
            response_model=StripeList[Charge])
async def list_charges(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's."))] = None,
    payment_intent: Annotated[str | None, Query(max_length=255, description=(
        "Only this PaymentIntent's."))] = None,
) -> Response:
    """Charges, newest first."""
    return listing(w, "charges", "charge", url="/v1/charges", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   customer=customer, payment_intent=payment_intent)
