"""The store's own API (ours, not Stripe's): orders (cancellations, returns), stock, refund
approvals, customer accounts (password and 2FA resets, email changes). WorkGym's conventions:
integer ids, ISO times, offset pages; errors in the same envelope as the payments API's."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime import db as sql
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..rules import accounts, orders, refunds
from ..rules.common import World
from ..schemas import store as out
from ..schemas.requests import (
    ApprovalCreate,
    EmailChangeRequest,
    OrderCancel,
    PasswordReset,
    ReturnCreate,
    TwoFactorReset,
    VerifyCode,
)

router = APIRouter(tags=["store"])

OrderId = Annotated[Id, Path(description="Id of the order.")]
AccountId = Annotated[Id, Path(description="Id of the account.")]
ActionId = Annotated[Id, Path(description="Id of the account action.")]
ApprovalId = Annotated[Id, Path(description="Id of the refund approval.")]


def _order(w: World, order_id: int) -> Response:
    return ok(out.order(w.db, sql.get_row(w.db, "orders", order_id)))


@router.get("/store/orders", operation_id="list_orders", summary="List orders",
            response_model=Page[out.OrderOut])
async def list_orders(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    number: Annotated[str | None, Query(max_length=40, description=(
        "Only the order with this number (A-10423, WC-48213)."))] = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this Stripe customer's (cus_...)."))] = None,
    account_id: Annotated[Id | None, Query(description="Only this account's.")] = None,
    email: Annotated[str | None, Query(max_length=254, description=(
        "Only orders placed with this email (case-insensitive)."))] = None,
    status: Annotated[Literal["open", "cancelled"] | None, Query(description=(
        "Only open or only cancelled orders."))] = None,
    fulfillment_status: Annotated[
        Literal["unfulfilled", "partially_fulfilled", "fulfilled"] | None, Query(
            description="Only orders this far shipped.")] = None,
) -> Response:
    """Orders, newest first, with their items, shipments, returns and payment."""
    found = Filters()
    found.equal(number=number, customer=customer, account_id=account_id, status=status,
                fulfillment_status=fulfillment_status)
    if email is not None:
        found.add("lower(email) = lower(?)", email)
    return ok(page(w.db, "orders", found.where, found.params, order_by="placed_at DESC, id DESC",
                   limit=limit, offset=offset, convert=lambda row: out.order(w.db, row)))


@router.get("/store/orders/{order_id}", operation_id="get_order", summary="Get an order",
            response_model=out.OrderOut)
async def get_order(order_id: OrderId, w: WorldDep) -> Response:
    """One order: its items (open, shipped, cancelled and returned units), shipments,
    returns and payment."""
    return _order(w, order_id)


@router.post("/store/orders/{order_id}/cancel", operation_id="cancel_order",
             summary="Cancel an order's unshipped items", response_model=out.OrderOut)
async def cancel_order(order_id: OrderId, body: OrderCancel, call: IdempotentDep) -> Response:
    """Cancel units not shipped yet (items; default: all of them) and refund what was paid
    for them to the order's payment; cancelling everything before anything shipped cancels
    the order and refunds its shipping too (an authorization is released instead). Shipped
    units cannot be cancelled: return them. The units go back to stock."""
    def run(w: World) -> Response:
        orders.cancel(w, sql.get_row(w.db, "orders", order_id), asked=body.items,
                      reason=body.reason)
        return _order(w, order_id)
    return call.run(body, run)


@router.post("/store/orders/{order_id}/returns", operation_id="create_return",
             summary="Take shipped items back", status_code=201, response_model=out.ReturnOut)
async def create_return(order_id: OrderId, body: ReturnCreate, call: IdempotentDep) -> Response:
    """Record units that came back (shipped ones), restocked or written off, and refund what
    was paid for them (or amount, or nothing with refund=false) to the order's payment."""
    def run(w: World) -> Response:
        row = orders.create_return(w, sql.get_row(w.db, "orders", order_id), asked=body.items,
                                   restock=body.restock, refund=body.refund,
                                   amount=body.amount, reason=body.reason)
        return ok(out.return_(row), 201)
    return call.run(body, run)


@router.get("/store/inventory", operation_id="list_inventory", summary="List stock",
            response_model=Page[out.InventoryOut])
async def list_inventory(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    sku: Annotated[str | None, Query(max_length=40, description="Only this SKU.")] = None,
) -> Response:
    """Stock by SKU: on hand, committed to open orders, available."""
    found = Filters()
    found.equal(sku=sku)
    return ok(page(w.db, "inventory", found.where, found.params, order_by="id", limit=limit,
                   offset=offset, convert=out.inventory))


@router.post("/store/refund_approvals", operation_id="create_refund_approval",
             summary="Ask a manager to approve a refund", status_code=201,
             response_model=out.ApprovalOut)
async def create_refund_approval(body: ApprovalCreate, call: IdempotentDep) -> Response:
    """A manager decides at once: approved, or denied with a note (a record, not an error).
    Refunds the shop's policy puts above the approval threshold name an approved one in
    metadata[approval]; each covers one refund of its charge, up to its amount."""
    return call.run(body, lambda w: ok(refunds.ask_approval(w, body), 201))


@router.get("/store/refund_approvals", operation_id="list_refund_approvals",
            summary="List refund approvals", response_model=Page[out.ApprovalOut])
async def list_refund_approvals(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    charge: Annotated[str | None, Query(max_length=255, description=(
        "Only approvals for this charge."))] = None,
    ticket: Annotated[Id | None, Query(description="Only those for this helpdesk ticket.")]
    = None,
    status: Annotated[Literal["approved", "denied"] | None, Query(description=(
        "Only this decision."))] = None,
) -> Response:
    """Refund approvals, oldest first."""
    found = Filters()
    found.equal(charge=charge, ticket=ticket, status=status)
    return ok(page(w.db, "refund_approvals", found.where, found.params, order_by="id",
                   limit=limit, offset=offset))


@router.get("/store/refund_approvals/{approval_id}", operation_id="get_refund_approval",
            summary="Get a refund approval", response_model=out.ApprovalOut)
async def get_refund_approval(approval_id: ApprovalId, w: WorldDep) -> Response:
    """One approval: its decision, and the refund it covered."""
    return ok(sql.get_row(w.db, "refund_approvals", approval_id))


@router.get("/store/accounts", operation_id="list_accounts", summary="List accounts",
            response_model=Page[out.AccountOut])
async def list_accounts(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    email: Annotated[str | None, Query(max_length=254, description=(
        "The address they sign in with (case-insensitive)."))] = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "The account of this Stripe customer (cus_...)."))] = None,
) -> Response:
    """Customer accounts, by id."""
    found = Filters()
    found.equal(customer=customer)
    if email is not None:
        found.add("lower(email) = lower(?)", email)
    return ok(page(w.db, "accounts", found.where, found.params, order_by="id", limit=limit,
                   offset=offset, convert=out.account))


@router.get("/store/accounts/{account_id}", operation_id="get_account",
            summary="Get an account", response_model=out.AccountOut)
async def get_account(account_id: AccountId, w: WorldDep) -> Response:
    """One account: its address, whether it is verified, 2FA, a pending email change."""
    return ok(out.account(sql.get_row(w.db, "accounts", account_id)))


@router.post("/store/accounts/{account_id}/password-reset", operation_id="reset_password",
             summary="Send a password reset link", status_code=201,
             response_model=out.AccountActionOut)
async def reset_password(account_id: AccountId, body: PasswordReset,
                         call: IdempotentDep) -> Response:
    """Email a reset link to the account's address; refused unless it is verified."""
    return call.run(body, lambda w: ok(out.account_action(accounts.request_password_reset(
        w, sql.get_row(w.db, "accounts", account_id))), 201))


@router.post("/store/accounts/{account_id}/2fa-reset", operation_id="reset_two_factor",
             summary="Reset two-factor authentication", status_code=201,
             response_model=out.AccountActionOut)
async def reset_two_factor(account_id: AccountId, body: TwoFactorReset,
                           call: IdempotentDep) -> Response:
    """Turn 2FA off so the holder can enrol again, only after verifying their identity
    (send identity_verified=true and the method used)."""
    return call.run(body, lambda w: ok(out.account_action(accounts.reset_two_factor(
        w, sql.get_row(w.db, "accounts", account_id), identity_verified=body.identity_verified,
        method=body.verification_method)), 201))


@router.post("/store/accounts/{account_id}/email-change", operation_id="request_email_change",
             summary="Start an email change", status_code=201,
             response_model=out.AccountActionOut)
async def request_email_change(account_id: AccountId, body: EmailChangeRequest,
                               call: IdempotentDep) -> Response:
    """Send a 6-digit code to the new address; the email changes (on the account and its
    Stripe customer) only once verify_account_action gets that code (ask the holder). A
    newer request cancels an older pending one."""
    return call.run(body, lambda w: ok(out.account_action(accounts.request_email_change(
        w, sql.get_row(w.db, "accounts", account_id), new_email=body.new_email)), 201))


@router.get("/store/account-actions", operation_id="list_account_actions",
            summary="List account actions", response_model=Page[out.AccountActionOut])
async def list_account_actions(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    account_id: Annotated[Id | None, Query(description="Only this account's.")] = None,
    kind: Annotated[Literal["password_reset", "2fa_reset", "email_change"] | None, Query(
        description="Only this kind.")] = None,
    status: Annotated[Literal["pending", "completed", "cancelled"] | None, Query(
        description="Only this status.")] = None,
) -> Response:
    """Password resets, 2FA resets and email changes, oldest first."""
    found = Filters()
    found.equal(account_id=account_id, kind=kind, status=status)
    return ok(page(w.db, "account_actions", found.where, found.params, order_by="id",
                   limit=limit, offset=offset, convert=out.account_action))


@router.get("/store/account-actions/{action_id}", operation_id="get_account_action",
            summary="Get an account action", response_model=out.AccountActionOut)
async def get_account_action(action_id: ActionId, w: WorldDep) -> Response:
    """One account action and its status."""
    return ok(out.account_action(sql.get_row(w.db, "account_actions", action_id)))


@router.post("/store/account-actions/{action_id}/verify", operation_id="verify_account_action",
             summary="Verify a pending email change", response_model=out.AccountActionOut)
async def verify_account_action(action_id: ActionId, body: VerifyCode,
                                call: IdempotentDep) -> Response:
    """Complete a pending email change with the code the holder received at the new address:
    the account and its Stripe customer take it (verified)."""
    return call.run(body, lambda w: ok(out.account_action(accounts.verify(
        w, sql.get_row(w.db, "account_actions", action_id), code=body.code))))
