"""The checkout's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: customer, bind: customer}
    - {factory: payment_intent, bind: payment, customer: $customer.stripe_id, at: "@now-3d"}
    - {factory: payment_intent, bind: hold, status: requires_capture, card: mastercard}
    - {factory: coupon, bind: coupon, percent_off: 15, at: "@now-40d"}
    - {factory: promotion_code, bind: code, coupon: $coupon.stripe_id, expires: "@now-2d"}
    - {factory: order, bind: order, customer: $customer.stripe_id, lines: 3, shipped: 1}
    - {factory: invoice, bind: invoice, customer: $customer.stripe_id, items: "GR-100:1",
       status: paid, at: "@now-5d"}

Rows look like the world's (the same draws: world.py). A new customer is the seed's
identity's new person (drawn per setup and op; with a store account); a payment's or an
order's number the identity's next. A payment comes with its card (a PaymentMethod of the
``card`` option's test card, default visa, attached to the customer) and its charge:
``status`` succeeded (default: captured), requires_capture (an authorization made ``at``,
expiring 7 days later) or requires_payment_method (declined: give a declining ``card``,
e.g. chargeDeclinedInsufficientFunds). An order is the store's, paid (succeeded) by its own
payment; ``lines`` items (default 1-3), the first ``shipped`` of them shipped (default none),
``code`` a promotion code it redeemed (its discount spread over the items).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .cards import BY_NAME, card
from .discounts import allocate, discount
from .ids import stripe_id, token
from .rules import approvals
from .rules.common import dumps, unix
from .rules.funds import AVAILABLE_AFTER, fee
from .rules.invoices import NUMBER_PREFIX, line_description
from .rules.payment_intents import AUTHORIZATION_TTL
from .world import (
    address,
    basket,
    card_values,
    customer_values,
    data,
    shipping,
    subtotal,
    unit_price,
)

Row = dict[str, Any]
STATUSES = ("succeeded", "requires_capture", "requires_payment_method")
COUNTRY = {"usd": "US", "gbp": "GB", "jpy": "JP", "eur": "DE"}


def _at(ctx: FactoryContext, given: Mapping[str, Any], default_days: float,
        key: str = "at") -> int:
    at = given.get(key)
    return unix(parse_iso(at)) if at else unix(ctx.ago(days=default_days))


def _iso(moment: int) -> str:
    return iso(datetime.fromtimestamp(moment, UTC))


def _customer(ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
    """The customer ``given`` names, else a random one of the world's."""
    found = sql.one(ctx.db, "SELECT * FROM customers WHERE stripe_id = ?",
                    (given["customer"],)) if given.get("customer") else sql.one(
        ctx.db, "SELECT * FROM customers WHERE id = ?",
        (ctx.pick("customers", "NOT deleted"),))
    if found is None:
        raise ValueError(f"no customer {given.get('customer')}")
    return found


def _number(ctx: FactoryContext, given: Mapping[str, Any]) -> str:
    """The order number ``given``, else the identity's next that no payment or order has."""
    if given.get("order"):
        found: str = given["order"]
        return found
    taken = {r["n"] for r in ctx.db.execute(
        "SELECT number AS n FROM orders UNION SELECT description FROM payment_intents "
        "WHERE description LIKE 'Order %'")}
    return next(n for n in ctx.identity.new_order_numbers()
                if n not in taken and f"Order {n}" not in taken)


def _intent(ctx: FactoryContext, customer: Row, *, amount: int, currency: str, number: str,
            skus: str, status: str, created: int) -> Row:
    """A PaymentIntent's values, as the world's (its card and charge: :func:`_pay`)."""
    intent = stripe_id("payment_intents", ctx.rng)
    return {
        "stripe_id": intent, "amount": amount, "currency": currency, "status": status,
        "customer": customer["stripe_id"], "payment_method": None,
        "capture_method": "manual" if status == "requires_capture" else "automatic",
        "amount_capturable": 0, "amount_received": 0, "description": f"Order {number}",
        "receipt_email": customer["email"], "latest_charge": None, "last_payment_error": None,
        "next_action": None, "return_url": None,
        "client_secret": f"{intent}_secret_{token(ctx.rng, 25)}",
        "cancellation_reason": None, "canceled_at": None,
        "metadata": dumps({"order": number, "skus": skus}), "created": created}


def _pay(ctx: FactoryContext, row: Mapping[str, Any], card_name: str) -> None:
    """``row``'s card (attached to its customer) and charge, as its status says."""
    test = card(card_name)
    method = {"stripe_id": stripe_id("payment_methods", ctx.rng),
              **card_values(ctx.rng, test, row["customer"], row["created"], None)}
    ctx.insert("payment_methods", method)
    at = row["created"] + ctx.rng.randint(5, 60)
    declined = row["status"] == "requires_payment_method"
    decline = test.decline
    if declined and decline is None:
        raise ValueError("a declined payment needs a declining card "
                         "(e.g. card: chargeDeclined)")
    captured = row["status"] == "succeeded"
    charge = stripe_id("charges", ctx.rng)
    ctx.insert("charges", {
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
    if captured:  # the charge's funds in the account's balance, less Stripe's fee
        ctx.insert("balance_transactions", {
            "stripe_id": stripe_id("balance_transactions", ctx.rng), "type": "charge",
            "source": charge, "amount": row["amount"],
            "fee": fee(row["amount"], row["currency"]), "currency": row["currency"],
            "description": row["description"], "available_on": at + AVAILABLE_AFTER,
            "created": at})
    sql.update(ctx.db, "payment_intents", row["id"], {
        "latest_charge": charge,
        "payment_method": None if declined else method["stripe_id"],
        "amount_received": row["amount"] if captured else 0,
        "amount_capturable": row["amount"] if row["status"] == "requires_capture" else 0,
        "last_payment_error": dumps({"type": "card_error", "code": decline.code,
                                     "decline_code": decline.decline_code,
                                     "message": decline.message, "charge": charge})
        if declined and decline else None})


def _card_option(given: Mapping[str, Any]) -> str:
    name: str = given.get("card", "visa")
    if name not in BY_NAME:
        raise ValueError(f"card must be one of {', '.join(BY_NAME)}")
    return name


class CustomerFactory(Factory):
    """A person no world has (one of the identity's new people, ``ctx.new_people``, paying in
    ``currency`` if given), as a
    customer with a store account; or, given ``email``, the person of the identity with that
    address (another app's customer). Option ``at``: when they became one (default 30 to 600
    days ago)."""

    table = "customers"
    options = frozenset({"at"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        money = str(given.get("currency") or "").upper()
        person = ctx.identity.person_with(given["email"]) if given.get("email") else ctx.unused(
            ctx.new_people(money or None), "customers", "email", lambda p: p.email)
        created = _at(ctx, given, ctx.rng.uniform(30, 600))
        return {"stripe_id": stripe_id("customers", ctx.rng),
                **customer_values(person, created)}

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        locale = row["preferred_locales"].strip('[]"') or "en-US"
        stamp = _iso(row["created"])
        ctx.insert("accounts", {
            "customer": row["stripe_id"], "email": row["email"], "name": row["name"] or "",
            "locale": locale, "email_verified": 1, "two_factor_enabled": 0,
            "pending_email": None, "created_at": stamp, "updated_at": stamp,
            "legacy_id": None, "legacy_created": None})


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
        _card_option(given)
        customer = _customer(ctx, given)
        currency = given.get("currency") or customer["currency"] or "usd"
        lines = _within_policy(lambda: basket(r), currency)
        # An authorization is younger than its 7 days, unless ``at`` says otherwise.
        created = _at(ctx, given, r.uniform(0.1, 5) if status == "requires_capture"
                      else r.uniform(1, 20))
        return _intent(ctx, customer, amount=subtotal(lines, currency), currency=currency,
                       number=_number(ctx, given), skus=",".join(sku for sku, _ in lines),
                       status=status, created=created)

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        _pay(ctx, row, _card_option(given))


class CouponFactory(Factory):
    """A coupon: ``percent_off`` (default 10-25) or ``amount_off`` with ``currency``; its id
    drawn as the shop's campaigns are named unless given (``stripe_id``). Option ``at``: when
    it was made (default 30 to 90 days ago)."""

    table = "coupons"
    options = frozenset({"at"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        percent = None if given.get("amount_off") else r.choice([10, 15, 20, 25])
        name = r.choice(["AUTUMN", "BREWDAY", "BEANS", "CREMA", "POUROVER", "GRIND"])
        return {"stripe_id": f"{name}{percent or ''}-{token(r, 4).upper()}",
                "name": f"{name.title()} {percent}% off" if percent else name.title(),
                "percent_off": percent, "amount_off": None, "currency": None,
                "duration": "once", "duration_in_months": None, "max_redemptions": None,
                "redeem_by": None, "times_redeemed": 0, "deleted": 0, "metadata": "{}",
                "created": _at(ctx, given, r.uniform(30, 90))}


class PromotionCodeFactory(Factory):
    """A promotion code of ``coupon`` (default: one of the world's, not deleted): its ``code``
    the coupon's id (up to a dash) unless given.
    Options: ``at`` (when it was made, default the coupon's birth), ``expires`` (a time,
    e.g. "@now-2d": its expires_at; default none)."""

    table = "promotion_codes"
    options = frozenset({"at", "expires"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        coupon = sql.one(ctx.db, "SELECT * FROM coupons WHERE stripe_id = ?",
                         (given["coupon"],)) if given.get("coupon") else ctx.row(
            "coupons", ctx.pick("coupons", "NOT deleted"))
        if coupon is None:
            raise ValueError(f"no coupon {given['coupon']}")
        expires = unix(parse_iso(given["expires"])) if given.get("expires") else None
        return {"stripe_id": stripe_id("promotion_codes", ctx.rng),
                "code": coupon["stripe_id"].split("-")[0], "coupon": coupon["stripe_id"],
                "customer": None,
                "active": int(expires is None or expires > unix(ctx.now)),  # expired: off
                "expires_at": expires,
                "max_redemptions": None, "times_redeemed": 0, "first_time_transaction": 0,
                "minimum_amount": None, "minimum_amount_currency": None, "metadata": "{}",
                "created": _at(ctx, given, 0) if given.get("at") else coupon["created"]}


def _within_policy(draw: Callable[[], list[tuple[str, int]]], currency: str
                   ) -> list[tuple[str, int]]:
    """A drawn basket whose whole refund (with shipping) needs no manager's approval: a task
    whose instance draws its items is not about approvals by chance (one that is names its
    items)."""
    while True:
        lines = draw()
        amount = subtotal(lines, currency)
        if not approvals.needed(amount + shipping(currency, amount), currency):
            return lines


def _order_lines(ctx: FactoryContext, number: str, given: Mapping[str, Any], currency: str
                 ) -> list[tuple[str, int]]:
    """An order's items (SKU, quantity): ``items`` as given ("ES-900:1,BN-1K:2"), else
    ``lines`` of them drawn from its number (within the approval policy), so that ``build``
    (its amounts) and ``after`` (its rows) draw the same."""
    if given.get("items"):
        lines = [tuple(part.strip().split(":")) for part in str(given["items"]).split(",")]
        unknown = [sku for sku, _ in lines if sku not in data()["products"]]
        if unknown or any(not n.isdigit() or int(n) < 1 for _, n in lines):
            raise ValueError(f"items must be SKU:quantity,... of the catalogue's SKUs "
                             f"({', '.join(data()['products'])})")
        return [(sku, int(n)) for sku, n in lines]
    count = given.get("lines")
    r = random.Random(f"order:{ctx.identity.seed}:{number}")
    skus = [sku for sku, spec in data()["products"].items() if "interval" not in spec]
    return _within_policy(lambda: [(sku, r.choice([1, 1, 2])) for sku in r.sample(
        skus, int(count or r.randint(1, 3)))], currency)


def _price(ctx: FactoryContext, sku: str, currency: str) -> str:
    """The current price of ``sku`` in ``currency`` (its lookup key is the world's)."""
    found = sql.one(ctx.db, "SELECT stripe_id FROM prices WHERE lookup_key = ? AND active",
                    (f"{sku.lower()}-{currency}",))
    if found is None:
        raise ValueError(f"no active price of {sku} in {currency}")
    price: str = found["stripe_id"]
    return price


class OrderFactory(Factory):
    """A store order of a customer (given, else a random one's) in their currency, paid by a
    new payment (with its card and charge) for its total (see the module's docstring).
    Options: ``at`` (when it was placed, default 0.3 to 4 days ago), ``lines`` (how many
    items, default 1 to 3) or ``items`` (which: "ES-900:1,BN-1K:2"), ``shipped`` (how many
    of them shipped, the first ones, default 0), ``shipped_at`` (when they left, default 4
    to 30 hours after it was placed), ``code`` (a promotion code redeemed), ``card`` (the
    test card it was paid with). The ``currency`` column (lowercase) makes it an order in
    another currency than the customer's (a UK customer's order from the US store)."""

    table = "orders"
    options = frozenset({"at", "lines", "items", "shipped", "shipped_at", "code", "card"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        _card_option(given)
        customer = _customer(ctx, given)
        money = str(given.get("currency") or customer["currency"] or "usd").lower()
        number = _number(ctx, given)
        lines = _order_lines(ctx, number, given, money)
        amount = subtotal(lines, money)
        code = sql.one(ctx.db, "SELECT * FROM promotion_codes WHERE stripe_id = ?",
                       (given["code"],)) if given.get("code") else None
        coupon = sql.one(ctx.db, "SELECT * FROM coupons WHERE stripe_id = ?",
                         (code["coupon"],)) if code else None
        off = discount(coupon, amount) if coupon else 0
        ship = shipping(money, amount - off)
        account = sql.one(ctx.db, "SELECT id FROM accounts WHERE customer = ?",
                          (customer["stripe_id"],))
        shipped = min(int(given.get("shipped") or 0), len(lines))
        return {"number": number, "account_id": account["id"] if account else None,
                "customer": customer["stripe_id"], "email": customer["email"],
                "currency": money, "subtotal": amount, "discount": off, "shipping": ship,
                "total": amount - off + ship,
                "promotion_code": code["stripe_id"] if code else None,
                "payment_intent": stripe_id("payment_intents", r), "checkout_session": None,
                "status": "open",
                "fulfillment_status": "unfulfilled" if not shipped else "fulfilled"
                if shipped == len(lines) else "partially_fulfilled",
                "ship_name": customer["name"], **address(r, COUNTRY[money]),
                "placed_at": _iso(_at(ctx, given, r.uniform(0.3, 4))), "cancelled_at": None,
                "cancel_reason": None, "legacy_id": None, "note": None}

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        r = ctx.rng
        customer = _customer(ctx, {"customer": row["customer"]})
        lines = _order_lines(ctx, row["number"], given, row["currency"])
        placed = unix(parse_iso(row["placed_at"]))
        intent = {**_intent(ctx, customer, amount=row["total"], currency=row["currency"],
                            number=row["number"], skus=",".join(sku for sku, _ in lines),
                            status="succeeded", created=placed),
                  "stripe_id": row["payment_intent"],
                  "client_secret": f"{row['payment_intent']}_secret_{token(r, 25)}"}
        intent["id"] = ctx.insert("payment_intents", intent)
        _pay(ctx, intent, _card_option(given))
        amounts = [unit_price(sku, row["currency"]) * quantity for sku, quantity in lines]
        shipped = min(int(given.get("shipped") or 0), len(lines))
        sent = []
        for i, ((sku, quantity), part) in enumerate(zip(lines, allocate(row["discount"],
                                                                        amounts), strict=True)):
            item = ctx.insert("order_items", {
                "order_id": row["id"], "sku": sku, "name": data()["products"][sku]["name"],
                "price": _price(ctx, sku, row["currency"]),
                "quantity": quantity, "unit_amount": unit_price(sku, row["currency"]),
                "amount_discount": part, "fulfilled_quantity": quantity if i < shipped else 0,
                "cancelled_quantity": 0, "returned_quantity": 0})
            if i < shipped:
                sent.append({"item_id": item, "quantity": quantity})
            else:
                ctx.db.execute("UPDATE inventory SET committed = committed + ? WHERE sku = ?",
                               (quantity, sku))
        if sent:
            at = unix(parse_iso(given["shipped_at"])) if given.get("shipped_at") else (
                placed + r.randint(4, 30) * 3600)
            ctx.insert("fulfillments", {
                "order_id": row["id"], "carrier": r.choice(data()["carriers"][
                    row["ship_country"]]), "tracking_number": f"1Z{r.randint(10**9, 10**10)}",
                "status": "in_transit", "items": dumps(sent), "shipped_at": _iso(at),
                "delivered_at": None})
        if row["promotion_code"]:
            ctx.db.execute("UPDATE promotion_codes SET times_redeemed = times_redeemed + 1 "
                           "WHERE stripe_id = ?", (row["promotion_code"],))
            ctx.db.execute("UPDATE coupons SET times_redeemed = times_redeemed + 1 WHERE "
                           "stripe_id = (SELECT coupon FROM promotion_codes WHERE "
                           "stripe_id = ?)", (row["promotion_code"],))


class InvoiceFactory(Factory):
    """A one-off invoice of a customer (given, else a random one's) in their currency, sent
    (``send_invoice``, due 30 days after it was finalized) and numbered as the account's:
    ``items`` its lines ("GR-100:1,KT-220:2", default 2 drawn), ``status`` open (default) or
    paid (by card: its PaymentIntent and charge). Options: ``at`` (when it was finalized,
    default 3 to 20 days ago), ``items``, ``card``."""

    table = "invoices"
    options = frozenset({"at", "items", "card"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        status = given.get("status", "open")
        if status not in ("open", "paid"):
            raise ValueError("status must be open or paid")
        _card_option(given)
        customer = _customer(ctx, given)
        money = customer["currency"] or "usd"
        lines = self._lines(ctx, given, money)
        total = subtotal(lines, money)
        at = _at(ctx, given, ctx.rng.uniform(3, 20))
        numbered = ctx.db.execute("SELECT count(*) AS n FROM invoices WHERE number IS NOT "
                                  "NULL").fetchone()["n"]
        return {"stripe_id": stripe_id("invoices", ctx.rng), "customer": customer["stripe_id"],
                "subscription": None, "status": status, "billing_reason": "manual",
                "collection_method": "send_invoice", "currency": money,
                "number": f"{NUMBER_PREFIX}-{numbered + 1:04d}", "description": None,
                "subtotal": total, "total": total, "starting_balance": 0, "ending_balance": 0,
                "pre_payment_credit_notes_amount": 0, "post_payment_credit_notes_amount": 0,
                "amount_paid": total if status == "paid" else 0,
                "attempt_count": int(status == "paid"), "auto_advance": 1,
                "days_until_due": None, "due_date": at + 30 * 86400,
                "default_payment_method": None,
                "payment_intent": stripe_id("payment_intents", ctx.rng)
                if status == "paid" else None, "period_start": at,
                "period_end": at, "finalized_at": at,
                "paid_at": at + 3600 if status == "paid" else None, "voided_at": None,
                "marked_uncollectible_at": None, "metadata": "{}", "created": at}

    @staticmethod
    def _lines(ctx: FactoryContext, given: Mapping[str, Any], money: str
               ) -> list[tuple[str, int]]:
        if given.get("items"):
            return [(sku, int(n)) for sku, _, n in (
                part.partition(":") for part in str(given["items"]).split(","))]
        skus = [sku for sku, spec in data()["products"].items() if not spec.get("interval")]
        return [(sku, ctx.rng.randint(1, 3)) for sku in ctx.rng.sample(skus, 2)]

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        for sku, quantity in self._lines(ctx, given, row["currency"]):
            price = _price(ctx, sku, row["currency"])
            found = sql.one(ctx.db, "SELECT * FROM prices WHERE stripe_id = ?", (price,))
            assert found is not None  # _price found it
            ctx.insert("invoice_lines", {
                "stripe_id": stripe_id("invoice_lines", ctx.rng), "invoice": row["stripe_id"],
                "amount": found["unit_amount"] * quantity, "currency": row["currency"],
                "description": line_description(data()["products"][sku]["name"], found,
                                                quantity),
                "quantity": quantity, "price": price, "subscription": None,
                "subscription_item": None, "period_start": row["period_start"],
                "period_end": row["period_end"], "metadata": "{}", "created": row["created"]})
        if row["status"] != "paid":
            return
        customer = _customer(ctx, {"customer": row["customer"]})
        intent = {**_intent(ctx, customer, amount=row["total"], currency=row["currency"],
                            number=row["number"], skus="", status="succeeded",
                            created=row["paid_at"]),
                  "stripe_id": row["payment_intent"],
                  "description": f"Payment for Invoice {row['number']}", "metadata": "{}"}
        intent["id"] = ctx.insert("payment_intents", intent)
        _pay(ctx, intent, _card_option(given))


# The world going on around a task's setup (replicas/runtime/setup.py): another customer's
# first order, paid; with the first piece of a run, that payment disputed by the cardholder
# (a stolen card's first use), a coupon of a new campaign and an account action, so that no
# dispute, coupon or account action of a task is the newest.
ACTIVITY: tuple[dict[str, Any], ...] = (
    {"factory": "customer", "bind": "buyer", "at": "$activity.at"},
    {"factory": "order", "bind": "bought", "customer": "$buyer.stripe_id",
     "at": "$activity.at"},
    {"select": "charges", "where": {"payment_intent": "$bought.payment_intent"},
     "bind": "paid", "when": "$activity.n == 1"},
    {"bind": "dp", "when": "$activity.n == 1",
     "draw": {"a": {"between": [10**9, 10**10 - 1]}, "due": {"expr": "$activity.unix + 864000"}}},
    {"insert": "disputes", "when": "$activity.n == 1",
     "values": {"stripe_id": "dp_1Q{{ dp.a }}Ws", "charge": "$paid.stripe_id",
                "payment_intent": "$bought.payment_intent", "amount": "$paid.amount_captured",
                "currency": "$paid.currency", "status": "needs_response",
                "reason": "fraudulent", "evidence": "{}", "due_by": "$dp.due",
                "has_evidence": 0, "submission_count": 0, "is_charge_refundable": 0,
                "metadata": "{}", "created": "$activity.unix"}},
    {"update": "charges", "id": "$paid.id", "values": {"disputed": 1},
     "when": "$activity.n == 1"},
    {"factory": "coupon", "at": "$activity.at", "when": "$activity.n == 1"},
    # ... and the new customer resetting the password they just forgot.
    {"select": "accounts", "where": {"customer": "$buyer.stripe_id"}, "bind": "account",
     "when": "$activity.n == 1"},
    {"insert": "account_actions", "when": "$activity.n == 1",
     "values": {"account_id": "$account.id", "kind": "password_reset", "status": "completed",
                "verification_required": 0, "verification_method": "verified_email_link",
                "new_email": None, "self_service": 1, "created_at": "$activity.at",
                "completed_at": "$activity.at"}},
)

FACTORIES: dict[str, Factory] = {
    "customer": CustomerFactory(),
    "payment_intent": PaymentIntentFactory(),
    "coupon": CouponFactory(),
    "promotion_code": PromotionCodeFactory(),
    "order": OrderFactory(),
    "invoice": InvoiceFactory(),
}
