"""Checkout Sessions in payment mode (docs.stripe.com/api/checkout/sessions): the shop's
hosted checkout page.

    open --(the customer pays: complete)--> complete (payment_status paid, or
            no_payment_required when the discount covers it all)
    open --(expire, or 24 hours by default: expires_at)--> expired

The PaymentIntent is made when the customer first tries to pay, and kept across attempts: a
declined card leaves the session open with it in requires_payment_method, a card asking for
3-D Secure in requires_action (its challenge returns the browser to the checkout page, which
completes the session once the payment succeeded). Expiring a session cancels a PaymentIntent
it made. The discount (a coupon or promotion code given when it is made, or a promotion code
the customer enters when ``allow_promotion_codes``) is spread over the line items; completing
redeems it, checked again then.

What the checkout page (``pages/``) calls: :func:`apply_promotion_code` (the code the customer
typed) and :func:`complete` (the card they gave); both refuse a session that is not open.
"""

from __future__ import annotations

from datetime import timedelta

import orjson

from replicas.runtime import db as sql

from ..discounts import CODE_REFUSED, allocate, discount
from ..errors import CardError, InvalidRequestError
from ..render import CHECKOUT_PAGE, Row
from ..schemas.requests import (
    PaymentIntentCreate,
    PaymentIntentUpdate,
    PaymentMethodData,
    SessionCreate,
)
from . import coupons, customers
from . import payment_intents as intents
from .common import World, exclusive, metadata, text

TTL = int(timedelta(hours=24).total_seconds())
SHORTEST = int(timedelta(minutes=30).total_seconds())
# Ours: Stripe leaves the code of a refused Checkout Session transition undocumented.
UNEXPECTED_STATE = "checkout_session_unexpected_state"


def _missing(message: str, param: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="parameter_missing", param=param)


def _line(w: World, i: int, price_id: str, quantity: int | None) -> tuple[Row, Row, int]:
    """Line item ``i``: its price, product and quantity, if the session may sell it."""
    param = f"line_items[{i}][price]"
    price = w.objects.row("prices", price_id, kind="price", param=param)
    product = w.objects.row("products", price["product"], kind="product")
    if not price["active"] or not product["active"]:
        raise InvalidRequestError(f"The price {price_id} is not active: only active prices of "
                                  "active products can be bought.", code="parameter_invalid",
                                  param=param)
    if price["type"] == "recurring":
        raise InvalidRequestError(
            "You specified `payment` mode but passed a recurring price. Either switch to "
            "`subscription` mode or use only one-time prices.", code="parameter_invalid",
            param=param)
    if quantity is None:
        raise _missing(f"Quantity is required. Add `quantity` to `line_items[{i}]`.",
                       f"line_items[{i}][quantity]")
    return price, product, quantity


def create(w: World, body: SessionCreate) -> Row:
    if not body.line_items:
        raise _missing("Missing required param: line_items.", "line_items")
    if body.customer and body.customer_email:
        raise exclusive("customer", "customer_email")
    if body.allow_promotion_codes and body.discounts:
        raise exclusive("allow_promotion_codes", "discounts")
    if body.customer:
        customers.live(w, body.customer, param="customer")  # a deleted one cannot pay
    lines = [_line(w, i, item.price, item.quantity) for i, item in enumerate(body.line_items)]
    money = lines[0][0]["currency"]
    for i, (price, _, _) in enumerate(lines):
        if price["currency"] != money:
            raise InvalidRequestError(
                f"All line items must be in one currency: line_items[0] is in {money}, "
                f"line_items[{i}] in {price['currency']}.", code="parameter_invalid",
                param=f"line_items[{i}][price]")
    expires = TTL if body.expires_at is None else body.expires_at - w.now
    if not SHORTEST <= expires <= TTL:
        raise InvalidRequestError("The `expires_at` timestamp must be between 30 minutes and "
                                  "24 hours after the Checkout Session is created.",
                                  code="parameter_invalid", param="expires_at")
    subtotal = sum(price["unit_amount"] * quantity for price, _, quantity in lines)
    intent = body.payment_intent_data
    row = w.create("checkout_sessions", {
        "status": "open", "payment_status": "unpaid", "mode": body.mode,
        "customer": body.customer, "customer_email": text(body.customer_email),
        "details_email": None, "details_name": None, "currency": money,
        "amount_subtotal": subtotal, "amount_discount": 0, "amount_shipping": 0,
        "amount_total": subtotal,
        "allow_promotion_codes": int(bool(body.allow_promotion_codes)), "coupon": None,
        "promotion_code": None, "payment_intent": None,
        "intent_description": text(intent.description) if intent else None,
        "intent_metadata": metadata("{}", intent.metadata if intent else None),
        "client_reference_id": text(body.client_reference_id),
        "success_url": text(body.success_url), "cancel_url": text(body.cancel_url),
        "expires_at": w.now + expires, "metadata": metadata("{}", body.metadata)})
    for price, product, quantity in lines:
        amount = price["unit_amount"] * quantity
        w.create("checkout_line_items", {
            "session": row["stripe_id"], "price": price["stripe_id"],
            "description": product["name"], "quantity": quantity, "currency": money,
            "amount_subtotal": amount, "amount_discount": 0, "amount_total": amount})
    if body.discounts:
        row = _given_discount(w, row, body.discounts[0].coupon,
                              body.discounts[0].promotion_code)
    return row


def _given_discount(w: World, row: Row, coupon_id: str | None, code_id: str | None) -> Row:
    if coupon_id and code_id:
        raise exclusive("discounts[0][coupon]", "discounts[0][promotion_code]")
    if code_id:
        param = "discounts[0][promotion_code]"
        code = w.objects.row("promotion_codes", code_id, kind="promotion code", param=param)
        return _discounted(w, row, _code_coupon(w, row, code, param=param), code)
    if not coupon_id:
        raise _missing("Missing required param: discounts[0][coupon] or "
                       "discounts[0][promotion_code].", "discounts[0][coupon]")
    coupon = coupons.live_coupon(w, coupon_id, param="discounts[0][coupon]")
    coupons.redeemable_coupon(w, coupon, money=row["currency"], param="discounts[0][coupon]")
    return _discounted(w, row, coupon, None)


def _code_coupon(w: World, row: Row, code: Row, *, param: str,
                 email: str | None = None) -> Row:
    return coupons.redeemable_code(
        w, code, customer=row["customer"],
        email=email or row["customer_email"] or row["details_email"], money=row["currency"],
        subtotal=row["amount_subtotal"], param=param)


def _discounted(w: World, row: Row, coupon: Row, code: Row | None) -> Row:
    """``row`` with ``coupon``'s discount (through ``code``) spread over its line items."""
    items = sql.rows(w.db, "SELECT * FROM checkout_line_items WHERE session = ? ORDER BY id",
                     (row["stripe_id"],))
    off = discount(coupon, row["amount_subtotal"])
    for item, part in zip(items, allocate(off, [i["amount_subtotal"] for i in items]),
                          strict=True):
        w.update("checkout_line_items", item, {"amount_discount": part,
                                               "amount_total": item["amount_subtotal"] - part})
    return w.update("checkout_sessions", row, {
        "coupon": coupon["stripe_id"], "promotion_code": code["stripe_id"] if code else None,
        "amount_discount": off,
        "amount_total": row["amount_subtotal"] - off + row["amount_shipping"]})


def _open(w: World, row: Row, action: str) -> None:
    if row["status"] != "open" or w.now >= row["expires_at"]:
        status = row["status"] if row["status"] != "open" else "expired"
        raise InvalidRequestError(
            f"You cannot {action} this Checkout Session because it has a status of {status}. "
            "Only an open Checkout Session can be.", code=UNEXPECTED_STATE)


def apply_promotion_code(w: World, row: Row, *, code: str, email: str | None = None) -> Row:
    """The promotion code the customer typed on the page (any case), applied to an open
    session that allows them (replacing a code applied before); refused, saying why, if it
    cannot be redeemed for this purchase (``email``: the one the customer entered)."""
    _open(w, row, "apply a promotion code to")
    if row["payment_intent"] and w.objects.row("payment_intents", row["payment_intent"],
                                               kind="payment_intent")["status"] != (
            "requires_payment_method"):
        raise InvalidRequestError("This Checkout Session's payment is under way (3-D Secure): "
                                  "its amount cannot change now.", code=UNEXPECTED_STATE)
    if not row["allow_promotion_codes"]:
        raise InvalidRequestError("This Checkout Session does not accept promotion codes "
                                  "(allow_promotion_codes was not set).",
                                  code=CODE_REFUSED, param="promotion_code")
    found = coupons.by_code(w, code)
    return _discounted(w, row, _code_coupon(w, row, found, param="promotion_code", email=email),
                       found)


def _applied(w: World, row: Row, email: str | None) -> tuple[Row | None, Row | None]:
    """The session's coupon and promotion code, checked again: still redeemable now."""
    if row["promotion_code"]:
        code = w.objects.row("promotion_codes", row["promotion_code"], kind="promotion code")
        return _code_coupon(w, row, code, param="promotion_code", email=email), code
    if row["coupon"]:
        coupon = w.objects.row("coupons", row["coupon"], kind="coupon")
        coupons.redeemable_coupon(w, coupon, money=row["currency"], param="coupon")
        return coupon, None
    return None, None


def _intent(w: World, row: Row, email: str | None, payment_method: str | None,
            data: PaymentMethodData | None) -> tuple[Row, CardError | None]:
    """Pay the session's total: its PaymentIntent made (or, after a failed attempt, given
    the total and the new card) and confirmed."""
    back = CHECKOUT_PAGE.format(session=row["stripe_id"])
    if row["payment_intent"] is None:
        found = intents.create(w, PaymentIntentCreate(
            amount=row["amount_total"], currency=row["currency"], customer=row["customer"],
            payment_method=payment_method, payment_method_data=data, confirm=True,
            payment_method_types=["card"],
            description=row["intent_description"], receipt_email=email, return_url=back,
            metadata=orjson.loads(row["intent_metadata"])))
        w.update("checkout_sessions", row, {"payment_intent": found[0]["stripe_id"]})
        return found
    intent = w.objects.row("payment_intents", row["payment_intent"], kind="payment_intent")
    if intent["status"] in ("succeeded", "requires_action"):
        return intent, None
    if intent["amount"] != row["amount_total"]:
        intent = intents.update(w, intent, PaymentIntentUpdate(amount=row["amount_total"]))
    return intents.confirm(w, intent, payment_method=payment_method,
                           payment_method_data=data, return_url=back, receipt_email=email)


def complete(w: World, row: Row, *, payment_method: str | None = None,
             payment_method_data: PaymentMethodData | None = None, email: str | None = None,
             name: str | None = None) -> tuple[Row, CardError | None]:
    """The customer pays an open session with a card (``payment_method``: a PaymentMethod
    or a test one such as ``pm_card_visa``; or ``payment_method_data``), as ``email`` and
    ``name``. Returns the session and, if the card was declined, the card error to show (the
    attempt is written all the same: return it, do not raise it). The session is complete
    once its PaymentIntent succeeded; while it waits for 3-D Secure it stays open (its
    PaymentIntent's ``next_action`` has the challenge; call again once it is answered)."""
    _open(w, row, "complete")
    email = email or row["customer_email"] or _customer_email(w, row["customer"])
    coupon, code = _applied(w, row, email)
    paid = None
    if row["amount_total"] > 0:
        intent, declined = _intent(w, row, email, payment_method, payment_method_data)
        row = w.objects.row("checkout_sessions", row["stripe_id"], kind="checkout session")
        if declined is not None or intent["status"] != "succeeded":
            return row, declined
        paid = intent["stripe_id"]
    row = w.update("checkout_sessions", row, {
        "status": "complete", "payment_intent": paid or row["payment_intent"],
        "payment_status": "paid" if paid else "no_payment_required",
        "details_email": email, "details_name": text(name)})
    if coupon is not None:
        coupons.redeem(w, coupon, code)
    w.emit("checkout.session.completed", "checkout_sessions", row)
    return row, None


def _customer_email(w: World, customer: str | None) -> str | None:
    if customer is None:
        return None
    found: str | None = w.objects.row("customers", customer, kind="customer")["email"]
    return found


def expire(w: World, row: Row) -> Row:
    """Expire an open session (Stripe's ``expire``): the customer can no longer pay it."""
    _open(w, row, "expire")
    return _expire(w, row)


def _expire(w: World, row: Row) -> Row:
    if row["payment_intent"]:
        intent = w.objects.row("payment_intents", row["payment_intent"], kind="payment_intent")
        if intent["status"] in intents.CANCELABLE:
            intents.cancel(w, intent, reason="abandoned")
    row = w.update("checkout_sessions", row, {"status": "expired"})
    w.emit("checkout.session.expired", "checkout_sessions", row)
    return row


def expire_due(w: World) -> None:
    """Open sessions past their ``expires_at`` expire. Run before every write."""
    for row in w.db.execute("SELECT * FROM checkout_sessions WHERE status = 'open' AND "
                            "expires_at <= ? ORDER BY id", (w.now,)).fetchall():
        _expire(w, row)

