"""18 months of orders and their payments.

The orders since the shop moved here carry the seed's first order numbers (in the order they
were placed); before that, the old shop's orders were imported (``WC-`` numbers). Each order
is paid by a PaymentIntent (its number in ``metadata.order``, or ``metadata.legacy_order``),
with its charges and refunds; its items ship, are cancelled before shipping or come back. The
mess production has, each marked where it is made: declined attempts before a payment,
checkouts abandoned or canceled (a PaymentIntent, no order), 3-D Secure left unfinished,
manual captures (some partial: an item out of stock cancelled), authorizations that expired
before the order shipped and some still open, orders charged twice, orders stuck partially
shipped, returns whose refund failed or waits, orders imported both cancelled and shipped,
imported payments without their card or customer.
"""

from __future__ import annotations

import bisect
import random

from replicas.runtime.identity import Placed

from ..cards import BY_NAME, card
from ..discounts import allocate, code_refusal, discount, paid_for
from ..ids import token
from ..rules.common import dumps
from ..rules.orders import fulfillment_status, open_units, settled
from ..rules.payment_intents import AUTHORIZATION_TTL, challenge_url
from ..world import address, basket, card_values, data, shipping, unit_price
from . import coupons
from .common import DAY, Generation, Row
from .customers import MOVED_DAYS

N_ORDERS = 1000  # the identity's first order numbers: the checkouts since the move
N_LEGACY = 560  # imported from the old shop, placed before the move
SPAN_DAYS = 560
CODE_SHARE = 0.14  # of checkouts that use one of the shop's promotion codes
# Special payment fates, each given to this many checkouts of a suitable age (days ago).
# (The orders charged twice are the identity's: its customers write to the helpdesk.)
SPECIAL = {"expired": (3, 9, 300), "authorized": (3, 0.2, 6), "requires_action": (2, 0.1, 20)}
FATES = {"paid": 87, "declined_then_paid": 7, "manual": 6}
UNPAID = ("abandoned", "abandoned", "canceled")  # what became of a checkout never paid
# What became of a paid order a week or more old.
AFTER = {"shipped": 79, "cancelled": 5, "part_cancelled": 2, "returned": 8, "goodwill": 3,
         "backorder": 3}
LEGACY_AFTER = {"shipped": 86, "cancelled": 3, "returned": 9, "goodwill": 2}
N_CANCELLED_AND_SHIPPED = 4  # imported orders both cancelled and shipped
# Refunds of returns, the most recent ones: (status, how many).
REFUND_MESS = (("failed", 2), ("requires_action", 2), ("pending", 2))
DUPLICATES_REFUNDED = 2


class _Shop:
    """What the builders share: cards by customer, customers by age, the catalogue's prices,
    the promotion codes, who has paid before."""

    def __init__(self, g: Generation) -> None:
        self.g, self.r = g, g.rng
        self.cards: dict[str, list[Row]] = {}
        for method in g.tables["payment_methods"]:
            self.cards.setdefault(method["customer"], []).append(method)
        self.customers = sorted(g.tables["customers"], key=lambda c: (c["created"], c["id"]))
        self.since = [c["created"] for c in self.customers]
        self.names = {sku: spec["name"] for sku, spec in data()["products"].items()}
        self.coupons = {c["stripe_id"]: c for c in g.tables["coupons"]}
        self.codes = g.tables["promotion_codes"]
        self.paid: set[str] = set()

    def customer_at(self, at: int) -> Row:
        """A customer who already was one a day before ``at``."""
        return self.r.choice(self.customers[:max(1, bisect.bisect(self.since, at - DAY))])

    def code_for(self, customer: Row, at: int, money: str, subtotal: int) -> Row | None:
        """The promotion code ``customer`` redeems at ``at`` on this purchase, if any: a code
        of their own (an apology) half the time, else, now and then, one of the shop's."""
        usable = [code for code in self.codes if code["created"] <= at and code_refusal(
            code, self.coupons[code["coupon"]], now=at, customer=customer["stripe_id"],
            money=money, subtotal=subtotal,
            paid_before=customer["stripe_id"] in self.paid) is None]
        own = [code for code in usable if code["customer"] is not None]
        if own and self.r.random() < 0.5:
            return own[0]
        shared = [code for code in usable if code["customer"] is None]
        if not shared or self.r.random() >= CODE_SHARE:
            return None
        return self.r.choices(shared, [self.g.code_weight[c["stripe_id"]] for c in shared])[0]

    # -- payments -------------------------------------------------------------------------
    def intent(self, customer: Row | None, created: int, amount: int, money: str,
               meta: dict[str, str], *, description: str | None,
               capture: str = "automatic") -> Row:
        row = self.g.new("payment_intents", {
            "amount": amount, "currency": money, "status": "succeeded",
            "customer": customer["stripe_id"] if customer else None, "payment_method": None,
            "capture_method": capture, "amount_capturable": 0, "amount_received": 0,
            # the shop's checkout names its payment method types: automatic ones are off
            "automatic_payment_methods": None, "description": description,
            "receipt_email": customer["email"] if customer and description else None,
            "latest_charge": None, "last_payment_error": None, "next_action": None,
            "return_url": None, "client_secret": "", "cancellation_reason": None,
            "canceled_at": None, "metadata": dumps(meta), "created": created})
        row["client_secret"] = f"{row['stripe_id']}_secret_{token(self.r, 25)}"
        return row

    def charge(self, intent: Row, method: Row | None, created: int, *,
               captured: bool = True) -> Row:
        """A charge of ``intent`` with ``method`` (None: an imported charge, its card not
        brought over), succeeding or declined as the card does."""
        decline = card(method["test_card"]).decline if method else None
        row = self.g.new("charges", {
            "payment_intent": intent["stripe_id"], "customer": intent["customer"],
            "payment_method": method["stripe_id"] if method else None,
            "amount": intent["amount"],
            "amount_captured": intent["amount"] if captured and not decline else 0,
            "amount_refunded": 0, "currency": intent["currency"],
            "status": "failed" if decline else "succeeded",
            "captured": int(captured and not decline), "refunded": 0, "disputed": 0,
            "failure_code": decline.code if decline else None,
            "failure_message": decline.message if decline else None,
            "outcome_type": "issuer_declined" if decline else "authorized",
            "outcome_reason": decline.decline_code if decline else None,
            "network_status": "declined_by_network" if decline else "approved_by_network",
            "seller_message": decline.seller_message if decline else "Payment complete.",
            "capture_before": None if captured or decline else created + AUTHORIZATION_TTL,
            "description": intent["description"], "metadata": "{}", "created": created})
        intent.update(latest_charge=row["stripe_id"],
                      payment_method=method["stripe_id"] if method else None)
        if decline:
            intent.update(status="requires_payment_method", payment_method=None,
                          last_payment_error=dumps({
                              "type": "card_error", "code": decline.code,
                              "decline_code": decline.decline_code,
                              "message": decline.message, "charge": row["stripe_id"]}))
        elif captured:
            intent.update(status="succeeded", amount_received=intent["amount"],
                          last_payment_error=None)
        else:
            intent.update(status="requires_capture", amount_capturable=intent["amount"])
        return row

    def new_card(self, customer: Row, name: str, created: int) -> Row:
        return self.g.new("payment_methods", card_values(
            self.r, BY_NAME[name], customer["stripe_id"], created, customer["name"]))

    def refund(self, charge: Row, amount: int, created: int, *,
               reason: str | None = "requested_by_customer",
               meta: dict[str, str] | None = None) -> Row:
        charge["amount_refunded"] += amount
        charge["refunded"] = int(charge["amount_refunded"] >= charge["amount"])
        return self.g.new("refunds", {
            "charge": charge["stripe_id"], "payment_intent": charge["payment_intent"],
            "amount": amount, "currency": charge["currency"], "status": "succeeded",
            "reason": reason, "failure_reason": None, "metadata": dumps(meta or {}),
            "created": min(created, self.g.unix - 3600)})

    # -- the store ------------------------------------------------------------------------
    def order(self, number: str, customer: Row | None, email: str | None, placed: int,
              lines: list[tuple[str, int]], money: str, code: Row | None, intent: Row,
              *, legacy: bool) -> tuple[Row, list[Row]]:
        """An order and its items, open and unfulfilled: its discount spread over them."""
        r = self.r
        amounts = [unit_price(sku, money) * quantity for sku, quantity in lines]
        coupon = self.coupons[code["coupon"]] if code else None
        off = discount(coupon, sum(amounts)) if coupon else 0
        person = customer["name"] if customer else None
        where = address(r, self.g.country_of.get(customer["stripe_id"], "US") if customer
                        else {"usd": "US", "eur": "DE", "gbp": "GB"}[money])
        if legacy and r.random() < 0.15:  # MESS: imported without a full address
            where |= {"ship_postal_code": None, "ship_line1": None}
        order = self.g.add("orders", {
            "number": number, "customer": customer["stripe_id"] if customer else None,
            "account_id": self.g.account_of.get(customer["stripe_id"]) if customer else None,
            "email": email, "currency": money, "subtotal": sum(amounts), "discount": off,
            "shipping": intent["amount"] - sum(amounts) + off,
            "total": intent["amount"], "promotion_code": code["stripe_id"] if code else None,
            "payment_intent": intent["stripe_id"], "checkout_session": None,
            "status": "open", "fulfillment_status": "unfulfilled", "ship_name": person,
            **where, "placed_at": self.g.iso(placed), "cancelled_at": None,
            "cancel_reason": None, "legacy_id": number if legacy else None, "note": None})
        items = [self.g.add("order_items", {
            "order_id": order["id"], "sku": sku, "name": self.names[sku],
            "price": None if legacy else self.g.price_of[(sku, money)], "quantity": quantity,
            "unit_amount": unit_price(sku, money), "amount_discount": part,
            "fulfilled_quantity": 0, "cancelled_quantity": 0, "returned_quantity": 0})
            for (sku, quantity), part in zip(lines, allocate(off, amounts), strict=True)]
        return order, items

    def ship(self, order: Row, items: list[Row], at: int) -> None:
        """Ship every open unit of ``items`` at ``at`` (delivered days later, if by now)."""
        units = [(item, open_units(item)) for item in items if open_units(item) > 0]
        if not units:
            return
        for item, count in units:
            item["fulfilled_quantity"] += count
        delivered = at + self.r.randint(1, 6) * DAY + self.r.randint(0, 36000)
        country = order["ship_country"] or "US"
        carrier = self.r.choice(data()["carriers"][country])
        self.g.add("fulfillments", {
            "order_id": order["id"], "carrier": carrier,
            "tracking_number": f"{carrier[:2].upper()}{self.r.randint(10**9, 10**10 - 1)}",
            "status": "delivered" if delivered < self.g.unix else "in_transit",
            "items": dumps([{"item_id": item["id"], "quantity": count}
                            for item, count in units]),
            "shipped_at": self.g.iso(at),
            "delivered_at": self.g.iso(delivered) if delivered < self.g.unix else None})


def _fates(g: Generation, placed: list[Placed], times: list[int]) -> list[str]:
    """Each checkout's payment fate: abandoned or canceled where the identity says it was
    never paid, paid twice where it says so; the special ones at paid checkouts of a
    suitable age; the rest drawn."""
    r = g.rng
    fates = ["duplicate" if p.twice else "" if p.paid else r.choice(UNPAID) for p in placed]
    for fate, (count, low, high) in SPECIAL.items():
        # 3-D Secure never finished: a checkout never paid; the others: paid ones.
        fits = [i for i, t in enumerate(times)
                if (not placed[i].paid if fate == "requires_action" else not fates[i])
                and g.unix_ago(high) <= t <= g.unix_ago(low)]
        for i in r.sample(fits, min(count, len(fits))):
            fates[i] = fate
    for i, t in enumerate(times):
        if not fates[i]:
            fate = r.choices(list(FATES), list(FATES.values()))[0]
            fates[i] = "paid" if fate == "manual" and t > g.unix_ago(8) else fate
    return fates


def build(g: Generation) -> None:
    shop = g.shop = _Shop(g)
    g.duplicates = []
    g.returned = []
    _legacy(g, shop)
    placed = g.identity.world_orders[:N_ORDERS]
    times = [g.unix_ago(p.days_ago) for p in placed]
    for p, created, fate in zip(placed, times, _fates(g, placed, times), strict=True):
        _checkout(g, shop, created, p, fate)
    _refund_mess(g, shop)
    coupons.settle(g)
    refunded = {r["charge"] for r in g.tables["refunds"]}
    shipped = {o["payment_intent"] for o in g.tables["orders"]
               if o["status"] == "open" and o["fulfillment_status"] == "fulfilled"}
    g.disputable = [c for c in g.tables["charges"] if c["captured"] and c["stripe_id"]
                    not in refunded and c["payment_intent"] in shipped]


def _lines_and_total(r: random.Random, shop: _Shop, customer: Row | None, at: int,
                     money: str, *, first: str | None = None
                     ) -> tuple[list[tuple[str, int]], Row | None, int]:
    """What a checkout buys (``first`` first, when given), the promotion code it redeems and
    what it costs."""
    lines = basket(r)
    if first is not None:
        lines = [(first, 1), *((sku, n) for sku, n in lines if sku != first)][:3]
    amount = sum(unit_price(sku, money) * quantity for sku, quantity in lines)
    code = shop.code_for(customer, at, money, amount) if customer else None
    off = discount(shop.coupons[code["coupon"]], amount) if code else 0
    return lines, code, amount - off + shipping(money, amount - off)


def _redeem(shop: _Shop, code: Row | None) -> None:
    if code is not None:
        code["times_redeemed"] += 1
        shop.coupons[code["coupon"]]["times_redeemed"] += 1


def _legacy(g: Generation, shop: _Shop) -> None:
    """The old shop's orders, imported: every one shipped long ago (some returned, refunded
    or cancelled), their payments brought over without the card, the guests' without a
    customer, the old shop's ids in metadata."""
    r = g.rng
    times = sorted(g.unix_ago(r.uniform(MOVED_DAYS + 2, SPAN_DAYS)) for _ in range(N_LEGACY))
    guests = [person for person, _ in g.people]
    contradictions = set(r.sample(range(N_LEGACY), N_CANCELLED_AND_SHIPPED))
    for i, placed in enumerate(times):
        number = f"WC-{48100 + 7 * i + r.randint(0, 6)}"
        customer = None if r.random() < 0.12 else shop.customer_at(placed)
        email = customer["email"] if customer else r.choice(guests).email
        money = customer["currency"] if customer else r.choice(["usd", "eur", "gbp"])
        lines, code, total = _lines_and_total(r, shop, customer, placed, money)
        intent = shop.intent(customer, placed, total, money, {
            "legacy_order": number, "legacy_charge": f"ch_1{token(r, 23)}"}, description=None)
        charge = shop.charge(intent, None, placed + r.randint(5, 60))
        _redeem(shop, code)
        if customer:
            shop.paid.add(customer["stripe_id"])
        order, items = shop.order(number, customer, email, placed, lines, money, code, intent,
                                  legacy=True)
        after = r.choices(list(LEGACY_AFTER), list(LEGACY_AFTER.values()))[0]
        if i in contradictions:  # MESS: imported cancelled, yet shipped and never refunded
            shop.ship(order, items, placed + r.randint(1, 3) * DAY)
            order.update(status="cancelled", cancelled_at=g.iso(placed + 2 * DAY),
                         cancel_reason="Customer asked to cancel")
            order["fulfillment_status"] = fulfillment_status(items)
            continue
        _after(g, shop, after, order, items, charge, placed, meta={"legacy_order": number})


def _checkout(g: Generation, shop: _Shop, created: int, placed: Placed, fate: str) -> None:
    """One checkout since the move (the identity's order: its number, buyer, time and first
    product): its payment, and the order if it was paid."""
    r, number = g.rng, placed.number
    customer = g.people[placed.buyer][1]
    money = customer["currency"]
    lines, code, total = _lines_and_total(r, shop, customer, created, money, first=placed.sku)
    manual = fate in ("manual", "expired", "authorized")
    skus = ",".join(sku for sku, _ in lines)
    intent = shop.intent(customer, created, total, money, {"order": number, "skus": skus},
                         description=f"Order {number}",
                         capture="manual" if manual else "automatic")
    method = r.choice(shop.cards[customer["stripe_id"]])
    at = created + r.randint(5, 90)
    if fate in ("declined_then_paid", "abandoned"):  # MESS: a declined card first
        shop.charge(intent, shop.new_card(customer, r.choice(data()["declines"]), created), at)
        at += r.randint(60, 1800)
    if fate == "abandoned":  # MESS: never paid; half canceled later
        if r.random() < 0.5:
            intent.update(status="canceled", cancellation_reason="abandoned",
                          canceled_at=at + 3 * DAY)
        return
    if fate == "canceled":
        intent.update(status="canceled", cancellation_reason="requested_by_customer",
                      canceled_at=at + r.randint(60, 7200))
        return
    if fate == "requires_action":  # MESS: 3-D Secure never finished
        method = shop.new_card(customer, "authenticationRequired", created)
        intent.update(status="requires_action", payment_method=method["stripe_id"],
                      return_url="https://shop.example/checkout/complete")
        intent["next_action"] = dumps({"type": "redirect_to_url", "redirect_to_url": {
            "url": challenge_url(intent), "return_url": intent["return_url"]}})
        return
    charge = shop.charge(intent, method, at, captured=not manual)
    _redeem(shop, code)
    shop.paid.add(customer["stripe_id"])
    order, items = shop.order(number, customer, customer["email"], created, lines, money,
                              code, intent, legacy=False)
    if fate == "duplicate":  # MESS: the order paid twice, a minute or two apart
        again = shop.intent(customer, created + r.randint(40, 150), total, money,
                            {"order": number, "skus": skus}, description=f"Order {number}")
        g.duplicates.append(shop.charge(again, method, again["created"] + r.randint(5, 30)))
    if fate == "expired":  # MESS: nobody shipped it in time: the authorization expired
        intent.update(status="canceled", cancellation_reason="automatic",
                      amount_capturable=0, canceled_at=charge["capture_before"])
        charge.update(amount_refunded=charge["amount"], refunded=1)
        return
    if fate == "authorized":  # waiting to ship: captured when it does
        return
    if fate == "manual":  # captured when it shipped; an item out of stock cancelled first
        _manual(g, shop, order, items, intent, charge)
        return
    age = (g.unix - created) / DAY
    if age < 1.5:
        return
    if age < 6:
        shipped = r.choice(["none", "some", "all"])
        if shipped == "all" or (shipped == "some" and len(items) == 1):
            shop.ship(order, items, created + r.randint(1, 2) * DAY)
        elif shipped == "some":
            shop.ship(order, items[:1], created + DAY)
        order["fulfillment_status"] = fulfillment_status(items)
        return
    after = r.choices(list(AFTER), list(AFTER.values()))[0]
    _after(g, shop, after, order, items, charge, created, meta={"order": number})


def _manual(g: Generation, shop: _Shop, order: Row, items: list[Row], intent: Row,
            charge: Row) -> None:
    r = g.rng
    if len(items) > 1 and r.random() < 0.4:  # MESS: captured less: an item cancelled
        item = items[-1]
        part = paid_for(item, item["quantity"])
        item["cancelled_quantity"] = item["quantity"]
        order.update(cancel_reason="Out of stock")
        released = part
    else:
        released = 0
    shipped_at = intent["created"] + r.randint(1, 5) * DAY
    shop.ship(order, items, shipped_at)
    captured = intent["amount"] - released
    charge.update(captured=1, amount_captured=captured, amount_refunded=released)
    intent.update(status="succeeded", amount_received=captured, amount_capturable=0)
    order["fulfillment_status"] = fulfillment_status(items)


def _after(g: Generation, shop: _Shop, after: str, order: Row, items: list[Row],
           charge: Row, placed: int, *, meta: dict[str, str]) -> None:
    """What became of a paid order: shipped, cancelled (all or an item), returned, refunded
    in part as a goodwill gesture, or stuck partly shipped."""
    r = g.rng
    ship_at = placed + r.randint(1, 3) * DAY
    if after == "cancelled":
        for item in items:
            item["cancelled_quantity"] = item["quantity"]
        when = placed + r.randint(600, 20000)
        order.update(status="cancelled", cancelled_at=g.iso(when),
                     cancel_reason=r.choice(["Ordered by mistake", "Found it cheaper",
                                             "Delivery too slow"]))
        shop.refund(charge, charge["amount_captured"], when + 300,
                    meta={**meta, "store": "cancellation"})
        return
    if after == "part_cancelled" and len(items) > 1:
        item = items[-1]
        shop.refund(charge, paid_for(item, item["quantity"]), placed + 3600,
                    meta={**meta, "store": "cancellation"})
        item["cancelled_quantity"] = item["quantity"]
        order["cancel_reason"] = "Customer removed an item before shipping"
    if after == "backorder" and len(items) > 1:  # MESS: one item never shipped
        shop.ship(order, items[:-1], ship_at)
        order["fulfillment_status"] = fulfillment_status(items)
        return
    shop.ship(order, items, ship_at)
    order["fulfillment_status"] = fulfillment_status(items)
    back = min(g.unix - 7200, ship_at + r.randint(5, 20) * DAY)
    if after == "returned" and back > ship_at + 2 * DAY:
        _return(g, shop, order, items, charge, back, meta)
    elif after == "goodwill":
        shop.refund(charge, max(1, charge["amount_captured"] // 5), back,
                    meta={**meta, "note": "late delivery"})


def _return(g: Generation, shop: _Shop, order: Row, items: list[Row], charge: Row, at: int,
            meta: dict[str, str]) -> None:
    """Some or all of an order's units back: restocked (unless damaged), refunded in full
    or less a 15% restocking fee."""
    r = g.rng
    taken = items if r.random() < 0.6 else [r.choice(items)]
    units = [(item, item["fulfilled_quantity"] - item["returned_quantity"]) for item in taken
             if item["fulfilled_quantity"] > item["returned_quantity"]]
    if not units:
        return
    paid = sum(paid_for(item, count, before=settled(item)) for item, count in units)
    amount = paid if r.random() < 0.7 else paid * 85 // 100
    refund = shop.refund(charge, amount, at, meta={**meta, "store": "return"})
    for item, count in units:
        item["returned_quantity"] += count
    row = g.add("returns", {
        "order_id": order["id"],
        "items": dumps([{"item_id": item["id"], "quantity": count} for item, count in units]),
        "restock": int(r.random() < 0.8), "refund": refund["stripe_id"],
        "amount_refunded": amount, "currency": order["currency"],
        "reason": r.choice(["Changed my mind", "Arrived damaged", "Not as described",
                            "Too big for the kitchen"]), "created_at": g.iso(at)})
    g.returned.append((row, refund, charge))


def _refund_mess(g: Generation, shop: _Shop) -> None:
    """Two of the duplicate charges refunded (the others still wait for someone to notice);
    the latest returns' refunds failed (the card was closed: nothing went back, though the
    return says refunded), wait on the customer, or are pending at the bank."""
    r = g.rng
    for charge in g.duplicates[:DUPLICATES_REFUNDED]:
        shop.refund(charge, charge["amount"], charge["created"] + r.randint(1, 4) * DAY,
                    reason="duplicate")
    recent = sorted(g.returned, key=lambda found: -found[1]["created"])
    fates = [status for status, count in REFUND_MESS for _ in range(count)]
    for (_, refund, charge), status in zip(recent, fates, strict=False):
        refund["status"] = status
        if status == "failed":
            refund["failure_reason"] = "expired_or_canceled_card"
            charge["amount_refunded"] -= refund["amount"]
            charge["refunded"] = 0
