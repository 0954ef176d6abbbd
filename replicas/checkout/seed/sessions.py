"""Checkout Sessions: the hosted checkout went live 90 days ago. Most web orders since were
paid in one (complete, with its line items, discount and shipping); the rest of the
PaymentIntents of that time were made directly (the mobile app's card form, orders taken by
staff, manual captures). Checkouts abandoned after a declined card left an expired session
whose PaymentIntent it canceled; carts abandoned before paying left expired sessions without
one; a few sessions are open now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rules.sessions import TTL
from ..world import basket, data, unit_price
from .common import Generation, Row

SESSIONS_DAYS = 90
WEB_SHARE = 0.75  # of the automatic-capture orders since: paid on the hosted page
N_CARTS = 25  # abandoned before paying
N_OPEN = 3


def _session(g: Generation, customer: Row, created: int, items: Sequence[Row], *,
             shipping: int = 0, intent: Row | None = None, order: Row | None = None) -> Row:
    """A session of ``customer`` buying ``items`` (price, quantity, unit_amount,
    amount_discount, name each): complete when ``intent`` succeeded, else expired (open while
    its 24 hours run)."""
    subtotal = sum(i["unit_amount"] * i["quantity"] for i in items)
    off = sum(i["amount_discount"] for i in items)
    paid = intent is not None and intent["status"] == "succeeded"
    expires = created + TTL
    code = order["promotion_code"] if order else None
    coupon = next(c["coupon"] for c in g.tables["promotion_codes"]
                  if c["stripe_id"] == code) if code else None
    session = g.new("checkout_sessions", {
        "status": "complete" if paid else "open" if expires > g.unix else "expired",
        "payment_status": "paid" if paid else "unpaid", "mode": "payment",
        "customer": customer["stripe_id"], "customer_email": None,
        "details_email": customer["email"] if paid else None,
        "details_name": customer["name"] if paid else None, "currency": customer["currency"],
        "amount_subtotal": subtotal, "amount_discount": off, "amount_shipping": shipping,
        "amount_total": subtotal - off + shipping, "allow_promotion_codes": 1,
        "coupon": coupon, "promotion_code": code,
        "payment_intent": intent["stripe_id"] if intent else None,
        "intent_description": intent["description"] if intent else None,
        "intent_metadata": intent["metadata"] if intent else "{}",
        "client_reference_id": None, "success_url": "https://shop.example/checkout/thanks",
        "cancel_url": "https://shop.example/cart", "expires_at": expires, "metadata": "{}",
        "created": created})
    for item in items:
        amount = item["unit_amount"] * item["quantity"]
        g.new("checkout_line_items", {
            "session": session["stripe_id"], "price": item["price"],
            "description": item["name"], "quantity": item["quantity"],
            "currency": customer["currency"], "amount_subtotal": amount,
            "amount_discount": item["amount_discount"],
            "amount_total": amount - item["amount_discount"], "created": created})
    return session


def _cart(g: Generation, customer: Row) -> list[dict[str, Any]]:
    names = {sku: spec["name"] for sku, spec in data()["products"].items()}
    money = customer["currency"]
    return [{"price": g.price_of[(sku, money)], "quantity": quantity,
             "unit_amount": unit_price(sku, money), "amount_discount": 0, "name": names[sku]}
            for sku, quantity in basket(g.rng)]


def build(g: Generation) -> None:
    r, since = g.rng, g.unix_ago(SESSIONS_DAYS)
    customers = {c["stripe_id"]: c for c in g.tables["customers"]}
    items: dict[int, list[Row]] = {}
    for item in g.tables["order_items"]:
        items.setdefault(item["order_id"], []).append(item)
    paid_in_order = {o["payment_intent"]: o for o in g.tables["orders"]}
    for intent in g.tables["payment_intents"]:
        if intent["created"] < since or intent["capture_method"] != "automatic":
            continue
        order = paid_in_order.get(intent["stripe_id"])
        started = intent["created"] - r.randint(60, 900)
        customer = customers[intent["customer"]]
        if order is not None and r.random() < WEB_SHARE:
            session = _session(g, customer, started, items[order["id"]],
                               shipping=order["shipping"], intent=intent, order=order)
            order["checkout_session"] = session["stripe_id"]
        elif intent["cancellation_reason"] == "abandoned" or (
                intent["status"] == "requires_payment_method" and started + TTL < g.unix):
            # An abandoned checkout: its session expired, canceling its PaymentIntent.
            _session(g, customer, started, _cart(g, customer), intent=intent)
            intent.update(status="canceled", cancellation_reason="abandoned",
                          canceled_at=started + TTL)
    people = [c for c in g.tables["customers"] if c["created"] < since]
    for days in [*(r.uniform(1.5, SESSIONS_DAYS) for _ in range(N_CARTS)),  # carts left
                 *(r.uniform(0.05, 0.8) for _ in range(N_OPEN))]:  # on the page now
        customer = r.choice(people)
        _session(g, customer, g.unix_ago(days), _cart(g, customer))
