"""The dashboard's payments, in the spirit of Stripe's::

    GET  /dashboard/payments                  PaymentIntents, newest first: filters (status,
                                              customer email, amount, created from/to, a search
                                              over id, description and metadata) and pages
    GET  /dashboard/payments/{pi}             one payment: amount, status, charges, refunds,
                                              the timeline of its events, customer, card,
                                              metadata; its actions
    POST /dashboard/payments/{pi}/refunds     refund all that is left or an amount, a reason,
                                              the manager's approval where policy needs one
                                              (the API's metadata[approval])
    POST /dashboard/payments/{pi}/approvals   ask a manager to approve a refund (the store's)
    POST /dashboard/payments/{pi}/capture     capture an authorization, all or an amount
    POST /dashboard/payments/{pi}/cancel      cancel it, with a reason

Each write is the API route's rule (``rules/refunds``, ``rules/payment_intents``): the same
refusals, events and approvals."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime import db as sql
from replicas.runtime.pages import performs, redirect, sends

from ..deps import WorldDep
from ..render import Row, loads
from ..rules import payment_intents as intents
from ..rules import refunds
from ..rules.common import World, refused
from ..schemas.requests import ApprovalCreate, RefundCreate
from .dashboard import (
    PER_PAGE,
    DashboardRoute,
    Form,
    ObjectPath,
    Text,
    choice,
    minor,
    page,
    unchanged,
    write,
)

router = APIRouter(route_class=DashboardRoute, include_in_schema=False)

# What the refunds of the intent ``p``'s latest charge that count add up to (a partial
# capture's released rest is no refund).
REFUNDED = (f"(SELECT coalesce(sum(r.amount), 0) FROM refunds r WHERE r.charge = p.latest_charge "
            f"AND r.status IN ({', '.join(repr(s) for s in refunds.COUNTED)}))")
# A payment's status as the dashboard names it, and the SQL that picks each (over the
# intent ``p`` and its latest charge ``c``).
STATUSES: dict[str, str] = {
    "succeeded": f"p.status = 'succeeded' AND coalesce(c.disputed, 0) = 0 AND {REFUNDED} = 0",
    "refunded": f"p.status = 'succeeded' AND coalesce(c.disputed, 0) = 0 AND {REFUNDED} > 0",
    "uncaptured": "p.status = 'requires_capture'",
    "failed": "p.status = 'requires_payment_method' AND p.last_payment_error IS NOT NULL",
    "disputed": "c.disputed = 1",
    "canceled": "p.status = 'canceled'",
    # Waiting on the customer (a 3-D Secure check, a confirmation, a card), with no failure.
    "incomplete": "p.status NOT IN ('succeeded', 'requires_capture', 'canceled', 'processing') "
                  "AND p.last_payment_error IS NULL",
}
REFUND_REASONS = ("requested_by_customer", "duplicate", "fraudulent")
CANCEL_REASONS = ("requested_by_customer", "duplicate", "fraudulent", "abandoned")


def status_of(intent: Row, charge: Row | None, refunded: int) -> str:
    """What the dashboard calls the payment (``refunded``: what its charge's refunds add up
    to): Disputed, Refunded, Partially refunded, Succeeded, Uncaptured, Canceled, Failed,
    Processing or Incomplete."""
    if charge is not None and charge["disputed"]:
        return "Disputed"
    if intent["status"] == "succeeded" and charge is not None and refunded:
        return "Refunded" if refunded >= charge["amount_captured"] else "Partially refunded"
    named = {"succeeded": "Succeeded", "requires_capture": "Uncaptured",
             "canceled": "Canceled", "processing": "Processing"}.get(intent["status"])
    if named:
        return named
    return "Failed" if intent["last_payment_error"] else "Incomplete"


def shown_status(row: Row) -> str:
    """The status of a payment as listed: an intent's row with its charge's ``charge_id``,
    ``disputed``, ``amount_captured`` and ``refunded_sum`` (:data:`REFUNDED`)."""
    return status_of(row, row if row["charge_id"] else None, row["refunded_sum"])


def _unix(text: str, field: str, end: bool) -> int:
    """The start (or the end) of the day ``text`` names (YYYY-MM-DD, UTC)."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise refused(f"{field.replace('_', ' ').capitalize()} '{text[:20]}' is not a date "
                      "(YYYY-MM-DD).", "parameter_invalid", field) from None
    return int(datetime.combine(day, time.max if end else time.min, UTC).timestamp())


@router.get("/dashboard/payments")
async def payments_page(request: Request, w: WorldDep, status: Text = "", email: Text = "",
                        amount: Text = "", currency: Text = "", q: Text = "",
                        created_from: Text = "", created_to: Text = "",
                        page_: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1
                        ) -> Response:
    where: list[str] = ["1 = 1"]
    params: list[Any] = []
    if status:
        if status not in STATUSES:
            raise refused(f"Status must be one of: {', '.join(STATUSES)}.", "parameter_invalid",
                          "status")
        where.append(STATUSES[status])
    if email.strip():
        where.append("(lower(cu.email) LIKE ? OR lower(p.receipt_email) LIKE ?)")
        params += [f"%{email.strip().lower()}%"] * 2
    if amount.strip():
        money = currency.strip().lower() or "usd"
        where.append("p.amount = ? AND p.currency = ?")
        params += [minor(amount, money, "amount"), money]
    if q.strip():
        where.append("(p.stripe_id = ? OR c.stripe_id = ? OR p.description LIKE ? "
                     "OR p.metadata LIKE ?)")
        params += [q.strip(), q.strip(), f"%{q.strip()}%", f"%{q.strip()}%"]
    if created_from.strip():
        where.append("p.created >= ?")
        params.append(_unix(created_from, "created_from", end=False))
    if created_to.strip():
        where.append("p.created <= ?")
        params.append(_unix(created_to, "created_to", end=True))
    found = sql.rows(w.db, (
        f"SELECT p.*, c.stripe_id AS charge_id, c.disputed, c.amount_captured, "
        f"{REFUNDED} AS refunded_sum, "
        "cu.email AS customer_email, cu.name AS customer_name FROM payment_intents p "
        "LEFT JOIN charges c ON c.stripe_id = p.latest_charge "
        "LEFT JOIN customers cu ON cu.stripe_id = p.customer "
        f"WHERE {' AND '.join(where)} ORDER BY p.created DESC, p.id DESC LIMIT ? OFFSET ?"),
        (*params, PER_PAGE + 1, (page_ - 1) * PER_PAGE))
    shown = [{**row, "shown_status": shown_status(row)} for row in found[:PER_PAGE]]
    filters = {"status": status, "email": email, "amount": amount, "currency": currency,
               "q": q, "created_from": created_from, "created_to": created_to}
    return page(request, "payments.html", payments=shown, filters=filters, statuses=STATUSES,
                page_number=page_, more=len(found) > PER_PAGE)


def _intent(w: World, intent_id: str) -> Row:
    return w.objects.row("payment_intents", intent_id, kind="payment_intent")


def _timeline(w: World, intent: Row) -> list[dict[str, Any]]:
    """The events of the payment and of its charges, refunds and disputes, newest first."""
    found = sql.rows(w.db, (
        "SELECT * FROM events WHERE json_extract(data, '$.object.id') = ? "
        "OR json_extract(data, '$.object.payment_intent') = ? ORDER BY created DESC, id DESC"),
        (intent["stripe_id"], intent["stripe_id"]))
    return [{**row, "object": (loads(row["data"]) or {}).get("object", {})} for row in found]


def refundable(w: World, charge: Row | None) -> int:
    """What is left to refund on ``charge`` (0: nothing can be)."""
    if charge is None or charge["status"] != "succeeded" or not charge["captured"] \
            or charge["disputed"]:
        return 0
    return int(charge["amount_captured"] - refunds.refunded(w, charge))


@router.get("/dashboard/payments/{intent_id}")
async def payment_page(request: Request, w: WorldDep, intent_id: ObjectPath,
                       done: Text = "") -> Response:
    intent = _intent(w, intent_id)
    charges = sql.rows(w.db, "SELECT * FROM charges WHERE payment_intent = ? "
                       "ORDER BY created, id", (intent["stripe_id"],))
    latest = next((c for c in charges if c["stripe_id"] == intent["latest_charge"]), None)
    customer = sql.one(w.db, "SELECT * FROM customers WHERE stripe_id = ?",
                       (intent["customer"],)) if intent["customer"] else None
    method_id = intent["payment_method"] or (latest["payment_method"] if latest else None)
    card = sql.one(w.db, "SELECT * FROM payment_methods WHERE stripe_id = ?",
                   (method_id,)) if method_id else None
    order = sql.one(w.db, "SELECT id, number FROM orders WHERE payment_intent = ?",
                    (intent["stripe_id"],))
    return page(
        request, "payment.html", intent=intent,
        status=status_of(intent, latest, refunds.refunded(w, latest) if latest else 0),
        charges=charges, latest=latest, customer=customer, card=card, order=order,
        refunds=sql.rows(w.db, "SELECT * FROM refunds WHERE payment_intent = ? "
                         "ORDER BY created DESC, id DESC", (intent["stripe_id"],)),
        disputes=sql.rows(w.db, "SELECT * FROM disputes WHERE payment_intent = ? "
                          "ORDER BY created DESC, id DESC", (intent["stripe_id"],)),
        events=_timeline(w, intent), refundable=refundable(w, latest),
        capturable=intent["status"] == "requires_capture",
        cancelable=intent["status"] in intents.CANCELABLE, refund_reasons=REFUND_REASONS,
        cancel_reasons=CANCEL_REASONS, done=done[:120])


@router.post("/dashboard/payments/{intent_id}/refunds")
@performs("create_refund")
async def refund(request: Request, w: WorldDep, intent_id: ObjectPath, form: Form) -> Response:
    """The API's ``POST /v1/refunds`` of the payment: all that is left, or ``amount`` (typed
    in the payment's currency), ``reason``, ``approval`` (its metadata[approval]); ``seen``:
    what was left to refund when the form was shown (a form sent twice refunds once)."""
    sends(request, {"payment_intent": intent_id})  # what is known before anything is refused
    intent = _intent(w, intent_id)
    charge = sql.one(w.db, "SELECT * FROM charges WHERE stripe_id = ?", (intent["latest_charge"],))
    unchanged(form, refundable(w, charge), "payment")
    approval = str(form.get("approval") or "").strip()
    body = RefundCreate(payment_intent=intent["stripe_id"],
                        amount=minor(form.get("amount"), intent["currency"], "amount"),
                        reason=choice(form, "reason", REFUND_REASONS),
                        metadata={"approval": approval} if approval else None)
    sends(request, body.model_dump(mode="json", exclude_none=True))
    made = write(w, lambda: refunds.create(w, body))
    return redirect(request, f"/dashboard/payments/{intent_id}",
                    done=f"Refund {made['stripe_id']} created.")


@router.post("/dashboard/payments/{intent_id}/approvals")
@performs("create_refund_approval")
async def ask_approval(request: Request, w: WorldDep, intent_id: ObjectPath,
                       form: Form) -> Response:
    """The store's ``POST /store/refund_approvals`` for the payment's charge: a manager
    decides at once (approved, or denied with a note)."""
    intent = _intent(w, intent_id)
    if not intent["latest_charge"]:
        raise refused("This payment has no charge to refund.", "charge_not_refundable")
    sends(request, {"charge": intent["latest_charge"]})
    value = minor(form.get("amount"), intent["currency"], "amount")
    if value is None:
        raise refused("Amount: enter the refund the approval is for.", "parameter_missing",
                      "amount")
    reason = str(form.get("reason") or "").strip()
    if not reason:
        raise refused("Reason: say why the customer is refunded.", "parameter_missing",
                      "reason")
    body = ApprovalCreate(charge=intent["latest_charge"], amount=value, reason=reason[:500])
    sends(request, body.model_dump(mode="json", exclude_none=True))
    decided = write(w, lambda: refunds.ask_approval(w, body))
    return redirect(request, f"/dashboard/payments/{intent_id}",
                    done=f"Approval {decided['id']} {decided['status']}: "
                         f"{decided['decision_note']}")


@router.post("/dashboard/payments/{intent_id}/capture")
@performs("capture_payment_intent", intent="intent_id")
async def capture(request: Request, w: WorldDep, intent_id: ObjectPath,
                  form: Form) -> Response:
    """The API's capture: all of the authorization, or ``amount`` (the rest released)."""
    intent = _intent(w, intent_id)
    value = minor(form.get("amount"), intent["currency"], "amount")
    sends(request, {"amount_to_capture": value} if value is not None else {})
    write(w, lambda: intents.capture(w, intent, amount_to_capture=value, meta=None))
    return redirect(request, f"/dashboard/payments/{intent_id}", done="Payment captured.")


@router.post("/dashboard/payments/{intent_id}/cancel")
@performs("cancel_payment_intent", intent="intent_id")
async def cancel(request: Request, w: WorldDep, intent_id: ObjectPath, form: Form) -> Response:
    """The API's cancel, with ``reason`` (its cancellation_reason)."""
    intent = _intent(w, intent_id)
    reason = choice(form, "reason", CANCEL_REASONS)
    sends(request, {"cancellation_reason": reason} if reason else {})
    write(w, lambda: intents.cancel(w, intent, reason=reason))
    return redirect(request, f"/dashboard/payments/{intent_id}", done="Payment canceled.")
