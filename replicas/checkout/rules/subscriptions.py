"""Subscriptions (docs.stripe.com/billing/subscriptions/overview, "How subscriptions work"):
Stripe's state machine, driven by the episode's clock.

    create --first invoice paid--> active   (a trial: trialing --trial ends, paid--> active)
    create --first payment fails--> incomplete --paid--> active
                                    incomplete --23 hours--> incomplete_expired (invoice void)
    active --a renewal's payment fails--> past_due --paid--> active
    past_due --the retries end (RETRY_WINDOW)--> unpaid (the account's setting) --paid--> active
    any live status --cancel--> canceled; cancel_at / cancel_at_period_end: at that time

Every period a renewal invoice (``subscription_cycle``) is made, finalized and charged to the
subscription's default payment method (``send_invoice``: sent, due in ``days_until_due``).
There is no proration, no metered usage and no pause (**ours**: a subset); what the clock made
due is done before every write (``advance_due``), as expired authorizations are.
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime
from typing import Any

from ..errors import CardError, InvalidRequestError
from ..render import Row
from ..schemas.billing import SubscriptionCancel, SubscriptionCreate, SubscriptionUpdate
from . import customers, invoices
from .common import World, metadata, text

DAY = 86400
# How long an incomplete subscription waits for its first payment (Stripe: 23 hours).
INCOMPLETE_TTL = 23 * 3600
# The account's retry settings: after this long past due, a subscription is marked unpaid
# (Stripe's "Manage failed payments": retries for up to 2 weeks, then mark it unpaid).
RETRY_WINDOW = 14 * DAY
LIVE = ("incomplete", "trialing", "active", "past_due", "unpaid")
ENDED = ("canceled", "incomplete_expired")
# A renewal is attempted for these; an unpaid one waits for its open invoice.
RENEWING = ("trialing", "active", "past_due")
MAX_CATCH_UP = 24  # periods made due at once, at most (a clock moved years ahead)


def period_end(start: int, interval: str, count: int) -> int:
    """``start`` moved ``count`` intervals on (months keep their day, clamped: Jan 31 ->
    Feb 28)."""
    if interval in ("day", "week"):
        return start + count * (7 if interval == "week" else 1) * DAY
    moment = datetime.fromtimestamp(start, UTC)
    months = count * (12 if interval == "year" else 1)
    year, month = divmod(moment.month - 1 + months, 12)
    year += moment.year
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return int(moment.replace(year=year, month=month + 1, day=day).timestamp())


def unexpected(row: Row, action: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"You cannot {action} subscription {row['stripe_id']}: it is {row['status']}. A "
        "canceled subscription can only update its cancellation_details and metadata.",
        code="subscription_unexpected_state", param="subscription")


def _prices(w: World, body: SubscriptionCreate) -> list[Row]:
    prices: list[Row] = []
    for i, item in enumerate(body.items):
        param = f"items[{i}][price]"
        price = w.objects.row("prices", item.price, kind="price", param=param)
        if price["type"] != "recurring" or not price["active"]:
            raise InvalidRequestError(
                f"The price specified ({price['stripe_id']}) is "
                f"{'a one-time price' if price['active'] else 'inactive'}; a subscription "
                "takes active recurring prices.", code="parameter_invalid", param=param)
        first = prices[0] if prices else price
        if (price["currency"], price["recurring_interval"], price["recurring_interval_count"]
                ) != (first["currency"], first["recurring_interval"],
                      first["recurring_interval_count"]):
            raise InvalidRequestError(
                "The prices of a subscription must all have the same currency and billing "
                f"interval; {price['stripe_id']} differs.", code="parameter_invalid",
                param=param)
        prices.append(price)
    return prices


def create(w: World, body: SubscriptionCreate) -> tuple[Row, CardError | None]:
    customer = customers.live(w, body.customer, param="customer")
    prices = _prices(w, body)
    collection = body.collection_method or "charge_automatically"
    method = invoices.owned_method(w, body.default_payment_method, customer["stripe_id"],
                                   "default_payment_method")
    behavior = body.payment_behavior or "allow_incomplete"
    if collection == "send_invoice" and body.days_until_due is None:
        raise InvalidRequestError("Missing required param: days_until_due.",
                                  code="parameter_missing", param="days_until_due")
    if collection == "charge_automatically" and body.days_until_due is not None:
        raise InvalidRequestError("days_until_due is only for collection_method=send_invoice.",
                                  code="parameter_invalid", param="days_until_due")
    trial_end = (w.now + body.trial_period_days * DAY if body.trial_period_days
                 else None if body.trial_end in (None, "now") else int(body.trial_end))
    if trial_end is not None and trial_end <= w.now:
        raise InvalidRequestError("Invalid timestamp: must be an integer Unix timestamp in "
                                  "the future.", code="parameter_invalid", param="trial_end")
    first = prices[0]
    end = trial_end or period_end(w.now, first["recurring_interval"],
                                  first["recurring_interval_count"])
    row = w.create("subscriptions", {
        "customer": customer["stripe_id"], "status": "incomplete",
        "currency": first["currency"], "collection_method": collection,
        "days_until_due": body.days_until_due, "default_payment_method": method,
        "description": text(body.description), "current_period_start": w.now,
        "current_period_end": end, "billing_cycle_anchor": end if trial_end else w.now,
        "start_date": w.now, "trial_start": w.now if trial_end else None,
        "trial_end": trial_end, "cancel_at_period_end": int(bool(body.cancel_at_period_end)),
        "cancel_at": end if body.cancel_at_period_end else None,
        "metadata": metadata("{}", body.metadata)})
    for price, item in zip(prices, body.items, strict=True):
        w.create("subscription_items", {"subscription": row["stripe_id"],
                                        "price": price["stripe_id"],
                                        "quantity": item.quantity, "metadata": "{}"})
    if customer["currency"] is None:
        w.update("customers", customer, {"currency": first["currency"]})
    row, declined = _bill(w, row, "subscription_create", (w.now, end), free=bool(trial_end),
                          attempt=behavior != "default_incomplete")
    if declined is not None and behavior == "error_if_incomplete":
        raise declined  # nothing is kept: the request is refused
    if trial_end or collection == "send_invoice":  # nothing to collect before it starts
        row = w.update("subscriptions", row, {"status": "trialing" if trial_end else "active"})
    w.emit("customer.subscription.created", "subscriptions", row)
    return row, declined


def _bill(w: World, row: Row, reason: str, period: tuple[int, int], *, free: bool = False,
          attempt: bool = True) -> tuple[Row, CardError | None]:
    """The invoice of one period of ``row`` (nothing due in a trial), finalized and, when
    charged automatically, paid with its default payment method."""
    customer = w.objects.row("customers", row["customer"], kind="customer")
    send = row["collection_method"] == "send_invoice"
    draft = invoices.draft(
        w, customer, row["currency"], reason=reason, collection=row["collection_method"],
        due_date=period[0] + row["days_until_due"] * DAY if send else None,
        subscription=row["stripe_id"], period=period)
    for item in w.db.execute("SELECT * FROM subscription_items WHERE subscription = ? "
                             "ORDER BY id", (row["stripe_id"],)).fetchall():
        price = w.objects.row("prices", item["price"], kind="price")
        end = period_end(period[0], price["recurring_interval"],
                         price["recurring_interval_count"])
        invoices.add_line(w, w.objects.row("invoices", draft["stripe_id"], kind="invoice"),
                          0 if free else price["unit_amount"] * item["quantity"],
                          ("Trial period for " if free else "")
                          + invoices.describe(w, price, item["quantity"]), price=price,
                          quantity=item["quantity"], period=(period[0], end), item=item)
    row = w.update("subscriptions", row, {"latest_invoice": draft["stripe_id"]})
    invoice = invoices.finalize(w, w.objects.row("invoices", draft["stripe_id"],
                                                 kind="invoice"))
    declined = None
    if invoice["status"] == "open" and attempt and not send:
        invoice, declined = invoices.charge(w, invoice, row["default_payment_method"])
    return w.objects.row("subscriptions", row["stripe_id"], kind="subscription"), declined


def update(w: World, row: Row, body: SubscriptionUpdate) -> Row:
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    if body.cancellation_details is not None:
        values |= _details(body.cancellation_details)
    others = set(body.model_fields_set) - {"metadata", "cancellation_details", "expand"}
    if others and row["status"] in ENDED:
        raise unexpected(row, "update")
    if body.cancel_at_period_end is not None:
        values |= {"cancel_at_period_end": int(body.cancel_at_period_end),
                   "cancel_at": row["current_period_end"] if body.cancel_at_period_end
                   else None, "canceled_at": w.now if body.cancel_at_period_end else None}
    if "cancel_at" in body.model_fields_set:
        if body.cancel_at_period_end is not None:
            raise InvalidRequestError("You may only specify one of these parameters: "
                                      "cancel_at, cancel_at_period_end.",
                                      code="parameters_exclusive", param="cancel_at")
        at = None if body.cancel_at in ("", None) else int(body.cancel_at)
        if at is not None and at <= w.now:
            raise InvalidRequestError("Invalid timestamp: cancel_at must be in the future.",
                                      code="parameter_invalid", param="cancel_at")
        values |= {"cancel_at": at, "canceled_at": w.now if at else None,
                   "cancel_at_period_end": int(at == row["current_period_end"])}
    if "default_payment_method" in body.model_fields_set:
        values["default_payment_method"] = invoices.owned_method(
            w, body.default_payment_method or None, row["customer"], "default_payment_method")
    if "description" in body.model_fields_set:
        values["description"] = text(body.description)
    row = w.update("subscriptions", row, values)
    w.emit("customer.subscription.updated", "subscriptions", row)
    return row


def _details(details: Any) -> dict[str, Any]:
    return {f"cancellation_{name}": text(getattr(details, name))
            for name in ("comment", "feedback") if name in details.model_fields_set}


def cancel(w: World, row: Row, body: SubscriptionCancel) -> Row:
    """End it now (DELETE /v1/subscriptions/{id}): its open invoices stop being collected."""
    if row["status"] in ENDED:
        raise unexpected(row, "cancel")
    details = _details(body.cancellation_details) if body.cancellation_details else {}
    return _end(w, row, w.now, "cancellation_requested", canceled_at=w.now, **details)


def _end(w: World, row: Row, at: int, reason: str, **values: Any) -> Row:
    w.db.execute("UPDATE invoices SET auto_advance = 0 WHERE subscription = ? AND status = "
                 "'open'", (row["stripe_id"],))
    row = w.update("subscriptions", row, {
        "status": "canceled", "ended_at": at, "cancellation_reason": reason,
        "canceled_at": row["canceled_at"] or at, **values})
    w.emit("customer.subscription.deleted", "subscriptions", row)
    return row


def advance_due(w: World) -> None:
    """What the clock made due: incomplete subscriptions expire, cancellations take effect,
    periods renew (each billed), past-due ones whose retries ended become unpaid. Run before
    every write."""
    due = w.db.execute(
        "SELECT * FROM subscriptions WHERE status IN ('incomplete', 'trialing', 'active', "
        "'past_due', 'unpaid') AND (current_period_end <= ? OR cancel_at <= ? OR "
        "(status = 'incomplete' AND start_date <= ?) OR status = 'past_due') ORDER BY id",
        (w.now, w.now, w.now - INCOMPLETE_TTL)).fetchall()
    for row in due:
        _advance(w, row)


def _advance(w: World, row: Row) -> None:
    if row["status"] == "incomplete":
        if row["start_date"] <= w.now - INCOMPLETE_TTL:
            if row["latest_invoice"]:
                invoices.void(w, w.objects.row("invoices", row["latest_invoice"],
                                               kind="invoice"))
            row = w.update("subscriptions", row, {"status": "incomplete_expired",
                                                  "ended_at": w.now})
            w.emit("customer.subscription.updated", "subscriptions", row)
        return
    for _ in range(MAX_CATCH_UP):
        if row["cancel_at"] is not None and row["cancel_at"] <= min(
                w.now, row["current_period_end"]):
            _end(w, row, row["cancel_at"], "cancellation_requested")
            return
        if row["current_period_end"] > w.now or row["status"] not in RENEWING:
            break
        start = row["current_period_end"]
        item = w.db.execute("SELECT p.* FROM subscription_items i JOIN prices p ON "
                            "p.stripe_id = i.price WHERE i.subscription = ? ORDER BY i.id "
                            "LIMIT 1", (row["stripe_id"],)).fetchone()
        end = period_end(start, item["recurring_interval"], item["recurring_interval_count"])
        row = w.update("subscriptions", row, {
            "current_period_start": start, "current_period_end": end,
            "status": "active" if row["status"] == "trialing" else row["status"]})
        row, _ = _bill(w, row, "subscription_cycle", (start, end))
        w.emit("customer.subscription.updated", "subscriptions", row)
    if row["status"] == "past_due":
        oldest = w.db.execute("SELECT min(finalized_at) AS at FROM invoices WHERE "
                              "subscription = ? AND status = 'open'",
                              (row["stripe_id"],)).fetchone()["at"]
        if oldest is not None and oldest <= w.now - RETRY_WINDOW:
            row = w.update("subscriptions", row, {"status": "unpaid"})
            w.emit("customer.subscription.updated", "subscriptions", row)
