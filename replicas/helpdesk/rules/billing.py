"""Money rules: currencies, refunds (full, partial, prorated; windows by tier) and the
manager approvals large refunds need."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.db import get_row
from workgym_core.errors import RuleViolation
from workgym_core.money import format_money

from .common import ACTING_AGENT_ID

# US cents per 100 minor units of each currency (fixed rates; JPY has no minor unit).
USD_CENTS_PER_100_MINOR = {"USD": 100, "EUR": 108, "GBP": 127, "JPY": 67}
# Refunds above this (USD-equivalent minor units, i.e. USD 500.00), with the charge's earlier
# refunds, need a manager approval.
REFUND_APPROVAL_THRESHOLD_USD = 50_000
# Managers approve refund requests up to this (USD 5,000.00); larger ones are denied.
MANAGER_APPROVAL_LIMIT_USD = 500_000
# Days a refund may be issued after fulfilment (or capture when never fulfilled).
REFUND_WINDOW_DAYS = {"standard": 14, "silver": 30, "gold": 60, "platinum": 90}


def usd_equivalent(amount: int, currency: str) -> int:
    """``amount`` (minor units of ``currency``) in US cents, at the fixed rates."""
    return amount * USD_CENTS_PER_100_MINOR[currency] // 100





def refunded_total(db: sqlite3.Connection, charge_id: int) -> int:
    row = sql.one(
        db, "SELECT coalesce(sum(amount), 0) AS n FROM refunds WHERE charge_id = ?", (charge_id,)
    )
    assert row is not None
    return int(row["n"])



def _approver(db: sqlite3.Connection) -> dict[str, Any]:
    """The manager deciding refund approvals: Billing's manager (lowest id), else any."""
    row = sql.one(
        db,
        """
        SELECT a.* FROM agents a JOIN groups g ON g.id = a.group_id
        WHERE a.role = 'manager' AND a.active
        ORDER BY (g.name = 'Billing') DESC, a.id LIMIT 1""",
    )
    if row is None:
        raise RuleViolation(
            "no active manager can approve refunds", code="no_approver", rule="approver_exists"
        )
    return row


def create_approval(
    db: sqlite3.Connection,
    *,
    amount: int,
    currency: str,
    reason: str,
    charge_id: int | None,
    ticket_id: int | None,
    now: datetime,
) -> dict[str, Any]:
    """Ask a manager to approve a refund; decided at once, deterministically.

    Approved when the amount is within the manager limit (USD 5,000.00 equivalent)
    and, for a given charge, within what is still refundable; denied otherwise.
    """
    note = ""
    if charge_id is not None:
        charge = get_row(db, "charges", charge_id, field="charge_id")
        if charge["currency"] != currency:
            raise RuleViolation(
                f"charge {charge_id} is in {charge['currency']}, not {currency}",
                code="currency_mismatch",
                field="currency",
                rule="refund_currency_matches_charge",
            )
        remaining = charge["amount"] - refunded_total(db, charge_id)
        if amount > remaining:
            note = (
                f"Denied: {format_money(amount, currency)} exceeds the "
                f"{format_money(remaining, currency)} still refundable on charge {charge_id}."
            )
    if ticket_id is not None:
        get_row(db, "tickets", ticket_id, field="ticket_id")
    approver = _approver(db)
    if not note and usd_equivalent(amount, currency) > MANAGER_APPROVAL_LIMIT_USD:
        note = (
            f"Denied: {format_money(amount, currency)} is above the manager approval limit; "
            "refunds this large go to Finance."
        )
    status = "denied" if note else "approved"
    if not note:
        note = f"Approved by {approver['name']}: within the manager approval limit."
    stamp = iso(now)
    approval_id = sql.insert(
        db,
        "approvals",
        {
            "subject_type": "refund",
            "charge_id": charge_id,
            "ticket_id": ticket_id,
            "amount": amount,
            "currency": currency,
            "reason": reason,
            "requested_by": ACTING_AGENT_ID,
            "approver_id": approver["id"],
            "status": status,
            "decision_note": note,
            "created_at": stamp,
            "decided_at": stamp,
        },
    )
    return get_row(db, "approvals", approval_id)


def _refund_amount(
    charge: Mapping[str, Any],
    remaining: int,
    *,
    kind: str,
    amount: int | None,
    used_days: int | None,
    total_days: int | None,
) -> int:
    if kind == "full":
        if amount is not None and amount != remaining:
            raise RuleViolation(
                f"a full refund of charge {charge['id']} is exactly the "
                f"{format_money(remaining, charge['currency'])} still refundable (got "
                f"{amount}); use kind 'partial' for a smaller amount",
                code="full_refund_amount_mismatch",
                field="amount",
                rule="full_refund_amount",
            )
        return remaining
    if kind == "partial":
        if amount is None:
            raise RuleViolation(
                "a partial refund needs an amount",
                code="amount_required",
                field="amount",
                rule="partial_refund_amount",
            )
        return amount
    # prorated: the unused share of the captured amount, rounded down to the minor unit.
    if used_days is None or total_days is None:
        raise RuleViolation(
            "a prorated refund needs used_days and total_days (amount = floor(captured * "
            "(total_days - used_days) / total_days))",
            code="proration_required",
            field="used_days" if used_days is None else "total_days",
            rule="prorated_refund_formula",
        )
    if used_days > total_days:
        raise RuleViolation(
            f"used_days ({used_days}) cannot exceed total_days ({total_days})",
            code="invalid_proration",
            field="used_days",
            rule="prorated_refund_formula",
        )
    expected = charge["amount"] * (total_days - used_days) // total_days
    if amount is not None and amount != expected:
        raise RuleViolation(
            f"prorated amount must be floor(captured amount * (total_days - used_days) / "
            f"total_days) for the used_days and total_days given, not {amount} (or leave "
            "amount out)",
            code="prorated_amount_mismatch",
            field="amount",
            rule="prorated_refund_formula",
        )
    return expected


def create_refund(
    db: sqlite3.Connection,
    *,
    charge_id: int,
    currency: str,
    kind: str,
    reason: str,
    amount: int | None,
    used_days: int | None,
    total_days: int | None,
    approval_id: int | None,
    ticket_id: int | None,
    now: datetime,
) -> dict[str, Any]:
    charge = get_row(db, "charges", charge_id, field="charge_id")
    if charge["status"] == "failed":
        raise RuleViolation(
            f"charge {charge_id} failed ({charge['failure_reason'] or 'declined'}); nothing was "
            "captured, so there is nothing to refund",
            code="charge_not_captured",
            field="charge_id",
            rule="refund_captured_charge",
        )
    if currency != charge["currency"]:
        raise RuleViolation(
            f"refund currency {currency} differs from charge {charge_id}'s currency "
            f"{charge['currency']}; refunds are issued in the charge's currency",
            code="currency_mismatch",
            field="currency",
            rule="refund_currency_matches_charge",
        )
    already = refunded_total(db, charge_id)
    remaining = charge["amount"] - already
    value = _refund_amount(
        charge, remaining, kind=kind, amount=amount, used_days=used_days, total_days=total_days
    )
    if value > remaining or remaining <= 0:
        raise RuleViolation(
            f"refund of {format_money(value, currency)} exceeds what is refundable on charge "
            f"{charge_id}: captured {format_money(charge['amount'], currency)} minus "
            f"{format_money(already, currency)} already refunded = "
            f"{format_money(remaining, currency)}",
            code="refund_exceeds_captured",
            field="amount",
            rule="refund_within_captured",
        )
    if value <= 0:
        raise RuleViolation(
            "the refund amount works out to zero (used_days equals total_days)",
            code="invalid_proration",
            field="used_days",
            rule="prorated_refund_formula",
        )

    order = get_row(db, "orders", charge["order_id"])
    customer = get_row(db, "customers", order["customer_id"])
    days = REFUND_WINDOW_DAYS[customer["tier"]]
    basis, start = (
        ("fulfilment", order["fulfilled_at"])
        if order["fulfilled_at"]
        else ("capture", charge["captured_at"])
    )
    if (start is not None and now > parse_iso(start) + timedelta(days=days)
            and not _is_duplicate(db, charge)):
        raise RuleViolation(
            f"refund window expired: the charge is past the refund window of the customer's "
            f"tier ({customer['tier']}), counted from {basis} ({start}); the refund policy "
            "articles state the windows",
            code="refund_window_expired",
            field="charge_id",
            rule="refund_window_by_tier",
        )

    # Counting what the charge was refunded before: splitting a refund dodges no approval.
    if usd_equivalent(already + value, currency) > REFUND_APPROVAL_THRESHOLD_USD:
        _check_approval(
            db, approval_id=approval_id, charge_id=charge_id, amount=value, currency=currency
        )
    elif approval_id is not None:
        get_row(db, "approvals", approval_id, field="approval_id")
    if ticket_id is not None:
        get_row(db, "tickets", ticket_id, field="ticket_id")

    refund_id = sql.insert(
        db,
        "refunds",
        {
            "charge_id": charge_id,
            "amount": value,
            "currency": currency,
            "kind": kind,
            "reason": reason,
            "used_days": used_days if kind == "prorated" else None,
            "total_days": total_days if kind == "prorated" else None,
            "approval_id": approval_id,
            "ticket_id": ticket_id,
            "created_by": ACTING_AGENT_ID,
            "created_at": iso(now),
        },
    )
    status = "refunded" if already + value == charge["amount"] else "partially_refunded"
    sql.update(db, "charges", charge_id, {"status": status})
    return get_row(db, "refunds", refund_id)


def _is_duplicate(db: sqlite3.Connection, charge: Mapping[str, Any]) -> bool:
    """Whether ``charge`` repeats an earlier capture of its order (a duplicate charge: refunded
    in full at any time, the refund window does not apply)."""
    earlier = sql.one(db, "SELECT id FROM charges WHERE order_id = ? AND id < ? AND status != "
                      "'failed' LIMIT 1", (charge["order_id"], charge["id"]))
    return earlier is not None


def _check_approval(
    db: sqlite3.Connection, *, approval_id: int | None, charge_id: int, amount: int, currency: str
) -> None:
    needed = (
        f"refunds above the approval threshold need an approved manager approval "
        f"(create_approval_request) for at least {format_money(amount, currency)}"
    )
    if approval_id is None:
        raise RuleViolation(
            needed, code="approval_required", field="approval_id", rule="refund_approval_threshold"
        )
    approval = sql.one(db, "SELECT * FROM approvals WHERE id = ?", (approval_id,))
    problem = None
    if approval is None:
        problem = f"approval {approval_id} does not exist"
    elif approval["status"] != "approved":
        problem = f"approval {approval_id} was {approval['status']}"
    elif approval["currency"] != currency or approval["amount"] < amount:
        problem = (
            f"approval {approval_id} covers "
            f"{format_money(approval['amount'], approval['currency'])}"
        )
    elif approval["charge_id"] is not None and approval["charge_id"] != charge_id:
        problem = f"approval {approval_id} is for charge {approval['charge_id']}"
    if problem:
        raise RuleViolation(
            f"{problem}; {needed}",
            code="approval_required",
            field="approval_id",
            rule="refund_approval_threshold",
        )
    used = sql.one(db, "SELECT id FROM refunds WHERE approval_id = ?", (approval_id,))
    if used is not None:
        raise RuleViolation(
            f"approval {approval_id} was already used by refund {used['id']}; each approval "
            "covers one refund",
            code="approval_already_used",
            field="approval_id",
            rule="approval_single_use",
        )

