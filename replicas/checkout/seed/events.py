"""The events of the last 30 days (Stripe keeps 30 days of them): what became of each object
made in that time, with the object as it is."""

from __future__ import annotations

from typing import Any

from ..render import CONVERTERS, charge, refund
from ..rules.common import dumps
from .common import Generation

KEPT_DAYS = 30
# The event of an intent's final status.
INTENT_EVENTS = {"succeeded": "payment_intent.succeeded",
                 "requires_payment_method": "payment_intent.payment_failed",
                 "requires_capture": "payment_intent.amount_capturable_updated",
                 "requires_action": "payment_intent.requires_action",
                 "canceled": "payment_intent.canceled"}


def build(g: Generation) -> None:
    since = g.unix_ago(KEPT_DAYS)
    methods = {m["stripe_id"]: m for m in g.tables["payment_methods"]}
    moved = {(t["source"], t["type"]): t["stripe_id"] for t in g.tables["balance_transactions"]}
    found: list[tuple[int, str, Any]] = []
    for row in g.tables["payment_intents"]:
        if row["created"] >= since:
            found.append((row["created"], INTENT_EVENTS[row["status"]],
                          CONVERTERS["payment_intents"](row, g.unix)))
    for row in g.tables["charges"]:
        if row["created"] >= since:
            kind = "charge.succeeded" if row["status"] == "succeeded" else "charge.failed"
            found.append((row["created"], kind, charge(row, methods.get(row["payment_method"]),
                                                       moved.get((row["stripe_id"], "charge")))))
    for row in g.tables["refunds"]:
        if row["created"] >= since:
            found.append((row["created"], "refund.created", refund(
                row, moved.get((row["stripe_id"], "refund")),
                moved.get((row["stripe_id"], "refund_failure")))))
    for row in g.tables["disputes"]:
        if row["created"] >= since:
            found.append((row["created"], "charge.dispute.created",
                          CONVERTERS["disputes"](row, g.unix)))
    paid_at = {c["payment_intent"]: c["created"] for c in g.tables["charges"]
               if c["status"] == "succeeded"}
    for row in g.tables["checkout_sessions"]:
        if row["status"] == "expired" and row["expires_at"] >= since:
            found.append((row["expires_at"], "checkout.session.expired",
                          CONVERTERS["checkout_sessions"](row, g.unix)))
        elif row["status"] == "complete" and paid_at[row["payment_intent"]] >= since:
            found.append((paid_at[row["payment_intent"]], "checkout.session.completed",
                          CONVERTERS["checkout_sessions"](row, g.unix)))
    for created, kind, obj in sorted(found, key=lambda item: (item[0], item[1])):
        g.new("events", {"type": kind, "data": dumps({"object": obj}),
                         "idempotency_key": None, "created": created})


