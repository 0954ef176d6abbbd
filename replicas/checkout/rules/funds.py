"""The account's Stripe balance (docs.stripe.com/payments/balances): a balance transaction
for every charge captured (its amount less Stripe's fee), refund (its amount back, no fee
returned), refund that failed (the amount returned: ``refund_failure``) and payout; funds
become available ``AVAILABLE_AFTER`` a charge (docs.stripe.com/payouts: the payout
schedule), and payouts send what is available to the bank (docs.stripe.com/api/payouts).

A payout is ``pending``, ``in_transit`` once sent (``IN_TRANSIT_AFTER``), ``paid`` on its
``arrival_date``; only a pending one can be canceled (its amount comes back:
``payout_cancel``). More than is available is ``balance_insufficient``. Statuses move on the
episode's clock before every write, as authorizations expire. Fees and timings are **ours**
(Stripe's depend on the account's country and pricing): FEES below.
"""

from __future__ import annotations

from ..errors import InvalidRequestError
from ..render import Row
from ..schemas.billing import PayoutCreate, PayoutUpdate
from .common import World, currency, metadata, text

HOUR, DAY = 3600, 86400
# Stripe's standard card pricing as this account pays it: percent (in basis points) and a
# fixed part per currency, in its minor unit (**ours** outside USD).
FEE_BPS = 290
FEE_FIXED = {"usd": 30, "eur": 25, "gbp": 20, "jpy": 40, "krw": 400, "cad": 30, "aud": 30,
             "chf": 30, "sek": 300, "nzd": 30}
AVAILABLE_AFTER = 2 * DAY
IN_TRANSIT_AFTER = HOUR
ARRIVAL = {"standard": 2 * DAY, "instant": 30 * 60}


def fee(amount: int, code: str) -> int:
    """Stripe's processing fee of a charge of ``amount`` in ``code``."""
    return (amount * FEE_BPS + 5000) // 10000 + FEE_FIXED[code]


def charged(w: World, charge: Row) -> Row:
    """The transaction of a charge's captured funds."""
    amount = charge["amount_captured"]
    return w.create("balance_transactions", {
        "type": "charge", "source": charge["stripe_id"], "amount": amount,
        "fee": fee(amount, charge["currency"]), "currency": charge["currency"],
        "description": charge["description"], "available_on": w.now + AVAILABLE_AFTER})


def refunded(w: World, refund: Row) -> Row:
    """The transaction of a refund: its amount leaves the balance at once."""
    return w.create("balance_transactions", {
        "type": "refund", "source": refund["stripe_id"], "amount": -refund["amount"],
        "fee": 0, "currency": refund["currency"], "description": "REFUND FOR CHARGE",
        "available_on": w.now})


def refund_failed(w: World, refund: Row) -> Row:
    """The transaction of a refund that failed: its amount comes back to the balance
    (docs.stripe.com/refunds#failed-refunds: a ``refund_failure`` balance transaction)."""
    return w.create("balance_transactions", {
        "type": "refund_failure", "source": refund["stripe_id"], "amount": refund["amount"],
        "fee": 0, "currency": refund["currency"], "description": "REFUND FAILURE",
        "available_on": w.now})


def available(w: World, code: str) -> int:
    """What can be paid out in ``code`` now."""
    return next((int(a["amount"]) for a in balance(w)["available"] if a["currency"] == code), 0)


def balance(w: World) -> Row:
    """The Balance object: available and pending funds per currency the account has had."""
    rows = w.db.execute(
        "SELECT currency, coalesce(sum(CASE WHEN available_on <= ? OR amount < 0 THEN "
        "amount - fee ELSE 0 END), 0) AS available, coalesce(sum(CASE WHEN available_on > ? "
        "AND amount >= 0 THEN amount - fee ELSE 0 END), 0) AS pending FROM "
        "balance_transactions GROUP BY currency ORDER BY currency", (w.now, w.now)).fetchall()
    def amounts(key: str) -> list[Row]:
        return [{"amount": r[key], "currency": r["currency"],
                 "source_types": {"card": r[key]}} for r in rows]
    return {"object": "balance", "available": amounts("available"), "livemode": False,
            "pending": amounts("pending")}


def create_payout(w: World, body: PayoutCreate) -> Row:
    code = currency(body.currency)
    method = body.method or "standard"
    if body.amount > available(w, code):
        raise InvalidRequestError(
            "You have insufficient funds in your Stripe account for this transfer. Your card "
            "balance is too low.", code="balance_insufficient", param="amount")
    row = w.create("payouts", {
        "amount": body.amount, "currency": code, "status": "pending", "method": method,
        "automatic": 0, "arrival_date": w.now + ARRIVAL[method],
        "description": text(body.description),
        "statement_descriptor": text(body.statement_descriptor),
        "metadata": metadata("{}", body.metadata)})
    txn = w.create("balance_transactions", {
        "type": "payout", "source": row["stripe_id"], "amount": -body.amount, "fee": 0,
        "currency": code, "description": row["description"] or "STRIPE PAYOUT",
        "available_on": w.now})
    row = w.update("payouts", row, {"balance_transaction": txn["stripe_id"]})
    w.emit("payout.created", "payouts", row)
    return row


def update_payout(w: World, row: Row, body: PayoutUpdate) -> Row:
    row = w.update("payouts", row, {"metadata": metadata(row["metadata"], body.metadata)})
    w.emit("payout.updated", "payouts", row)
    return row


def cancel_payout(w: World, row: Row) -> Row:
    if row["status"] != "pending":
        raise InvalidRequestError(
            f"Payout {row['stripe_id']} cannot be canceled because it has a status of "
            f"{row['status']}. Only a pending payout can be canceled.",
            code="payout_unexpected_state", param="payout")
    w.create("balance_transactions", {
        "type": "payout_cancel", "source": row["stripe_id"], "amount": row["amount"],
        "fee": 0, "currency": row["currency"], "description": "Payout canceled",
        "available_on": w.now})
    row = w.update("payouts", row, {"status": "canceled"})
    w.emit("payout.canceled", "payouts", row)
    return row


def advance_payouts(w: World) -> None:
    """Payouts sent (in_transit) and arrived (paid) by the episode's clock."""
    for row in w.db.execute("SELECT * FROM payouts WHERE status IN ('pending', 'in_transit') "
                            "AND (arrival_date <= ? OR created <= ?) ORDER BY id",
                            (w.now, w.now - IN_TRANSIT_AFTER)).fetchall():
        status = "paid" if row["arrival_date"] <= w.now else "in_transit"
        if status != row["status"]:
            row = w.update("payouts", row, {"status": status})
            w.emit("payout.paid" if status == "paid" else "payout.updated", "payouts", row)
