"""PaymentIntents: Stripe's state machine (docs.stripe.com/payments/paymentintents/lifecycle).

    requires_payment_method --(payment method)--> requires_confirmation --confirm-->
      requires_action (3-D Secure: the customer completes or fails the challenge) -->
      requires_capture (capture_method=manual; capture, or the authorization expires after
      7 days: canceled) | succeeded;
    a decline returns it to requires_payment_method with last_payment_error;
    cancel from requires_payment_method, requires_confirmation, requires_action,
    requires_capture. succeeded and canceled are final; processing (asynchronous payment
    methods, none of which this replica has yet) refuses every transition.

A transition the state does not allow is refused with ``payment_intent_unexpected_state``. A
declined payment is an outcome, not a failed request: its charge, the intent's new state and
its events are written, and the 402 card error naming them is the answer (it is returned,
not raised, so the transaction commits).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..cards import AUTHENTICATION_FAILED, Decline, card
from ..errors import CardError, InvalidRequestError
from ..ids import token
from ..render import Row
from ..schemas.requests import PaymentIntentCreate, PaymentIntentUpdate, PaymentMethodData
from . import customers, funds, payment_methods
from .common import World, charge_amount, currency, dumps, given, metadata, text

AUTHORIZATION_TTL = int(timedelta(days=7).total_seconds())
CONFIRMABLE = ("requires_payment_method", "requires_confirmation", "requires_action")
CANCELABLE = (*CONFIRMABLE, "requires_capture")
# What may change only before the payment is attempted.
PAYMENT_FIELDS = ("amount", "currency", "customer", "payment_method", "capture_method")


_DONE = {"confirm": "confirmed", "capture": "captured", "cancel": "canceled",
         "authenticate": "authenticated"}


def unexpected_state(w: World, action: str, row: Row,
                     allowed: tuple[str, ...]) -> InvalidRequestError:
    """Stripe's refusal of a transition the intent's status does not allow (the intent as it
    is, in the error)."""
    return InvalidRequestError(
        f"You cannot {action} this PaymentIntent because it has a status of {row['status']}. "
        f"Only a PaymentIntent with one of the following statuses may be {_DONE[action]}: "
        f"{', '.join(allowed)}.", code="payment_intent_unexpected_state",
        payment_intent=w.objects.render("payment_intents", row))


def _customer(w: World, customer_id: str | None) -> str | None:
    if customer_id:
        customers.live(w, customer_id, param="customer")
    return customer_id or None


def _method(w: World, method_id: str | None, data: PaymentMethodData | None) -> Row | None:
    if data is not None:
        return payment_methods.from_card(w, data.card, data.billing_details, data.metadata,
                                         param="payment_method_data[card]")
    return payment_methods.resolve(w, method_id) if method_id else None


def _owned(w: World, method: Row | None, customer: str | None,
          intent: Row | None = None) -> None:
    """A saved card (a PaymentMethod attached to a customer) pays for that customer only:
    refused, as Stripe refuses it, for another customer or for no customer (the intent, once
    it exists, in the error)."""
    if method is None or method["customer"] in (None, customer):
        return
    shown = w.objects.render("payment_intents", intent) if intent else None
    if customer is None:  # Stripe's own code and param for this one
        raise InvalidRequestError(
            f"The `payment_method` parameter supplied {method['stripe_id']} belongs to the "
            f"Customer {method['customer']}. Please include the Customer in the `customer` "
            "parameter on the PaymentIntent.", code="parameter_missing", param="source",
            payment_intent=shown)
    raise InvalidRequestError(
        f"The PaymentMethod {method['stripe_id']} does not belong to the Customer you "
        f"supplied {customer}. Please use this PaymentMethod with the Customer that it "
        "belongs to instead.", param="payment_method", payment_intent=shown)


def _no_method() -> InvalidRequestError:
    return InvalidRequestError(
        "You cannot confirm this PaymentIntent because it's missing a payment method. To "
        "confirm it, update it with a payment method or pass one to confirm.",
        code="payment_intent_unexpected_state", param="payment_method")


def _automatic(body: PaymentIntentCreate) -> str | None:
    """``automatic_payment_methods[allow_redirects]`` when they are on, else None: on by
    default unless ``payment_method_types`` is given (Stripe's default since API version
    2023-08-16), never with it."""
    given_ = body.automatic_payment_methods
    if given_ is None:
        return "always" if body.payment_method_types is None else None
    if given_.enabled and body.payment_method_types is not None:
        raise InvalidRequestError("You may only specify one of these parameters: "
                                  "automatic_payment_methods, payment_method_types.",
                                  code="parameters_exclusive",
                                  param="automatic_payment_methods")
    return (given_.allow_redirects or "always") if given_.enabled else None


def create(w: World, body: PaymentIntentCreate) -> tuple[Row, CardError | None]:
    automatic = _automatic(body)
    code = currency(body.currency)
    charge_amount(body.amount, code)
    customer = _customer(w, body.customer)
    method = _method(w, body.payment_method, body.payment_method_data)
    _owned(w, method, customer)
    if body.confirm and method is None:
        raise _no_method()
    row = w.create("payment_intents", {
        "amount": body.amount, "currency": code,
        "status": "requires_confirmation" if method else "requires_payment_method",
        "customer": customer, "payment_method": method["stripe_id"] if method else None,
        "capture_method": body.capture_method or "automatic",
        "automatic_payment_methods": automatic, "amount_capturable": 0,
        "amount_received": 0, "description": text(body.description),
        "receipt_email": text(body.receipt_email), "return_url": text(body.return_url),
        "client_secret": "", "metadata": metadata("{}", body.metadata)})
    secret = token(random.Random(f"secret:{w.seed}:{row['stripe_id']}"), 25)
    row = w.update("payment_intents", row, {
        "client_secret": f"{row['stripe_id']}_secret_{secret}"})
    w.emit("payment_intent.created", "payment_intents", row)
    if body.confirm:
        return _attempt(w, row)
    return row, None


def update(w: World, row: Row, body: PaymentIntentUpdate) -> Row:
    changes = {k: v for k, v in given(body, *PAYMENT_FIELDS).items() if v is not None}
    if changes and row["status"] not in CONFIRMABLE:
        field = next(iter(changes))
        raise InvalidRequestError(
            f"This PaymentIntent's {field} could not be updated because it has a status of "
            f"{row['status']}. You may only update the {field} of a PaymentIntent with one of "
            f"the following statuses: {', '.join(CONFIRMABLE)}.",
            code="payment_intent_unexpected_state", param=field)
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    values |= {k: text(v) for k, v in given(body, "description", "receipt_email").items()}
    if "currency" in changes:
        values["currency"] = currency(changes["currency"])
    if "amount" in changes:
        values["amount"] = changes["amount"]
    if "amount" in changes or "currency" in changes:
        merged = {**row, **values}
        charge_amount(merged["amount"], merged["currency"])
    if "customer" in changes:
        values["customer"] = _customer(w, changes["customer"])
    if "capture_method" in changes:
        values["capture_method"] = changes["capture_method"]
    method = None
    if changes.get("payment_method"):
        method = payment_methods.resolve(w, changes["payment_method"])
        values["payment_method"] = method["stripe_id"]
    elif "customer" in values and row["payment_method"]:
        method = w.objects.row("payment_methods", row["payment_method"], kind="PaymentMethod")
    _owned(w, method, values.get("customer", row["customer"]), row)
    if changes:  # the payment must be confirmed again
        has_method = values.get("payment_method", row["payment_method"])
        values |= {"status": "requires_confirmation" if has_method
                   else "requires_payment_method", "next_action": None}
    return w.update("payment_intents", row, values)


def confirm(w: World, row: Row, *, payment_method: str | None,
            payment_method_data: PaymentMethodData | None, return_url: str | None,
            receipt_email: str | None) -> tuple[Row, CardError | None]:
    if row["status"] not in CONFIRMABLE:
        raise unexpected_state(w, "confirm", row, CONFIRMABLE)
    method = _method(w, payment_method, payment_method_data)
    if method is None and row["payment_method"] is None:
        raise _no_method()
    # Checked again at confirm: the card may have been attached since it was given.
    _owned(w, method or w.objects.row("payment_methods", row["payment_method"],
                                     kind="PaymentMethod"), row["customer"], row)
    values: dict[str, Any] = {}
    if method is not None:
        values["payment_method"] = method["stripe_id"]
    if return_url is not None:
        values["return_url"] = text(return_url)
    if receipt_email is not None:
        values["receipt_email"] = text(receipt_email)
    return _attempt(w, w.update("payment_intents", row, values))


def challenge_url(row: Row) -> str:
    """Where the customer's browser answers the 3-D Secure challenge: a path of the app
    (relative to its base URL), with the intent's client secret."""
    return f"/3ds/{row['stripe_id']}?client_secret={row['client_secret']}"


def _attempt(w: World, row: Row) -> tuple[Row, CardError | None]:
    """Charge the intent's payment method, or ask for 3-D Secure first when its card does."""
    method = w.objects.row("payment_methods", row["payment_method"], kind="PaymentMethod",
                           param="payment_method")
    if card(method["test_card"]).three_d_secure is None:
        return _charge(w, row, method)
    url = challenge_url(row)
    action = ({"type": "redirect_to_url",
               "redirect_to_url": {"url": url, "return_url": row["return_url"]}}
              if row["return_url"] else
              {"type": "use_stripe_sdk", "use_stripe_sdk": {
                  "type": "three_d_secure_redirect", "stripe_js": url,
                  "source": method["stripe_id"]}})
    row = w.update("payment_intents", row, {"status": "requires_action",
                                            "next_action": dumps(action),
                                            "last_payment_error": None})
    w.emit("payment_intent.requires_action", "payment_intents", row)
    return row, None


def authenticate(w: World, row: Row, *, client_secret: str,
                 outcome: str) -> tuple[Row, CardError | None]:
    """The customer's answer to the 3-D Secure challenge: authenticated, the payment goes
    on (and may still be declined); failed, the intent needs a new payment method."""
    if client_secret != row["client_secret"]:
        raise InvalidRequestError(
            "The client_secret provided does not match the client_secret associated with the "
            "PaymentIntent.", code="payment_intent_invalid_parameter", param="client_secret")
    if row["status"] != "requires_action":
        raise unexpected_state(w, "authenticate", row, ("requires_action",))
    method = w.objects.row("payment_methods", row["payment_method"], kind="PaymentMethod")
    if outcome == "authenticate":
        return _charge(w, row, method)
    error = _error_object(w, AUTHENTICATION_FAILED, None, method, kind="invalid_request_error")
    row = w.update("payment_intents", row, {
        "status": "requires_payment_method", "payment_method": None, "next_action": None,
        "last_payment_error": dumps(error)})
    w.emit("payment_intent.payment_failed", "payment_intents", row)
    return row, None


def _error_object(w: World, decline: Decline, charge_id: str | None, method: Row,
                  kind: str = "card_error") -> dict[str, Any]:
    error = {"type": kind, "code": decline.code, "decline_code": decline.decline_code,
             "message": decline.message, "param": decline.param, "charge": charge_id,
             "payment_method": w.objects.render("payment_methods", method)}
    return {k: v for k, v in error.items() if v is not None}


def _charge(w: World, row: Row, method: Row) -> tuple[Row, CardError | None]:
    """The charge of one attempt, and the intent after it."""
    decline = card(method["test_card"]).decline
    manual = row["capture_method"] == "manual"
    base = {"payment_intent": row["stripe_id"], "customer": row["customer"],
            "payment_method": method["stripe_id"], "amount": row["amount"],
            "currency": row["currency"], "description": row["description"],
            "amount_refunded": 0, "refunded": 0, "disputed": 0, "metadata": "{}"}
    if decline is not None:
        charge = w.create("charges", {
            **base, "amount_captured": 0, "status": "failed", "captured": 0,
            "failure_code": decline.code, "failure_message": decline.message,
            "outcome_type": "issuer_declined", "outcome_reason": decline.decline_code,
            "network_status": "declined_by_network", "seller_message": decline.seller_message})
        w.emit("charge.failed", "charges", charge)
        error = _error_object(w, decline, charge["stripe_id"], method)
        row = w.update("payment_intents", row, {
            "status": "requires_payment_method", "payment_method": None, "next_action": None,
            "latest_charge": charge["stripe_id"], "last_payment_error": dumps(error)})
        w.emit("payment_intent.payment_failed", "payment_intents", row)
        intent = w.objects.render("payment_intents", row)
        return row, CardError(decline.message, code=decline.code, param=decline.param,
                              decline_code=decline.decline_code, charge=charge["stripe_id"],
                              payment_intent=intent,
                              payment_method=error["payment_method"])
    charge = w.create("charges", {
        **base, "amount_captured": 0 if manual else row["amount"], "status": "succeeded",
        "captured": int(not manual), "outcome_type": "authorized", "outcome_reason": None,
        "network_status": "approved_by_network", "seller_message": "Payment complete.",
        "capture_before": w.now + AUTHORIZATION_TTL if manual else None})
    w.emit("charge.succeeded", "charges", charge)
    if not manual:
        funds.charged(w, charge)
    row = w.update("payment_intents", row, {
        "status": "requires_capture" if manual else "succeeded",
        "amount_capturable": row["amount"] if manual else 0,
        "amount_received": 0 if manual else row["amount"], "next_action": None,
        "latest_charge": charge["stripe_id"], "last_payment_error": None})
    if row["customer"]:
        w.db.execute("UPDATE customers SET currency = ? WHERE stripe_id = ? AND currency IS NULL",
                     (row["currency"], row["customer"]))
    w.emit("payment_intent.amount_capturable_updated" if manual else "payment_intent.succeeded",
           "payment_intents", row)
    return row, None


def capture(w: World, row: Row, *, amount_to_capture: int | None, meta: Any) -> Row:
    """Capture all or part of an authorization; the rest is released (shown refunded)."""
    if row["status"] != "requires_capture":
        raise unexpected_state(w, "capture", row, ("requires_capture",))
    amount = row["amount_capturable"] if amount_to_capture is None else amount_to_capture
    if amount > row["amount_capturable"]:
        raise InvalidRequestError(
            "The amount to capture must be less than or equal to the amount capturable "
            f"({row['amount_capturable']}).", code="amount_too_large",
            param="amount_to_capture")
    charge = w.objects.row("charges", row["latest_charge"], kind="charge")
    released = row["amount_capturable"] - amount
    charge = w.update("charges", charge, {
        "captured": 1, "amount_captured": amount, "amount_refunded": released,
        "refunded": int(released == charge["amount"])})
    w.emit("charge.captured", "charges", charge)
    funds.charged(w, charge)
    row = w.update("payment_intents", row, {
        "status": "succeeded", "amount_received": amount, "amount_capturable": 0,
        "metadata": metadata(row["metadata"], meta)})
    w.emit("payment_intent.succeeded", "payment_intents", row)
    return row


def cancel(w: World, row: Row, *, reason: str | None) -> Row:
    if row["status"] not in CANCELABLE:
        raise unexpected_state(w, "cancel", row, CANCELABLE)
    return _cancel(w, row, reason, "charge.refunded")


def _cancel(w: World, row: Row, reason: str | None, charge_event: str) -> Row:
    if row["status"] == "requires_capture":  # the authorization is released
        charge = w.objects.row("charges", row["latest_charge"], kind="charge")
        charge = w.update("charges", charge, {"amount_refunded": charge["amount"],
                                              "refunded": 1})
        w.emit(charge_event, "charges", charge)
    row = w.update("payment_intents", row, {
        "status": "canceled", "canceled_at": w.now, "cancellation_reason": reason,
        "amount_capturable": 0, "next_action": None})
    w.emit("payment_intent.canceled", "payment_intents", row)
    return row


def expire_authorizations(w: World) -> None:
    """Authorizations past their capture_before expire on the episode's clock: the intent is
    canceled (``automatic``) and the charge released (``charge.expired``). Run before every
    write, so nothing acts on an authorization that is no longer there."""
    due = w.db.execute(
        "SELECT pi.* FROM payment_intents pi JOIN charges c ON c.stripe_id = pi.latest_charge "
        "WHERE pi.status = 'requires_capture' AND c.capture_before <= ? ORDER BY pi.id",
        (w.now,)).fetchall()
    for row in due:
        _cancel(w, row, "automatic", "charge.expired")
