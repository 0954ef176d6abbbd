"""Refunds (docs.stripe.com/api/refunds): of a captured charge, never more in all than was
captured (refunds that did not fail or get canceled count), never of a charge the cardholder
disputed. A card refund succeeds at once, except with Stripe's refund test cards
(``cards.RefundOutcome``): ``pending`` then ``succeeded``, or ``succeeded`` then ``failed``
(``failure_reason``; the charge's ``amount_refunded`` given back), settled
:data:`SETTLE_AFTER` later on the episode's clock, when the next write arrives (as
authorizations expire). One waiting on the customer (``requires_action``) may be
canceled. Staff refunds follow the shop's approval policy (``approvals``); the store's
cancellations and returns refund what the order's own rules work out."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from workgym_core.money import format_money

from ..cards import card
from ..errors import InvalidRequestError
from ..render import Row
from ..schemas.requests import ApprovalCreate, RefundCreate
from . import approvals, funds
from .common import World, metadata

COUNTED = ("pending", "requires_action", "succeeded")
# How long an asynchronous refund takes to settle (virtual time: one step is a minute).
SETTLE_AFTER = int(timedelta(minutes=5).total_seconds())


def _money(amount: int, currency: str) -> str:
    return format_money(amount, currency)


def _charge_of(w: World, body: RefundCreate) -> Row:
    if body.charge:
        return w.objects.row("charges", body.charge, kind="charge", param="charge")
    if not body.payment_intent:
        raise InvalidRequestError("One of the following params should be provided for this "
                                  "request: payment_intent or charge.",
                                  code="parameter_missing", param="charge")
    intent = w.objects.row("payment_intents", body.payment_intent, kind="payment_intent",
                           param="payment_intent")
    if intent["latest_charge"] is None or intent["status"] != "succeeded":
        raise InvalidRequestError(
            f"This PaymentIntent ({intent['stripe_id']}) does not have a successful charge to "
            "refund.", code="charge_not_refundable", param="payment_intent")
    return w.objects.row("charges", intent["latest_charge"], kind="charge")


def refunded(w: World, charge: Row) -> int:
    """What the refunds of ``charge`` that count (not failed, not canceled) add up to."""
    found = w.db.execute(
        f"SELECT coalesce(sum(amount), 0) AS n FROM refunds WHERE charge = ? AND status IN "
        f"({', '.join('?' for _ in COUNTED)})", (charge["stripe_id"], *COUNTED)).fetchone()
    return int(found["n"])


def ask_approval(w: World, body: ApprovalCreate) -> Row:
    """A manager's decision on refunding ``body.amount`` of its charge, given what is still
    refundable on it."""
    charge = w.objects.row("charges", body.charge, kind="charge", param="charge")
    return approvals.request(w, charge, amount=body.amount,
                             left=charge["amount_captured"] - refunded(w, charge),
                             reason=body.reason, ticket=body.ticket)


def create(w: World, body: RefundCreate, *, policy: bool = True) -> Row:
    """Refund ``body``'s charge; ``policy``: under the shop's approval policy (a staff
    refund), not one the store's order rules made."""
    charge = _charge_of(w, body)
    if body.payment_intent and charge["payment_intent"] != body.payment_intent:
        raise InvalidRequestError(f"Charge {charge['stripe_id']} does not belong to "
                                  f"PaymentIntent {body.payment_intent}.",
                                  code="parameter_invalid", param="payment_intent")
    if charge["status"] != "succeeded" or not charge["captured"]:
        raise InvalidRequestError(
            f"Charge {charge['stripe_id']} has not been captured (or failed): there is nothing "
            "to refund. Cancel an uncaptured PaymentIntent to release its authorization.",
            code="charge_not_refundable", param="charge")
    if charge["disputed"]:
        raise InvalidRequestError(f"Charge {charge['stripe_id']} has been charged back; cannot "
                                  "issue a refund.", code="charge_disputed", param="charge")
    earlier = refunded(w, charge)
    left = charge["amount_captured"] - earlier
    if left <= 0:
        raise InvalidRequestError(f"Charge {charge['stripe_id']} has already been refunded.",
                                  code="charge_already_refunded", param="charge")
    amount = left if body.amount is None else body.amount
    if amount > left:
        raise InvalidRequestError(
            f"Refund amount ({_money(amount, charge['currency'])}) is greater than unrefunded "
            f"amount on charge ({_money(left, charge['currency'])})",
            code="amount_too_large", param="amount")
    named = body.metadata.get("approval") if isinstance(body.metadata, dict) else None
    approval = approvals.check(w, charge, amount, earlier, named) if policy else None
    # A legacy charge has no payment method (a guest's card, before PaymentMethods): its
    # refund settles at once, as a card's without a test outcome does.
    method = None if charge["payment_method"] is None else w.objects.row(
        "payment_methods", charge["payment_method"], kind="PaymentMethod")
    later = None if method is None else card(method["test_card"]).refund
    row = w.create("refunds", {
        "charge": charge["stripe_id"], "payment_intent": charge["payment_intent"],
        "amount": amount, "currency": charge["currency"],
        "status": later.first if later else "succeeded", "reason": body.reason,
        "failure_reason": None, "settles_at": w.now + SETTLE_AFTER if later else None,
        "settles_to": later.then if later else None,
        "metadata": metadata("{}", body.metadata)})
    approvals.used(w, approval, row)
    funds.refunded(w, row)
    w.emit("refund.created", "refunds", row)
    total = charge["amount_refunded"] + amount
    charge = w.update("charges", charge, {"amount_refunded": total,
                                          "refunded": int(total >= charge["amount"])})
    w.emit("charge.refunded", "charges", charge)
    return row


def settle_due(w: World) -> None:
    """Asynchronous refunds whose time has come settle: ``succeeded``, or ``failed`` with
    the card's failure reason and the amount given back to the charge. Run before every
    write."""
    due = w.db.execute("SELECT * FROM refunds WHERE settles_at <= ? ORDER BY settles_at, id",
                       (w.now,)).fetchall()
    for row in due:
        failed = row["settles_to"] == "failed"
        method = w.db.execute(
            "SELECT pm.test_card FROM charges c JOIN payment_methods pm ON pm.stripe_id = "
            "c.payment_method WHERE c.stripe_id = ?", (row["charge"],)).fetchone()
        outcome = card(method["test_card"]).refund
        row = w.update("refunds", row, {
            "status": row["settles_to"], "settles_at": None, "settles_to": None,
            "failure_reason": outcome.failure_reason if failed and outcome else None})
        if failed:
            funds.refund_failed(w, row)
            charge = w.objects.row("charges", row["charge"], kind="charge")
            w.update("charges", charge, {
                "amount_refunded": charge["amount_refunded"] - row["amount"], "refunded": 0})
        w.emit("refund.failed" if failed else "refund.updated", "refunds", row)
        w.emit("charge.refund.updated", "refunds", row)


def update(w: World, row: Row, meta: Any) -> Row:
    row = w.update("refunds", row, {"metadata": metadata(row["metadata"], meta)})
    w.emit("refund.updated", "refunds", row)
    return row


def cancel(w: World, row: Row) -> Row:
    if row["status"] != "requires_action":
        raise InvalidRequestError(
            f"Refund {row['stripe_id']} cannot be canceled because it has a status of "
            f"{row['status']}. Only refunds with a status of requires_action can be canceled.",
            code="refund_unexpected_state", param=None)
    row = w.update("refunds", row, {"status": "canceled"})
    charge = w.objects.row("charges", row["charge"], kind="charge")
    total = charge["amount_refunded"] - row["amount"]
    w.update("charges", charge, {"amount_refunded": total, "refunded": 0})
    w.emit("refund.updated", "refunds", row)
    return row
