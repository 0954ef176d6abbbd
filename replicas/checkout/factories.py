"""The checkout's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: customer, bind: customer}
    - {factory: payment_intent, bind: payment, customer: $customer.stripe_id, at: "@now-3d"}
    - {factory: payment_intent, bind: hold, status: requires_capture, card: mastercard}

Rows look like the world's (the same draws: world.py). A new customer is the seed's
identity's next person; a payment's order number the identity's next. A payment comes with
its card (a PaymentMethod of the ``card`` option's test card, default visa, attached to the
customer) and its charge: ``status`` succeeded (default: captured), requires_capture (an
authorization made ``at``, expiring 7 days later) or requires_payment_method (declined:
give a declining ``card``, e.g. chargeDeclinedInsufficientFunds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .cards import BY_NAME, card
from .ids import stripe_id
from .rules.common import dumps, unix
from .rules.payment_intents import AUTHORIZATION_TTL
from .world import basket, card_values, customer_values

Row = dict[str, Any]
STATUSES = ("succeeded", "requires_capture", "requires_payment_method")


def _at(ctx: FactoryContext, given: Mapping[str, Any], default_days: float) -> int:
    at = given.get("at")
    return unix(parse_iso(at)) if at else unix(ctx.ago(days=default_days))


class CustomerFactory(Factory):
    """A person no world has (the identity's next), as a customer. Option ``at``: when they
    became one (default 30 to 600 days ago)."""

    table = "customers"
    options = frozenset({"at"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        person = ctx.unused(ctx.identity.new_people(), "customers", "email", lambda p: p.email)
        created = _at(ctx, given, ctx.rng.uniform(30, 600))
        return {"stripe_id": stripe_id("customers", ctx.rng),
                **customer_values(person, created)}


class PaymentIntentFactory(Factory):
    """A customer's (given, else a random one's) payment for a new order, in their currency,
    with its card and charge (see the module's docstring). Options: ``at`` (when, default
    1 to 20 days ago; an authorization 0.1 to 5), ``card`` (a test card's name), ``order``
    (its number)."""

    table = "payment_intents"
    options = frozenset({"at", "card", "order"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        status = given.get("status", "succeeded")
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        if given.get("card", "visa") not in BY_NAME:
            raise ValueError(f"card must be one of {', '.join(BY_NAME)}")
        customer = sql.one(ctx.db, "SELECT * FROM customers WHERE stripe_id = ?",
                           (given["customer"],)) if given.get("customer") else sql.one(
            ctx.db, "SELECT * FROM customers WHERE id = ?",
            (ctx.pick("customers", "NOT deleted"),))
        if customer is None:
            raise ValueError(f"no customer {given.get('customer')}")
        customer_id = customer["stripe_id"]
        currency = given.get("currency") or customer["currency"] or "usd"
        amount, skus = basket(r, currency)
        number = given.get("order") or ctx.unused(
            ctx.identity.new_order_numbers(), "payment_intents", "description",
            lambda n: f"Order {n}")
        intent = stripe_id("payment_intents", r)
        secret = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(25))
        return {
            "stripe_id": intent, "amount": amount, "currency": currency, "status": status,
            "customer": customer_id, "payment_method": None,
            "capture_method": "manual" if status == "requires_capture" else "automatic",
            "amount_capturable": 0, "amount_received": 0, "description": f"Order {number}",
            "receipt_email": customer["email"], "latest_charge": None,
            "last_payment_error": None, "next_action": None, "return_url": None,
            "client_secret": f"{intent}_secret_{secret}", "cancellation_reason": None,
            "canceled_at": None, "metadata": dumps({"order": number, "skus": ",".join(skus)}),
            # An authorization is younger than its 7 days, unless ``at`` says otherwise.
            "created": _at(ctx, given, r.uniform(0.1, 5) if status == "requires_capture"
                           else r.uniform(1, 20))}

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        test = card(given.get("card", "visa"))
        method = {"stripe_id": stripe_id("payment_methods", ctx.rng),
                  **card_values(ctx.rng, test, row["customer"], row["created"], None)}
        sql.insert(ctx.db, "payment_methods", method)
        at = row["created"] + ctx.rng.randint(5, 60)
        declined = row["status"] == "requires_payment_method"
        decline = test.decline
        if declined and decline is None:
            raise ValueError("a declined payment needs a declining card "
                             "(e.g. card: chargeDeclined)")
        captured = row["status"] == "succeeded"
        charge = stripe_id("charges", ctx.rng)
        sql.insert(ctx.db, "charges", {
            "stripe_id": charge, "payment_intent": row["stripe_id"],
            "customer": row["customer"], "payment_method": method["stripe_id"],
            "amount": row["amount"], "amount_captured": row["amount"] if captured else 0,
            "amount_refunded": 0, "currency": row["currency"],
            "status": "failed" if declined else "succeeded", "captured": int(captured),
            "refunded": 0, "disputed": 0,
            "failure_code": decline.code if declined and decline else None,
            "failure_message": decline.message if declined and decline else None,
            "outcome_type": "issuer_declined" if declined else "authorized",
            "outcome_reason": decline.decline_code if declined and decline else None,
            "network_status": "declined_by_network" if declined else "approved_by_network",
            "seller_message": decline.seller_message if declined and decline
            else "Payment complete.",
            "capture_before": at + AUTHORIZATION_TTL if row["status"] == "requires_capture"
            else None, "description": row["description"], "metadata": "{}", "created": at})
        sql.update(ctx.db, "payment_intents", row["id"], {
            "latest_charge": charge,
            "payment_method": None if declined else method["stripe_id"],
            "amount_received": row["amount"] if captured else 0,
            "amount_capturable": row["amount"] if row["status"] == "requires_capture" else 0,
            "last_payment_error": dumps({"type": "card_error", "code": decline.code,
                                         "decline_code": decline.decline_code,
                                         "message": decline.message, "charge": charge})
            if declined and decline else None})


FACTORIES: dict[str, Factory] = {
    "customer": CustomerFactory(),
    "payment_intent": PaymentIntentFactory(),
}
