"""The account's balance (docs.stripe.com/api/balance), its balance transactions
(docs.stripe.com/api/balance_transactions) and payouts (docs.stripe.com/api/payouts)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import funds
from ..schemas.billing import InvoiceAction, PayoutCreate, PayoutUpdate
from ..schemas.stripe import BalanceTransaction, StripeList
from ..schemas.stripe_billing import Balance, Payout
from .common import BalanceTransactionId, PayoutId, answer, listing, retrieve

router = APIRouter(tags=["payouts"])


@router.get("/v1/balance", operation_id="retrieve_balance", summary="Retrieve the balance",
            response_model=Balance)
async def retrieve_balance(w: WorldDep) -> Response:
    """Funds available to pay out and pending, per currency."""
    return ok(funds.balance(w))


@router.get("/v1/balance_transactions/{transaction}",
            operation_id="retrieve_balance_transaction",
            summary="Retrieve a balance transaction", response_model=BalanceTransaction)
async def retrieve_balance_transaction(transaction: BalanceTransactionId, w: WorldDep,
                                       expand: Expand = None) -> Response:
    """One movement of the balance."""
    return retrieve(w, "balance_transactions", transaction, "balance transaction", expand)


@router.get("/v1/balance_transactions", operation_id="list_balance_transactions",
            summary="List balance transactions",
            response_model=StripeList[BalanceTransaction])
async def list_balance_transactions(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    type: Annotated[Literal["charge", "refund", "payout", "payout_cancel"] | None, Query(
        description="Only of this type.")] = None,
    source: Annotated[str | None, Query(max_length=255, description=(
        "Only those of this charge, refund or payout."))] = None,
    currency: Annotated[str | None, Query(pattern=r"^[a-z]{3}$", description=(
        "Only in this currency."))] = None,
) -> Response:
    """Balance transactions, newest first."""
    return listing(w, "balance_transactions", "balance transaction",
                   url="/v1/balance_transactions", limit=limit, starting_after=starting_after,
                   ending_before=ending_before, expand=expand, type=type, source=source,
                   currency=currency)


@router.post("/v1/payouts", operation_id="create_payout", summary="Create a payout",
             response_model=Payout)
async def create_payout(body: PayoutCreate, call: IdempotentDep) -> Response:
    """Send available funds to the bank (more than available: balance_insufficient)."""
    return call.run(body, lambda w: answer(w, "payouts", funds.create_payout(w, body),
                                           body.expand))


@router.get("/v1/payouts/{payout}", operation_id="retrieve_payout",
            summary="Retrieve a payout", response_model=Payout)
async def retrieve_payout(payout: PayoutId, w: WorldDep, expand: Expand = None) -> Response:
    """One payout."""
    return retrieve(w, "payouts", payout, "payout", expand)


@router.post("/v1/payouts/{payout}", operation_id="update_payout", summary="Update a payout",
             response_model=Payout)
async def update_payout(payout: PayoutId, body: PayoutUpdate, call: IdempotentDep) -> Response:
    """Its metadata."""
    return call.run(body, lambda w: answer(w, "payouts", funds.update_payout(
        w, w.objects.row("payouts", payout, kind="payout"), body), body.expand))


@router.post("/v1/payouts/{payout}/cancel", operation_id="cancel_payout",
             summary="Cancel a payout", response_model=Payout)
async def cancel_payout(payout: PayoutId, body: InvoiceAction,
                        call: IdempotentDep) -> Response:
    """Cancel a pending payout: its amount is available again."""
    return call.run(body, lambda w: answer(w, "payouts", funds.cancel_payout(
        w, w.objects.row("payouts", payout, kind="payout")), body.expand))


@router.get("/v1/payouts", operation_id="list_payouts", summary="List payouts",
            response_model=StripeList[Payout])
async def list_payouts(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    status: Annotated[Literal["pending", "in_transit", "paid", "canceled"] | None, Query(
        description="Only in this status.")] = None,
) -> Response:
    """Payouts, newest first."""
    return listing(w, "payouts", "payout", url="/v1/payouts", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   status=status)
