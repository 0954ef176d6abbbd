"""A customer's credit balance (docs.stripe.com/billing/customer/balance): every change is a
customer balance transaction, and ``customers.balance`` is their sum. Negative is credit the
customer has (applied to their next invoices), positive what they owe (added to it)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidRequestError, ResourceMissing
from ..render import Row
from ..schemas.billing import BalanceTransactionCreate, BalanceTransactionUpdate
from . import customers
from .common import World, currency, metadata, text


def record(w: World, customer: Row, amount: int, kind: str, *, description: str | None = None,
           invoice: str | None = None, credit_note: str | None = None,
           meta: str = "{}") -> Row:
    """Move ``customer``'s balance by ``amount`` (their currency), as a transaction of
    ``kind`` (adjustment, applied_to_invoice, credit_note, invoice_too_small, ...)."""
    ending = customer["balance"] + amount
    w.update("customers", customer, {"balance": ending})
    row = w.create("customer_balance_transactions", {
        "customer": customer["stripe_id"], "amount": amount, "currency": customer["currency"],
        "type": kind, "description": description, "ending_balance": ending,
        "invoice": invoice, "credit_note": credit_note, "metadata": meta})
    w.emit("customer_balance_transaction.created", "customer_balance_transactions", row)
    return row


def adjust(w: World, customer_id: str, body: BalanceTransactionCreate) -> Row:
    """An adjustment the merchant makes (POST .../balance_transactions): in the customer's
    currency, which it sets when they have none."""
    customer = customers.live(w, customer_id)
    code = currency(body.currency)
    if customer["currency"] is None:
        customer = w.update("customers", customer, {"currency": code})
    elif customer["currency"] != code:
        raise InvalidRequestError(
            f"The currency {code} does not match the customer's currency "
            f"({customer['currency']}): a customer's balance is in one currency.",
            code="parameter_invalid", param="currency")
    return record(w, customer, body.amount, "adjustment", description=text(body.description),
                  meta=metadata("{}", body.metadata))


def of(w: World, customer_id: str, transaction_id: str) -> Row:
    """The customer's transaction ``transaction_id`` (another customer's is missing)."""
    customers.live(w, customer_id)
    row = w.objects.row("customer_balance_transactions", transaction_id,
                        kind="customer_balance_transaction")
    if row["customer"] != customer_id:
        raise ResourceMissing("customer_balance_transaction", transaction_id)
    return row


def update(w: World, row: Row, body: BalanceTransactionUpdate) -> Row:
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    if "description" in body.model_fields_set:
        values["description"] = text(body.description)
    return w.update("customer_balance_transactions", row, values)
