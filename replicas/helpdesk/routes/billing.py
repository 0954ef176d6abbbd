"""Orders, charges, refunds and manager approvals."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime import db as sql
from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules, schemas
from ..schemas import (
    ApprovalCreate,
    ApprovalOut,
    ChargeOut,
    ChargeStatus,
    Currency,
    OrderDetailOut,
    OrderOut,
    OrderStatus,
    RefundCreate,
    RefundOut,
)

router = APIRouter(tags=["billing"])

OrderId = Annotated[Id, Path(description="Id of the order.")]
ChargeId = Annotated[Id, Path(description="Id of the charge.")]
RefundId = Annotated[Id, Path(description="Id of the refund.")]
ApprovalId = Annotated[Id, Path(description="Id of the approval.")]

_REFUNDED = "(SELECT coalesce(sum(r.amount), 0) FROM refunds r WHERE r.charge_id = charges.id)"
CHARGE_COLUMNS = (
    f"charges.*, {_REFUNDED} AS amount_refunded, "
    f"CASE WHEN charges.status = 'failed' THEN 0 ELSE charges.amount - {_REFUNDED} END "
    "AS refundable_amount"
)


@router.get(
    "/orders", operation_id="list_orders", summary="List orders", response_model=Page[OrderOut]
)
async def list_orders(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    customer_id: Annotated[Id | None, Query(description="Only this customer's.")] = None,
    number: Annotated[
        str | None, Query(max_length=20, description="Order number, e.g. 'A-10423' (exact).")
    ] = None,
    status: Annotated[OrderStatus | None, Query(description="Only this status.")] = None,
    currency: Annotated[Currency | None, Query(description="Only this currency.")] = None,
) -> Response:
    """Shop orders, newest first."""
    found = Filters()
    found.equal(customer_id=customer_id, status=status, currency=currency)
    if number is not None:
        found.add("upper(number) = upper(?)", number.strip())
    return ok(
        page(
            episode.db,
            "orders",
            found.where,
            found.params,
            order_by="placed_at DESC, id DESC",
            limit=limit,
            offset=offset,
            convert=schemas.order,
        )
    )


@router.get(
    "/orders/{order_id}",
    operation_id="get_order",
    summary="Get an order",
    response_model=OrderDetailOut,
)
async def get_order(order_id: OrderId, episode: EpisodeDep) -> Response:
    """One order with its line items and every charge attempted for it."""
    row = schemas.order(get_row(episode.db, "orders", order_id))
    row["charges"] = sql.rows(
        episode.db,
        f"SELECT {CHARGE_COLUMNS} FROM charges WHERE order_id = ? ORDER BY id",
        (order_id,),
    )
    return ok(row)


@router.get(
    "/charges", operation_id="list_charges", summary="List charges", response_model=Page[ChargeOut]
)
async def list_charges(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    order_id: Annotated[Id | None, Query(description="Only this order's charges.")] = None,
    status: Annotated[ChargeStatus | None, Query(description="Only this status.")] = None,
    processor_reference: Annotated[
        str | None, Query(max_length=64, description="Exact payment processor reference.")
    ] = None,
) -> Response:
    """Payment charges with what was refunded and what is still refundable."""
    found = Filters()
    found.equal(order_id=order_id, status=status, processor_reference=processor_reference)
    return ok(
        page(
            episode.db,
            "charges",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
            columns=CHARGE_COLUMNS,
        )
    )


@router.get(
    "/charges/{charge_id}",
    operation_id="get_charge",
    summary="Get a charge",
    response_model=ChargeOut,
)
async def get_charge(charge_id: ChargeId, episode: EpisodeDep) -> Response:
    """One charge with amount_refunded and refundable_amount."""
    get_row(episode.db, "charges", charge_id)
    return ok(
        sql.one(episode.db, f"SELECT {CHARGE_COLUMNS} FROM charges WHERE id = ?", (charge_id,))
    )


@router.get(
    "/refunds", operation_id="list_refunds", summary="List refunds", response_model=Page[RefundOut]
)
async def list_refunds(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    charge_id: Annotated[
        Id | None, Query(description="Only refunds of this charge.")
    ] = None,
    order_id: Annotated[Id | None, Query(description="Only refunds of this order.")] = None,
    ticket_id: Annotated[
        Id | None, Query(description="Only refunds for this ticket.")
    ] = None,
) -> Response:
    """Refunds issued, oldest first."""
    found = Filters()
    found.equal(charge_id=charge_id, ticket_id=ticket_id)
    if order_id is not None:
        found.add("charge_id IN (SELECT id FROM charges WHERE order_id = ?)", order_id)
    return ok(page(episode.db, "refunds", found.where, found.params, order_by="id", limit=limit,
                   offset=offset))


@router.get(
    "/refunds/{refund_id}",
    operation_id="get_refund",
    summary="Get a refund",
    response_model=RefundOut,
)
async def get_refund(refund_id: RefundId, episode: EpisodeDep) -> Response:
    """One refund."""
    return ok(get_row(episode.db, "refunds", refund_id))


@router.post(
    "/refunds",
    operation_id="create_refund",
    summary="Refund a charge",
    status_code=201,
    response_model=RefundOut,
)
async def create_refund(body: RefundCreate, episode: EpisodeDep) -> Response:
    """Refund a captured charge, in the charge's currency. Rules: the amount cannot exceed the
    captured amount minus earlier refunds; failed charges cannot be refunded; a refund must be
    within the refund window, which runs from fulfilment (or capture, if never fulfilled) and
    depends on the customer's tier (a duplicate capture of an order is refundable at any
    time); refunds above the approval threshold need an approved
    manager approval for at least the amount. The refund policy articles of the help center
    (list_articles) state the windows and the threshold. Prorated amount = floor(charge amount
    * (total_days - used_days) / total_days). The charge becomes refunded or
    partially_refunded."""
    row = rules.create_refund(
        episode.db,
        charge_id=body.charge_id,
        currency=body.currency,
        kind=body.kind,
        reason=body.reason,
        amount=body.amount,
        used_days=body.used_days,
        total_days=body.total_days,
        approval_id=body.approval_id,
        ticket_id=body.ticket_id,
        now=episode.now(),
    )
    return ok(row, 201)


@router.get(
    "/approvals",
    operation_id="list_approvals",
    summary="List manager approvals",
    response_model=Page[ApprovalOut],
)
async def list_approvals(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    status: Annotated[
        Literal["approved", "denied"] | None, Query(description="Only this decision.")
    ] = None,
    charge_id: Annotated[Id | None, Query(description="Only for this charge.")] = None,
    ticket_id: Annotated[Id | None, Query(description="Only for this ticket.")] = None,
) -> Response:
    """Manager approval requests for refunds and their decisions."""
    found = Filters()
    found.equal(status=status, charge_id=charge_id, ticket_id=ticket_id)
    return ok(
        page(episode.db, "approvals", found.where, found.params, order_by="id", limit=limit,
             offset=offset)
    )


@router.get(
    "/approvals/{approval_id}",
    operation_id="get_approval",
    summary="Get an approval",
    response_model=ApprovalOut,
)
async def get_approval(approval_id: ApprovalId, episode: EpisodeDep) -> Response:
    """One approval and its decision."""
    return ok(get_row(episode.db, "approvals", approval_id))


@router.post(
    "/approvals",
    operation_id="create_approval_request",
    summary="Ask a manager to approve a refund",
    status_code=201,
    response_model=ApprovalOut,
)
async def create_approval_request(body: ApprovalCreate, episode: EpisodeDep) -> Response:
    """Request manager approval for a large refund. The Billing manager decides at once:
    approved when the amount is within the managers' approval limit (the refund policy
    articles state it) and, if charge_id is given, at most what is still refundable on it;
    otherwise denied (see decision_note). Pass the
    approval's id as approval_id to create_refund; each approval covers one refund."""
    row = rules.create_approval(
        episode.db,
        amount=body.amount,
        currency=body.currency,
        reason=body.reason,
        charge_id=body.charge_id,
        ticket_id=body.ticket_id,
        now=episode.now(),
    )
    return ok(row, 201)
