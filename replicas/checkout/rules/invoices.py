"""Invoices (docs.stripe.com/invoicing/overview, docs.stripe.com/api/invoices): Stripe's
state machine.

    draft --finalize--> open --pay--> paid
    draft --delete--> (gone; a one-off draft only)
    open --void--> void;  open --mark_uncollectible--> uncollectible --pay--> paid | void

A draft is fully editable (lines, due date, payment method); a finalized invoice keeps its
amounts. Finalizing numbers it and applies the customer's balance (a credit lowers what is due,
a debt raises it: docs.stripe.com/billing/customer/balance); voiding gives that back. An
invoice with nothing left to pay is paid when finalized; one below the currency's minimum
charge is carried to the customer's balance (``invoice_too_small``). Paying charges a card
through a PaymentIntent (a decline is the 402 card error, the attempt counted, and a
subscription it bills goes ``past_due``). A transition the status does not allow is
``invoice_unexpected_state`` (**ours**: Stripe's message, which has no code), an edit of a
finalized invoice Stripe's ``invoice_not_editable``.
"""

from __future__ import annotations

from typing import Any

from workgym_core.money import format_money

from ..errors import CardError, InvalidRequestError
from ..render import Row, amount_due, applied_balance
from ..schemas.billing import InvoiceAddLines, InvoiceCreate, InvoicePay, InvoiceUpdate
from ..schemas.requests import PaymentIntentCreate
from . import customer_balance, customers, payment_intents, payment_methods
from .common import MINIMUM, World, currency, given, metadata, text

DAY = 86400
# The account's invoice numbers: its prefix, then a sequence across its invoices.
NUMBER_PREFIX = "CGS"
PAYABLE = ("open", "uncollectible")


def unexpected(row: Row, action: str, allowed: tuple[str, ...]) -> InvalidRequestError:
    return InvalidRequestError(
        f"You can only {action} {' or '.join(allowed)} invoices. This invoice "
        f"({row['stripe_id']}) is {row['status']}.", code="invoice_unexpected_state",
        param="invoice")


def _not_editable(row: Row, field: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"You can only modify {field} on draft invoices; invoice {row['stripe_id']} is "
        f"{row['status']}.", code="invoice_not_editable", param=field)


def owned_method(w: World, method_id: str | None, customer: str, param: str) -> str | None:
    """A card the customer has (attached to them), or None when none is given."""
    if not method_id:
        return None
    method = payment_methods.resolve(w, method_id, param=param)
    if method["customer"] != customer:
        raise InvalidRequestError(
            f"The PaymentMethod {method['stripe_id']} does not belong to the Customer "
            f"{customer}. Attach it to the customer first.", code="parameter_invalid",
            param=param)
    return str(method["stripe_id"])


def _due_date(w: World, collection: str, days: int | None, due: int | None) -> int | None:
    if collection != "send_invoice":
        if days is not None or due is not None:
            raise InvalidRequestError(
                "Invoices with collection_method=charge_automatically cannot have a due date.",
                code="parameter_invalid", param="days_until_due" if days is not None
                else "due_date")
        return None
    if due is None and days is None:
        raise InvalidRequestError("Missing required param: days_until_due. Invoices with "
                                  "collection_method=send_invoice need days_until_due or "
                                  "due_date.", code="parameter_missing",
                                  param="days_until_due")
    return due if due is not None else w.now + (days or 0) * DAY


def draft(w: World, customer: Row, code: str, *, reason: str, collection: str,
          due_date: int | None = None, method: str | None = None,
          subscription: str | None = None, period: tuple[int, int] | None = None,
          description: str | None = None, meta: str = "{}", auto_advance: bool = True) -> Row:
    """A new draft invoice of ``customer`` in ``code``, with no lines yet."""
    start, end = period or (w.now, w.now)
    row = w.create("invoices", {
        "customer": customer["stripe_id"], "subscription": subscription, "status": "draft",
        "billing_reason": reason, "collection_method": collection, "currency": code,
        "description": description, "due_date": due_date, "default_payment_method": method,
        "period_start": start, "period_end": end, "auto_advance": int(auto_advance),
        "subtotal": 0, "total": 0, "starting_balance": 0, "amount_paid": 0, "attempt_count": 0,
        "pre_payment_credit_notes_amount": 0, "post_payment_credit_notes_amount": 0,
        "metadata": meta})
    w.emit("invoice.created", "invoices", row)
    return row


def create(w: World, body: InvoiceCreate) -> Row:
    """A one-off draft (POST /v1/invoices): lines are added to it before it is finalized."""
    customer = customers.live(w, body.customer, param="customer")
    code = currency(body.currency or customer["currency"] or "usd")
    collection = body.collection_method or "charge_automatically"
    return draft(w, customer, code, reason="manual", collection=collection,
                 due_date=_due_date(w, collection, body.days_until_due, body.due_date),
                 method=owned_method(w, body.default_payment_method, customer["stripe_id"],
                                     "default_payment_method"),
                 description=text(body.description), meta=metadata("{}", body.metadata),
                 auto_advance=body.auto_advance is not False)


def add_line(w: World, invoice: Row, amount: int, description: str | None, *,
             price: Row | None = None, quantity: int | None = None,
             period: tuple[int, int] | None = None, item: Row | None = None,
             meta: str = "{}") -> Row:
    """A line of a draft, and the draft's totals again."""
    start, end = period or (invoice["period_start"], invoice["period_end"])
    line = w.create("invoice_lines", {
        "invoice": invoice["stripe_id"], "amount": amount, "currency": invoice["currency"],
        "description": description, "quantity": quantity,
        "price": price["stripe_id"] if price else None,
        "subscription": item["subscription"] if item else None,
        "subscription_item": item["stripe_id"] if item else None, "period_start": start,
        "period_end": end, "metadata": meta})
    total = w.db.execute("SELECT coalesce(sum(amount), 0) AS n FROM invoice_lines WHERE "
                         "invoice = ?", (invoice["stripe_id"],)).fetchone()["n"]
    w.update("invoices", invoice, {"subtotal": total, "total": total})
    return line


def describe(w: World, price: Row, quantity: int) -> str:
    return line_description(w.objects.row("products", price["product"], kind="product")[
        "name"], price, quantity)


def line_description(name: str, price: Row, quantity: int) -> str:
    """Stripe's line description: '1 × Bean Club Monthly Subscription (at $18.00 / month)'."""
    per = f" / {price['recurring_interval']}" if price["recurring_interval"] else ""
    return (f"{quantity} × {name} (at "
            f"{format_money(price['unit_amount'], price['currency'])}{per})")


def add_lines(w: World, row: Row, body: InvoiceAddLines) -> Row:
    if row["status"] != "draft":
        raise _not_editable(row, "lines")
    for i, given_line in enumerate(body.lines):
        period = (given_line.period.start, given_line.period.end) if given_line.period else None
        meta = metadata("{}", given_line.metadata)
        if given_line.pricing is not None:
            price = w.objects.row("prices", given_line.pricing.price, kind="price",
                                  param=f"lines[{i}][pricing][price]")
            if price["currency"] != row["currency"]:
                raise InvalidRequestError(
                    f"The price {price['stripe_id']} is in {price['currency']}; this invoice "
                    f"is in {row['currency']}.", code="parameter_invalid",
                    param=f"lines[{i}][pricing][price]")
            quantity = given_line.quantity or 1
            add_line(w, row, price["unit_amount"] * quantity,
                     text(given_line.description) or describe(w, price, quantity),
                     price=price, quantity=quantity, period=period, meta=meta)
        elif given_line.amount is not None:
            add_line(w, row, given_line.amount, text(given_line.description),
                     quantity=given_line.quantity, period=period, meta=meta)
        else:
            raise InvalidRequestError(f"Missing required param: lines[{i}][amount].",
                                      code="parameter_missing", param=f"lines[{i}][amount]")
    values = {"metadata": metadata(row["metadata"], body.invoice_metadata)}
    return w.update("invoices", w.objects.row("invoices", row["stripe_id"], kind="invoice"),
                    values)


def update(w: World, row: Row, body: InvoiceUpdate) -> Row:
    changes = given(body, "days_until_due", "due_date")
    if changes and row["status"] != "draft":
        raise _not_editable(row, next(iter(changes)))
    if row["status"] in ("paid", "void") and "default_payment_method" in body.model_fields_set:
        raise _not_editable(row, "default_payment_method")
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    values |= {k: text(v) for k, v in given(body, "description").items()}
    if changes:
        values["due_date"] = _due_date(w, row["collection_method"], body.days_until_due,
                                       body.due_date)
    if "default_payment_method" in body.model_fields_set:
        values["default_payment_method"] = owned_method(
            w, body.default_payment_method or None, row["customer"], "default_payment_method")
    if body.auto_advance is not None:
        values["auto_advance"] = int(body.auto_advance)
    row = w.update("invoices", row, values)
    w.emit("invoice.updated", "invoices", row)
    return row


def delete(w: World, row: Row) -> Row:
    """A one-off draft, gone (a subscription's drafts and finalized invoices are voided)."""
    if row["status"] != "draft" or row["subscription"]:
        raise InvalidRequestError(
            f"You can only delete draft invoices that are not for a subscription: invoice "
            f"{row['stripe_id']} is {row['status']}. Void it instead.",
            code="invoice_unexpected_state", param="invoice")
    w.emit("invoice.deleted", "invoices", row)
    w.db.execute("DELETE FROM invoice_lines WHERE invoice = ?", (row["stripe_id"],))
    w.db.execute("DELETE FROM invoices WHERE id = ?", (row["id"],))
    return {"id": row["stripe_id"], "object": "invoice", "deleted": True}


def finalize(w: World, row: Row, auto_advance: bool | None = None) -> Row:
    """Number it, apply the customer's balance, open it (paid at once when nothing is due)."""
    if row["status"] != "draft":
        raise unexpected(row, "finalize", ("draft",))
    customer = w.objects.row("customers", row["customer"], kind="customer")
    starting = customer["balance"] if customer["currency"] == row["currency"] else 0
    # A credit (negative) covers at most what is due; a debt is all added to it.
    applied = max(starting, -(row["total"] - row["pre_payment_credit_notes_amount"])) \
        if starting < 0 else starting
    if applied:
        customer_balance.record(w, customer, -applied, "applied_to_invoice",
                                invoice=row["stripe_id"])
    sequence = w.db.execute("SELECT count(*) AS n FROM invoices WHERE number IS NOT NULL"
                            ).fetchone()["n"] + 1
    values: dict[str, Any] = {
        "status": "open", "number": f"{NUMBER_PREFIX}-{sequence:04d}", "finalized_at": w.now,
        "starting_balance": starting, "ending_balance": starting - applied}
    if auto_advance is not None:
        values["auto_advance"] = int(auto_advance)
    row = w.update("invoices", row, values)
    w.emit("invoice.finalized", "invoices", row)
    if amount_due(row) == 0:
        row = settle(w, row)
    return row


def remaining(row: Row) -> int:
    """What is left to pay of an open invoice."""
    return amount_due(row) - int(row["amount_paid"])


def settle(w: World, row: Row, amount: int = 0) -> Row:
    """Mark ``row`` paid (``amount``: what this payment added); its subscription is whole
    again."""
    row = w.update("invoices", row, {"status": "paid", "amount_paid": row["amount_paid"] + amount,
                                     "paid_at": w.now})
    w.emit("invoice.paid", "invoices", row)
    if row["subscription"]:
        sub = w.objects.row("subscriptions", row["subscription"], kind="subscription")
        if sub["status"] in ("incomplete", "past_due", "unpaid"):
            sub = w.update("subscriptions", sub, {"status": "active"})
            w.emit("customer.subscription.updated", "subscriptions", sub)
    return row


def _failed(w: World, row: Row) -> None:
    w.emit("invoice.payment_failed", "invoices", row)
    if row["subscription"]:
        sub = w.objects.row("subscriptions", row["subscription"], kind="subscription")
        if sub["status"] in ("active", "trialing"):
            sub = w.update("subscriptions", sub, {"status": "past_due"})
            w.emit("customer.subscription.updated", "subscriptions", sub)


def _method_of(row: Row, w: World) -> str | None:
    """The card an invoice is charged to: its own, else its subscription's."""
    method = row["default_payment_method"]
    if method is None and row["subscription"]:
        method = w.objects.row("subscriptions", row["subscription"],
                               kind="subscription")["default_payment_method"]
    return None if method is None else str(method)


def pay(w: World, row: Row, body: InvoicePay) -> tuple[Row, CardError | None]:
    """Collect what is left: out of band, or by charging a card (a draft is finalized
    first, as Stripe does)."""
    if row["status"] == "draft":
        row = finalize(w, row)
    if row["status"] not in PAYABLE:
        raise unexpected(row, "pay", PAYABLE)
    left = remaining(row)
    if body.paid_out_of_band:
        return settle(w, w.update("invoices", row, {"auto_advance": 0}), left), None
    return charge(w, row, owned_method(w, body.payment_method, row["customer"],
                                       "payment_method") or _method_of(row, w))


def charge(w: World, row: Row, method: str | None) -> tuple[Row, CardError | None]:
    """One payment attempt of an open invoice with ``method``."""
    left = remaining(row)
    if left < MINIMUM[row["currency"]]:  # carried to the customer's next invoice
        customer = w.objects.row("customers", row["customer"], kind="customer")
        customer_balance.record(w, customer, left, "invoice_too_small", invoice=row["stripe_id"])
        return settle(w, row), None
    if method is None:
        raise InvalidRequestError(
            "This customer has no attached payment source or default payment method. Pass "
            "payment_method, or set the invoice's default_payment_method.",
            code="parameter_missing", param="payment_method")
    intent, declined = payment_intents.create(w, PaymentIntentCreate.model_validate({
        "amount": left, "currency": row["currency"], "customer": row["customer"],
        "payment_method": method, "confirm": True,
        "description": f"Payment for Invoice {row['number']}"}))
    row = w.update("invoices", row, {"attempt_count": row["attempt_count"] + 1,
                                     "payment_intent": intent["stripe_id"]})
    if intent["status"] == "succeeded":
        return settle(w, row, left), None
    _failed(w, row)
    return row, declined or CardError(
        "This payment requires additional user action before it can be completed "
        "successfully.", code="invoice_payment_intent_requires_action",
        payment_intent=w.objects.render("payment_intents", intent))


def void(w: World, row: Row) -> Row:
    """Void an open or uncollectible invoice; the customer's balance it used comes back."""
    if row["status"] not in PAYABLE:
        raise unexpected(row, "void", PAYABLE)
    applied = applied_balance(row)
    if applied and row["amount_paid"] == 0:
        customer = w.objects.row("customers", row["customer"], kind="customer")
        customer_balance.record(w, customer, applied, "unapplied_from_invoice",
                       invoice=row["stripe_id"])
    row = w.update("invoices", row, {"status": "void", "voided_at": w.now})
    w.emit("invoice.voided", "invoices", row)
    return row


def mark_uncollectible(w: World, row: Row) -> Row:
    if row["status"] != "open":
        raise unexpected(row, "mark uncollectible", ("open",))
    row = w.update("invoices", row, {"status": "uncollectible",
                                     "marked_uncollectible_at": w.now})
    w.emit("invoice.marked_uncollectible", "invoices", row)
    return row
