"""18 months of payments: PaymentIntents for the seed's orders (their numbers in
``metadata.order``), their charges and refunds, with the mess production has: declined
attempts before a payment, abandoned and canceled intents, manual captures (some partial),
authorizations that expired and some still open, 3-D Secure left unfinished, orders charged
twice (some duplicates refunded, some not), pending, failed and waiting refunds."""

from __future__ import annotations

from ..cards import BY_NAME, card
from ..rules.common import dumps
from ..rules.payment_intents import AUTHORIZATION_TTL, challenge_url
from ..world import basket, card_values, data
from .common import DAY, Generation, Row

N_PAYMENTS = 400
SPAN_DAYS = 545
# Special fates, each given to this many intents of a suitable age (days ago, low-high).
SPECIAL = {"expired": (3, 9, 300), "authorized": (3, 0.2, 6), "requires_action": (2, 0.1, 2),
           "duplicate": (5, 10, 400)}
FATES = {"paid": 80, "declined_then_paid": 7, "abandoned": 4, "canceled": 3, "manual": 6}


class _Payments:
    def __init__(self, g: Generation) -> None:
        self.g = g
        self.cards: dict[str, list[Row]] = {}
        for method in g.tables["payment_methods"]:
            self.cards.setdefault(method["customer"], []).append(method)

    def intent(self, customer: Row, created: int, number: str, amount: int, skus: list[str],
               capture: str = "automatic") -> Row:
        g = self.g
        row = g.new("payment_intents", {
            "amount": amount, "currency": customer["currency"], "status": "succeeded",
            "customer": customer["stripe_id"], "payment_method": None,
            "capture_method": capture, "amount_capturable": 0, "amount_received": 0,
            "description": f"Order {number}", "receipt_email": customer["email"],
            "latest_charge": None, "last_payment_error": None, "next_action": None,
            "return_url": None, "client_secret": "", "cancellation_reason": None,
            "canceled_at": None, "metadata": dumps({"order": number, "skus": ",".join(skus)}),
            "created": created})
        secret = "".join(g.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(25))
        row["client_secret"] = f"{row['stripe_id']}_secret_{secret}"
        return row

    def charge(self, intent: Row, method: Row, created: int, *, captured: bool = True) -> Row:
        decline = card(method["test_card"]).decline
        row = self.g.new("charges", {
            "payment_intent": intent["stripe_id"], "customer": intent["customer"],
            "payment_method": method["stripe_id"], "amount": intent["amount"],
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
        intent.update(latest_charge=row["stripe_id"], payment_method=method["stripe_id"])
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
            self.g.rng, BY_NAME[name], customer["stripe_id"], created, customer["name"]))

    def refund(self, charge: Row, amount: int, created: int, *, status: str = "succeeded",
               reason: str | None = "requested_by_customer") -> Row:
        row = self.g.new("refunds", {
            "charge": charge["stripe_id"], "payment_intent": charge["payment_intent"],
            "amount": amount, "currency": charge["currency"], "status": status,
            "reason": reason, "metadata": "{}", "created": created,
            "failure_reason": "expired_or_canceled_card" if status == "failed" else None})
        if status != "failed":
            charge["amount_refunded"] += amount
            charge["refunded"] = int(charge["amount_refunded"] >= charge["amount"])
        return row


def _fates(g: Generation, times: list[int]) -> list[str]:
    """Each intent's fate: the special ones at intents of a suitable age, the rest drawn."""
    r, fates = g.rng, [""] * len(times)
    for fate, (count, low, high) in SPECIAL.items():
        fits = [i for i, t in enumerate(times)
                if not fates[i] and g.ago(high) <= t <= g.ago(low)]
        for i in r.sample(fits, min(count, len(fits))):
            fates[i] = fate
    for i, t in enumerate(times):
        if not fates[i]:
            fate = r.choices(list(FATES), list(FATES.values()))[0]
            fates[i] = "paid" if fate == "manual" and t > g.ago(8) else fate
    return fates


def build(g: Generation) -> None:
    r, pay = g.rng, _Payments(g)
    customers = [c for c in g.tables["customers"] if c["stripe_id"] in pay.cards]
    times = sorted(g.ago(r.uniform(0.05, SPAN_DAYS)) for _ in range(N_PAYMENTS))
    numbers = g.identity.order_numbers(N_PAYMENTS)
    paid: list[Row] = []
    for created, number, fate in zip(times, numbers, _fates(g, times), strict=True):
        customer = r.choice(customers)
        method = r.choice(pay.cards[customer["stripe_id"]])
        amount, skus = basket(r, customer["currency"])
        manual = fate in ("manual", "expired", "authorized")
        intent = pay.intent(customer, created, number, amount, skus,
                            "manual" if manual else "automatic")
        at = created + r.randint(5, 90)
        if fate in ("declined_then_paid", "abandoned"):
            declined = pay.new_card(customer, r.choice(data()["declines"]), created)
            pay.charge(intent, declined, at)
            at += r.randint(60, 1800)
        if fate == "abandoned":
            if r.random() < 0.5:
                intent.update(status="canceled", cancellation_reason="abandoned",
                              canceled_at=at + 3 * DAY)
            continue
        if fate == "canceled":
            intent.update(status="canceled", cancellation_reason="requested_by_customer",
                          canceled_at=at + r.randint(60, 7200))
            continue
        if fate == "requires_action":
            method = pay.new_card(customer, "authenticationRequired", created)
            intent.update(status="requires_action", payment_method=method["stripe_id"],
                          return_url="https://shop.example/checkout/complete")
            intent["next_action"] = dumps({"type": "redirect_to_url", "redirect_to_url": {
                "url": challenge_url(intent), "return_url": intent["return_url"]}})
            continue
        charge = pay.charge(intent, method, at, captured=not manual)
        if fate == "expired":  # MESS: an authorization nobody captured, released on expiry
            intent.update(status="canceled", cancellation_reason="automatic",
                          amount_capturable=0, canceled_at=charge["capture_before"])
            charge.update(amount_refunded=charge["amount"], refunded=1)
        elif fate == "manual":  # captured within the week, some of it only (partial)
            part = intent["amount"] * r.choice([100, 100, 100, 80, 60]) // 100
            charge.update(captured=1, amount_captured=part,
                          amount_refunded=intent["amount"] - part)
            intent.update(status="succeeded", amount_received=part, amount_capturable=0)
        if charge["captured"]:
            paid.append(charge)
        if fate == "duplicate":  # MESS: the order paid twice, a minute or two apart
            again = pay.intent(customer, created + r.randint(40, 150), number, amount, skus)
            paid.append(pay.charge(again, method, again["created"] + r.randint(5, 30)))
    _refunds(g, pay, paid)


def _refunds(g: Generation, pay: _Payments, paid: list[Row]) -> None:
    """Refunds of paid charges: full and partial ones, the duplicates (some refunded), and
    the mess: refunds still pending, failed, or waiting on the customer."""
    r = g.rng
    by_intent = {i["stripe_id"]: i for i in g.tables["payment_intents"]}
    orders: dict[str, list[Row]] = {}
    for charge in paid:
        order = by_intent[charge["payment_intent"]]["metadata"]
        orders.setdefault(order, []).append(charge)
    duplicates = [charges[-1] for charges in orders.values() if len(charges) > 1]
    for charge in duplicates[:2]:  # the others are still waiting for someone to notice
        pay.refund(charge, charge["amount"], charge["created"] + r.randint(1, 4) * DAY,
                   reason="duplicate")
    singles = [c for c in paid if c not in duplicates and c["amount_refunded"] == 0]
    picked = r.sample(singles, 40)
    for n, charge in enumerate(picked):
        later = min(g.now - 3600, charge["created"] + r.randint(2, 20) * DAY)
        if n < 18:
            pay.refund(charge, charge["amount_captured"], later)
        elif n < 32:  # returned, with a 15% restocking fee kept
            pay.refund(charge, charge["amount_captured"] * 85 // 100, later)
        elif n < 34:  # MESS: failed (the card was closed): nothing went back
            pay.refund(charge, charge["amount_captured"], later, status="failed")
        elif n < 36:  # MESS: waiting on the customer's new account details
            pay.refund(charge, charge["amount_captured"], later, status="requires_action")
        elif n < 38:  # MESS: still pending at the bank
            at = max(charge["created"] + 60, g.now - r.randint(1, 40) * 3600)
            pay.refund(charge, charge["amount_captured"] // 2, at, status="pending")
    g.disputable = [c for c in singles if c not in picked]
