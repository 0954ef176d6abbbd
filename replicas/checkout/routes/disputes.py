"""Disputes (docs.stripe.com/api/disputes): chargebacks and inquiries the world has; evidence
and closing are the merchant's."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import disputes
from ..schemas.requests import DisputeClose, DisputeUpdate
from ..schemas.stripe import Dispute, StripeList
from .common import DisputeId, answer, listing, retrieve

router = APIRouter(tags=["disputes"])


@router.get("/v1/disputes/{dispute}", operation_id="retrieve_dispute",
            summary="Retrieve a dispute", response_model=Dispute)
async def retrieve_dispute(dispute: DisputeId, w: WorldDep, expand: Expand = None) -> Response:
    """One dispute: its status, reason, evidence and deadline (evidence_details.due_by)."""
    return retrieve(w, "disputes", dispute, "dispute", expand)


@router.post("/v1/disputes/{dispute}", operation_id="update_dispute",
             summary="Update a dispute", response_model=Dispute)
async def update_dispute(dispute: DisputeId, body: DisputeUpdate,
                         call: IdempotentDep) -> Response:
    """Stage evidence, and submit it (submit=true: under review), while it awaits a response
    and before evidence_details.due_by; metadata at any time."""
    return call.run(body, lambda w: answer(w, "disputes", disputes.update(
        w, w.objects.row("disputes", dispute, kind="dispute"), evidence=body.evidence,
        submit=body.submit, meta=body.metadata), body.expand))


@router.post("/v1/disputes/{dispute}/close", operation_id="close_dispute",
             summary="Close a dispute", response_model=Dispute)
async def close_dispute(dispute: DisputeId, body: DisputeClose, call: IdempotentDep) -> Response:
    """Accept the dispute: a chargeback is lost, an inquiry closed. It cannot be undone."""
    return call.run(body, lambda w: answer(w, "disputes", disputes.close(
        w, w.objects.row("disputes", dispute, kind="dispute")), body.expand))


@router.get("/v1/disputes", operation_id="list_disputes", summary="List disputes",
            response_model=StripeList[Dispute])
async def list_disputes(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    charge: Annotated[str | None, Query(max_length=255, description=(
        "Only disputes of this charge."))] = None,
    payment_intent: Annotated[str | None, Query(max_length=255, description=(
        "Only disputes of this PaymentIntent."))] = None,
) -> Response:
    """Disputes, newest first."""
    return listing(w, "disputes", "dispute", url="/v1/disputes", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   charge=charge, payment_intent=payment_intent)
