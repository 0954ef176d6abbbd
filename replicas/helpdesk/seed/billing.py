"""The shop's money: orders (numbered by the seed's identity), their charges, refunds and
manager approvals, with the deliberate mess (orders both cancelled and fulfilled, duplicate
captures, failed-then-retried charges)."""

from __future__ import annotations

from datetime import datetime, timedelta

from replicas.runtime.clock import iso, parse_iso
from workgym_core.money import format_money

from ..rules.billing import REFUND_APPROVAL_THRESHOLD_USD, usd_equivalent
from ..world import FAILURE_REASONS, charge, draw_items, order_dates
from .common import Generation, Row

N_ORDERS = 480
N_DOUBLE_CHARGED = 6
N_CANCELLED_AND_FULFILLED = 5
N_FULFILLED_WITH_CANCELLED_AT = 2


def build(g: Generation) -> None:
    build_orders(g)
    build_payments(g)


def build_orders(g: Generation) -> None:
    r = g.rng
    customers = g.tables["customers"]
    placed = sorted(
        g.ago(days=r.random() * 200, hours=r.random() * 24) for _ in range(N_ORDERS)
    )
    numbers = g.identity.order_numbers(N_ORDERS)  # in the order the orders were placed
    orders: list[Row] = []
    for i, (placed_at, number) in enumerate(zip(placed, numbers, strict=True), start=1):
        customer = r.choice(customers)
        currency = g.currency[customer["id"]]
        items, total = draw_items(r, currency)
        age = (g.now - placed_at).days
        if age < 2:
            status = "placed"
        else:
            status = r.choices(
                ["fulfilled", "cancelled", "returned", "placed"],
                [75, 10, 8, 7 if age < 10 else 0],
            )[0]
        fulfilled_at, cancelled_at = order_dates(r, status, placed_at, g.now)
        orders.append(
            {
                "id": i,
                "number": number,
                "customer_id": customer["id"],
                "currency": currency,
                "total": total,
                "status": status,
                "items": items,
                "placed_at": iso(placed_at),
                "fulfilled_at": fulfilled_at,
                "cancelled_at": cancelled_at,
            }
        )
    old_enough = [o for o in orders if (g.now - parse_iso(o["placed_at"])).days > 10]
    # MESS: orders both cancelled and fulfilled.
    cf = r.sample(
        [o for o in old_enough if o["status"] == "fulfilled"],
        N_CANCELLED_AND_FULFILLED + N_FULFILLED_WITH_CANCELLED_AT,
    )
    for index, o in enumerate(cf):
        o["cancelled_at"] = iso(parse_iso(o["fulfilled_at"]) + timedelta(hours=r.randint(2, 30)))
        if index < N_CANCELLED_AND_FULFILLED:
            o["status"] = "cancelled"
    g.cancelled_and_fulfilled = [o["id"] for o in cf]
    # MESS (made by build_payments): these orders are captured twice.
    g.double_charged = sorted(o["id"] for o in r.sample(
        [o for o in old_enough
         if o["status"] == "fulfilled" and o["id"] not in g.cancelled_and_fulfilled],
        N_DOUBLE_CHARGED,
    ))
    g.tables["orders"] = orders


class _Ledger:
    """The charges, refunds and approvals being written, with ids in the order made."""

    def __init__(self, g: Generation) -> None:
        self.g = g
        self.billing = g.group_agents[g.group_ids["Billing"]]
        self.charges: list[Row] = []
        self.refunds: list[Row] = []
        self.approvals: list[Row] = []

    def charge(self, o: Row, at: datetime, status: str, reason: str | None = None) -> Row:
        row = {"id": len(self.charges) + 1, **charge(self.g.rng, o, at, status, reason)}
        self.charges.append(row)
        return row

    def approval(self, c: Row, amount: int, reason: str, agent: int, status: str, note: str,
                 at: datetime, decided: datetime) -> int:
        self.approvals.append({
            "id": len(self.approvals) + 1,
            "subject_type": "refund",
            "charge_id": c["id"],
            "ticket_id": None,
            "amount": amount,
            "currency": c["currency"],
            "reason": reason,
            "requested_by": agent,
            "approver_id": self.g.billing_manager,
            "status": status,
            "decision_note": note,
            "created_at": iso(at),
            "decided_at": iso(decided),
        })
        return len(self.approvals)

    def refund(self, c: Row, amount: int, kind: str, reason: str, at: datetime) -> None:
        """A refund by a Billing agent, approved first when it is large enough to need it."""
        approval_id = None
        agent = self.g.rng.choice(self.billing)
        if usd_equivalent(amount, c["currency"]) > REFUND_APPROVAL_THRESHOLD_USD:
            asked = at - timedelta(minutes=20)
            approval_id = self.approval(c, amount, reason, agent, "approved",
                                        "Approved: within the manager approval limit.",
                                        asked, asked)
        self.refunds.append({
            "id": len(self.refunds) + 1,
            "charge_id": c["id"],
            "amount": amount,
            "currency": c["currency"],
            "kind": kind,
            "reason": reason,
            "used_days": None,
            "total_days": None,
            "approval_id": approval_id,
            "ticket_id": None,
            "created_by": agent,
            "created_at": iso(at),
        })
        total = sum(x["amount"] for x in self.refunds if x["charge_id"] == c["id"])
        c["status"] = "refunded" if total >= c["amount"] else "partially_refunded"


def build_payments(g: Generation) -> None:
    """Every order's charge (some after a failed attempt), the refunds its fate calls for,
    and a few denied approvals in the history."""
    r, ledger = g.rng, _Ledger(g)
    cf_ids, double = set(g.cancelled_and_fulfilled), set(g.double_charged)
    for o in g.tables["orders"]:
        at = parse_iso(o["placed_at"]) + timedelta(seconds=r.randint(2, 40))
        if r.random() < 0.06:
            ledger.charge(o, at, "failed", r.choice(FAILURE_REASONS))
            at += timedelta(minutes=r.randint(2, 30))
        c = ledger.charge(o, at, "captured")
        if o["id"] in double:
            # MESS: the same order captured twice, a minute or two apart.
            ledger.charge(o, at + timedelta(minutes=r.randint(1, 3)), "captured")
        if o["status"] == "cancelled" and o["id"] not in cf_ids:
            when = parse_iso(o["cancelled_at"]) + timedelta(minutes=5)
            ledger.refund(c, c["amount"], "full", "Order cancelled before shipping", when)
        elif o["status"] == "returned":
            ful = parse_iso(o["fulfilled_at"])
            when = min(g.now - timedelta(hours=2), ful + timedelta(days=r.randint(3, 12)))
            if r.random() < 0.3:
                ledger.refund(c, c["amount"] * 85 // 100, "partial",
                              "Returned item, 15% restocking fee", when)
            else:
                ledger.refund(c, c["amount"], "full", "Item returned", when)
        elif o["status"] == "fulfilled" and r.random() < 0.04 and o["id"] not in double:
            ful = parse_iso(o["fulfilled_at"])
            when = min(g.now - timedelta(hours=2), ful + timedelta(days=r.randint(2, 8)))
            ledger.refund(c, max(1, c["amount"] // 5), "partial",
                          "Goodwill credit: late delivery", when)
    # A few denied approvals in the history (above the manager limit).
    for _ in range(3):
        c = r.choice(ledger.charges)
        at = g.ago(days=r.randint(5, 150))
        amount = c["amount"] * 12
        ledger.approval(c, amount, "Customer requests compensation for business losses",
                        r.choice(ledger.billing), "denied",
                        f"Denied: {format_money(amount, c['currency'])} is above what the "
                        "charge allows.", at, at + timedelta(minutes=45))
    g.tables["charges"] = ledger.charges
    g.tables["approvals"] = ledger.approvals
    g.tables["refunds"] = ledger.refunds
