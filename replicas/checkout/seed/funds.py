"""The account's balance: a balance transaction for every captured charge (less Stripe's fee)
and refund (a failed one: and its refund_failure), and the weekly automatic payouts that sent
what was available to the bank since the shop moved here (the latest still in transit)."""

from __future__ import annotations

from ..rules.funds import ARRIVAL, AVAILABLE_AFTER, fee
from .common import DAY, Generation
from .customers import MOVED_DAYS

WEEK = 7 * DAY


def build(g: Generation) -> None:
    for charge in sorted(g.tables["charges"], key=lambda c: (c["created"], c["id"])):
        if charge["captured"] and charge["amount_captured"]:
            g.new("balance_transactions", {
                "type": "charge", "source": charge["stripe_id"],
                "amount": charge["amount_captured"],
                "fee": fee(charge["amount_captured"], charge["currency"]),
                "currency": charge["currency"], "description": charge["description"],
                "available_on": charge["created"] + AVAILABLE_AFTER,
                "created": charge["created"]})
    for refund in g.tables["refunds"]:
        # A failed refund took its amount and gave it back (docs.stripe.com/refunds
        # #failed-refunds: a refund_failure balance transaction).
        taken = {"succeeded": [("refund", -1)], "pending": [("refund", -1)],
                 "failed": [("refund", -1), ("refund_failure", 1)]}.get(refund["status"], [])
        for kind, sign in taken:
            g.new("balance_transactions", {
                "type": kind, "source": refund["stripe_id"], "amount": sign * refund["amount"],
                "fee": 0, "currency": refund["currency"],
                "description": "REFUND FOR CHARGE" if sign < 0 else "REFUND FAILURE",
                "available_on": refund["created"], "created": refund["created"]})
    moved = g.unix_ago(MOVED_DAYS)
    by_currency: dict[str, list[tuple[int, int]]] = {}
    for t in g.tables["balance_transactions"]:
        by_currency.setdefault(t["currency"], []).append((t["available_on"],
                                                          t["amount"] - t["fee"]))
    for code, moves in sorted(by_currency.items()):
        moves.sort()
        due, i = 0, 0
        for at in range(moved, g.unix, WEEK):
            while i < len(moves) and moves[i][0] <= at:
                due, i = due + moves[i][1], i + 1
            if due > 0:
                _payout(g, code, due, at)
                due = 0


def _payout(g: Generation, code: str, amount: int, at: int) -> None:
    arrival = at + ARRIVAL["standard"]
    payout = g.new("payouts", {
        "amount": amount, "currency": code,
        "status": "paid" if arrival <= g.unix else "in_transit", "method": "standard",
        "automatic": 1, "arrival_date": arrival, "description": "STRIPE PAYOUT",
        "statement_descriptor": None, "balance_transaction": None, "metadata": "{}",
        "created": at})
    txn = g.new("balance_transactions", {
        "type": "payout", "source": payout["stripe_id"], "amount": -amount, "fee": 0,
        "currency": code, "description": "STRIPE PAYOUT", "available_on": at, "created": at})
    payout["balance_transaction"] = txn["stripe_id"]
