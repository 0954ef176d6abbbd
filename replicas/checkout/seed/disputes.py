"""Disputes of paid charges in every status: chargebacks awaiting a response (due soon),
under review, won and lost; inquiries awaiting a response and closed."""

from __future__ import annotations

from ..rules.common import dumps
from ..world import data
from .common import DAY, Generation

# (status, days ago it was opened); evidence is due 10 days after opening.
DISPUTES = (("needs_response", 2), ("needs_response", 6), ("warning_needs_response", 3),
            ("under_review", 25), ("warning_under_review", 12), ("won", 90), ("lost", 140),
            ("warning_closed", 200))
RESPONSE_DAYS = 10


def build(g: Generation) -> None:
    r = g.rng
    for status, days in DISPUTES:
        opened = g.unix_ago(days)
        charge = r.choice([c for c in g.disputable if c["created"] < opened - 3 * DAY
                           and not c["disputed"]])
        charge["disputed"] = 1
        answered = status in ("under_review", "warning_under_review", "won", "lost")
        g.new("disputes", {
            "charge": charge["stripe_id"], "payment_intent": charge["payment_intent"],
            "amount": charge["amount_captured"], "currency": charge["currency"],
            "status": status, "reason": r.choice(data()["dispute_reasons"]),
            "evidence": dumps({"product_description": "Coffee equipment and beans, shipped "
                               "with tracking.", "uncategorized_text": "Signed for on "
                               "delivery."}) if answered else "{}",
            "due_by": opened + RESPONSE_DAYS * DAY, "has_evidence": int(answered),
            "submission_count": int(answered),
            "is_charge_refundable": int(status == "warning_needs_response"),
            "metadata": "{}", "created": opened})
