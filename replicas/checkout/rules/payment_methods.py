"""PaymentMethods: cards made from a number or one of Stripe's test PaymentMethods
(``pm_card_visa``: each use makes a new PaymentMethod of that card, as Stripe's do), attached
to and detached from customers."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from ..cards import BY_NAME, BY_NUMBER, LIVE, TestCard, brand_of, luhn
from ..errors import CardError, InvalidRequestError
from ..render import Row
from ..schemas.requests import BillingDetails, CardDetails
from .common import World, metadata

TEST_PREFIX = "pm_card_"


def _card_row(w: World, test: TestCard, number: str, exp_month: int, exp_year: int,
              billing: BillingDetails | None, meta: Any) -> Row:
    return w.create("payment_methods", {
        "type": "card", "customer": None, "brand": test.brand if test.name != LIVE
        else brand_of(number), "last4": number[-4:], "exp_month": exp_month,
        "exp_year": exp_year, "funding": test.funding, "country": test.country,
        "fingerprint": hashlib.sha256(number.encode()).hexdigest()[:16],
        "test_card": test.name, "billing_name": billing.name if billing else None,
        "billing_email": billing.email if billing else None,
        "metadata": metadata("{}", meta)})


def from_card(w: World, card: CardDetails, billing: BillingDetails | None = None,
              meta: Any = None, *, param: str = "card") -> Row:
    """A new card PaymentMethod from a card number (Stripe's checks: the number's Luhn digit,
    an expiry in the past)."""
    number = card.number.replace(" ", "")
    if not luhn(number):
        raise CardError("Your card number is incorrect.", code="incorrect_number",
                        param=f"{param}[number]")
    today = datetime.fromtimestamp(w.now, UTC)
    if (card.exp_year, card.exp_month) < (today.year, today.month):
        raise CardError("Your card's expiration year is invalid.", code="invalid_expiry_year",
                        param=f"{param}[exp_year]")
    test = BY_NUMBER.get(number) or TestCard(LIVE, number, brand_of(number))
    return _card_row(w, test, number, card.exp_month, card.exp_year, billing, meta)


def resolve(w: World, object_id: str, *, param: str = "payment_method") -> Row:
    """The PaymentMethod ``object_id`` names: one of the account's, or a new one of a test
    PaymentMethod's card."""
    if object_id.startswith(TEST_PREFIX):
        test = BY_NAME.get(object_id.removeprefix(TEST_PREFIX))
        if test is None:
            raise InvalidRequestError(f"No such PaymentMethod: '{object_id}'",
                                      code="resource_missing", param=param)
        year = datetime.fromtimestamp(w.now, UTC).year
        return _card_row(w, test, test.number, 12, year + 3, None, None)
    return w.objects.row("payment_methods", object_id, kind="PaymentMethod", param=param)


def attach(w: World, method: Row, customer_id: str) -> Row:
    customer = w.objects.row("customers", customer_id, kind="customer", param="customer")
    if customer["deleted"]:
        raise InvalidRequestError(f"No such customer: '{customer_id}'",
                                  code="resource_missing", param="customer")
    if method["customer"] not in (None, customer_id):
        raise InvalidRequestError(
            "The payment method you provided has already been attached to a customer.",
            code="payment_method_unexpected_state", param="payment_method")
    row = w.update("payment_methods", method, {"customer": customer_id})
    w.emit("payment_method.attached", "payment_methods", row)
    return row


def detach(w: World, method: Row) -> Row:
    if method["customer"] is None:
        raise InvalidRequestError(
            "The payment method you provided is not attached to a customer so detachment is "
            "impossible.", code="payment_method_unexpected_state", param="payment_method")
    row = w.update("payment_methods", method, {"customer": None})
    w.emit("payment_method.detached", "payment_methods", row)
    return row


def update(w: World, method: Row, billing: BillingDetails | None, meta: Any) -> Row:
    values: dict[str, Any] = {"metadata": metadata(method["metadata"], meta)}
    if billing is not None:
        values |= {f"billing_{k}": v for k, v in billing.model_dump(exclude_unset=True).items()}
    row = w.update("payment_methods", method, values)
    w.emit("payment_method.updated", "payment_methods", row)
    return row
