"""The Bean Club's subscriptions (the catalogue's recurring prices) and their invoices, each
period paid by card; and the mess: subscriptions past due and unpaid (a card that declines),
trials, one ending at its period's end, cancelled ones; one-off invoices still drafts, one
sent and overdue; a customer with a credit balance waiting for their next invoice."""

from __future__ import annotations

from ..cards import BY_NAME
from ..rules.invoices import NUMBER_PREFIX, line_description
from ..rules.subscriptions import RETRY_WINDOW, period_end
from ..world import card_values, data
from .common import DAY, Generation, Row
from .customers import N_LEGACY

# (kind, how many, the plan's SKU, days ago it started: low, high)
SUBSCRIPTIONS = (
    ("active", 14, "CB-01M", 20, 300), ("active", 3, "CB-12M", 30, 300),
    ("past_due", 2, "CB-01M", 40, 200), ("unpaid", 1, "CB-01M", 80, 200),
    ("trialing", 2, "CB-01M", 2, 10), ("ending", 1, "CB-01M", 60, 200),
    ("canceled", 2, "CB-01M", 150, 300),
)
TRIAL_DAYS = 14
FEEDBACK = ("too_expensive", "unused", "switched_service", "other")
CREDIT = 1500  # the goodwill credit one subscriber's next invoice will use


class _Billing:
    def __init__(self, g: Generation) -> None:
        self.g, self.r = g, g.rng
        self.names = {p["stripe_id"]: p["name"] for p in g.tables["products"]}
        self.prices = {p["stripe_id"]: p for p in g.tables["prices"]}
        self.numbered = 0

    def invoice(self, customer: Row, sub: Row | None, lines: list[tuple[Row, int]],
                start: int, end: int, *, reason: str, status: str,
                method: Row | None = None, due_date: int | None = None) -> Row:
        """An invoice of ``lines`` (price, quantity), finalized at ``start`` unless a draft;
        paid with ``method`` when ``status`` is paid, declined by it when open."""
        total = sum(price["unit_amount"] * quantity for price, quantity in lines)
        number = None
        if status != "draft":
            self.numbered += 1
            number = f"{NUMBER_PREFIX}-{self.numbered:04d}"
        row = self.g.new("invoices", {
            "customer": customer["stripe_id"], "subscription": sub and sub["stripe_id"],
            "status": status, "billing_reason": reason,
            "collection_method": "send_invoice" if due_date else "charge_automatically",
            "currency": lines[0][0]["currency"], "number": number, "description": None,
            "subtotal": total, "total": total, "starting_balance": 0,
            "ending_balance": None if status == "draft" else 0,
            "pre_payment_credit_notes_amount": 0, "post_payment_credit_notes_amount": 0,
            "amount_paid": 0, "attempt_count": 0, "auto_advance": 1,
            "days_until_due": None, "due_date": due_date, "default_payment_method": None,
            "payment_intent": None, "period_start": start, "period_end": end,
            "finalized_at": None if status == "draft" else start,
            "paid_at": None, "voided_at": None, "marked_uncollectible_at": None,
            "metadata": "{}", "created": start})
        for price, quantity in lines:
            item = sub and next(i for i in self.g.tables["subscription_items"]
                                if i["subscription"] == sub["stripe_id"])
            self.g.new("invoice_lines", {
                "invoice": row["stripe_id"], "amount": price["unit_amount"] * quantity,
                "currency": price["currency"], "quantity": quantity, "price": price["stripe_id"],
                "description": line_description(self.names[price["product"]], price,
                                                quantity),
                "subscription": sub and sub["stripe_id"],
                "subscription_item": item and item["stripe_id"], "period_start": start,
                "period_end": end, "metadata": "{}", "created": start})
        if method is not None and total:
            self._pay(row, customer, method, status, total)
        elif status == "paid":
            row.update(paid_at=start)
        return row

    def _pay(self, row: Row, customer: Row, method: Row, status: str, total: int) -> None:
        shop, attempts = self.g.shop, 1 if status == "paid" else self.r.randint(1, 3)
        intent = shop.intent(customer, row["created"], total, row["currency"], {},
                             description=f"Payment for Invoice {row['number']}")
        for attempt in range(attempts):
            shop.charge(intent, method, row["created"] + attempt * 3 * DAY)
        row.update(payment_intent=intent["stripe_id"], attempt_count=attempts,
                   amount_paid=total if status == "paid" else 0,
                   paid_at=row["created"] if status == "paid" else None)

    def subscription(self, kind: str, customer: Row, method: Row, price: Row,
                     started: int) -> None:
        g, r, now = self.g, self.r, self.g.unix
        interval, count = price["recurring_interval"], price["recurring_interval_count"]
        trial_end = started + TRIAL_DAYS * DAY if kind == "trialing" else None
        sub = g.new("subscriptions", {
            "customer": customer["stripe_id"], "status": "active",
            "currency": price["currency"], "collection_method": "charge_automatically",
            "days_until_due": None, "default_payment_method": method["stripe_id"],
            "description": None, "current_period_start": started,
            "current_period_end": started, "billing_cycle_anchor": trial_end or started,
            "start_date": started, "trial_start": started if trial_end else None,
            "trial_end": trial_end, "cancel_at_period_end": 0, "cancel_at": None,
            "canceled_at": None, "ended_at": None, "cancellation_reason": None,
            "cancellation_comment": None, "cancellation_feedback": None,
            "latest_invoice": None, "metadata": "{}", "created": started})
        g.new("subscription_items", {"subscription": sub["stripe_id"],
                                     "price": price["stripe_id"], "quantity": 1,
                                     "metadata": "{}", "created": started})
        ended = now - r.randint(20, 60) * DAY if kind == "canceled" else None
        # MESS: the card on file now declines: the latest renewal stays open (past due), or
        # has for longer than the retries last (unpaid).
        declining = g.new("payment_methods", card_values(
            r, BY_NAME["chargeDeclinedInsufficientFunds"], customer["stripe_id"], started,
            customer["name"])) if kind in ("past_due", "unpaid") else None
        start, end = started, trial_end or period_end(started, interval, count)
        invoice = self.invoice(customer, sub, [(price, 1)], start, end,
                               reason="subscription_create", status="paid",
                               method=None if trial_end else method)
        while end <= (ended or now):
            start, end = end, period_end(end, interval, count)
            last = end > now and kind in ("past_due", "unpaid")
            invoice = self.invoice(customer, sub, [(price, 1)], start, end,
                                   reason="subscription_cycle",
                                   status="open" if last else "paid",
                                   method=declining if last else method)
        sub.update(current_period_start=start, current_period_end=end,
                   latest_invoice=invoice["stripe_id"],
                   status="trialing" if trial_end else "active")
        if declining is not None:
            sub.update(default_payment_method=declining["stripe_id"], status=kind)
        elif kind == "ending":
            sub.update(cancel_at_period_end=1, cancel_at=end,
                       canceled_at=now - r.randint(1, 9) * DAY,
                       cancellation_feedback=r.choice(FEEDBACK))
        elif kind == "canceled":
            sub.update(status="canceled", ended_at=ended, canceled_at=ended,
                       current_period_end=ended, cancellation_reason="cancellation_requested",
                       cancellation_feedback=r.choice(FEEDBACK))


def _start(g: Generation, kind: str, low: int, high: int, price: Row) -> int:
    """When a subscription of ``kind`` started: an unpaid one's latest renewal is older than
    the retries last, a past-due one's is not (drawn again until it is so)."""
    r, now = g.rng, g.unix
    while True:
        started = now - r.randint(low * DAY, high * DAY)
        if kind not in ("past_due", "unpaid"):
            return started
        renewed, end = started, period_end(started, price["recurring_interval"], 1)
        while end <= now:
            renewed, end = end, period_end(end, price["recurring_interval"], 1)
        if renewed != started and (now - renewed > RETRY_WINDOW) == (kind == "unpaid"):
            return started


def build(g: Generation) -> None:
    r = g.rng
    billing = _Billing(g)
    cards: dict[str, list[Row]] = {}
    for method in g.tables["payment_methods"]:
        cards.setdefault(method["customer"], []).append(method)
    twice = {c["email"] for c in g.tables["customers"] if "guest_checkout" in c["metadata"]}
    people = r.sample([c for _, c in g.people[N_LEGACY:]
                       if cards.get(c["stripe_id"]) and c["email"] not in twice],
                      sum(n for _, n, *_ in SUBSCRIPTIONS) + 3)
    for kind, n, sku, low, high in SUBSCRIPTIONS:
        for _ in range(n):
            customer = people.pop()
            price = billing.prices[g.price_of[(sku, customer["currency"])]]
            started = _start(g, kind, low, high, price)
            billing.subscription(kind, customer, cards[customer["stripe_id"]][0], price,
                                 started)
    _one_off(g, billing, people)
    # MESS: a goodwill credit on a subscriber's balance, for their next renewal.
    sub = r.choice([s for s in g.tables["subscriptions"] if s["status"] == "active"])
    customer = next(c for c in g.tables["customers"] if c["stripe_id"] == sub["customer"])
    customer["balance"] = -CREDIT
    g.new("customer_balance_transactions", {
        "customer": customer["stripe_id"], "amount": -CREDIT, "currency": customer["currency"],
        "type": "adjustment", "description": "Goodwill credit: Bean Club box arrived late",
        "ending_balance": -CREDIT, "invoice": None, "credit_note": None, "metadata": "{}",
        "created": g.unix_ago(r.uniform(2, 10))})


def _one_off(g: Generation, billing: _Billing, people: list[Row]) -> None:
    """Wholesale orders invoiced by hand (send_invoice): two drafts never sent (MESS), one
    sent and overdue (MESS)."""
    r = g.rng
    skus = [sku for sku, spec in data()["products"].items() if not spec.get("interval")]
    for status, days in (("draft", 3), ("draft", 12), ("open", 45)):
        customer = people.pop()
        lines: list[tuple[Row, int]] = [
            (billing.prices[g.price_of[(sku, customer["currency"])]], r.randint(2, 6))
            for sku in r.sample(skus, 2)]
        at = g.unix_ago(days)
        billing.invoice(customer, None, lines, at, at, reason="manual", status=status,
                        due_date=at + 30 * DAY)

