"""Business rules of the helpdesk: plain functions over the episode's sqlite3 connection.

Every function takes the connection first and everything else keyword-only;
writes take ``now`` (the episode's virtual clock). A refused request raises
:class:`RuleViolation` (422) naming the rule in ``code``, :class:`NotFound`
(404) or :class:`Conflict` (409); routes run inside one transaction, so a
refusal leaves the database untouched.
"""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from workgym_core.credentials import mac
from workgym_core.errors import NotFound, RuleViolation

# ---------------------------------------------------------------------------
# Policy constants (also documented in README.md and the help-center articles)
# ---------------------------------------------------------------------------

# The agent calling the API: every comment, refund and approval request the API
# writes is authored by agent 1, "AI Agent" (Support group).
ACTING_AGENT_ID = 1

TRANSITIONS: dict[str, frozenset[str]] = {
    "new": frozenset({"open", "pending", "on-hold", "solved"}),
    "open": frozenset({"pending", "on-hold", "solved"}),
    "pending": frozenset({"open", "solved"}),
    "on-hold": frozenset({"open", "solved"}),
    "solved": frozenset({"open", "closed"}),
    "closed": frozenset(),
}

# US cents per 100 minor units of each currency (fixed rates; JPY has no minor unit).
USD_CENTS_PER_100_MINOR = {"USD": 100, "EUR": 108, "GBP": 127, "JPY": 67}
# Refunds above this (USD-equivalent minor units, i.e. USD 500.00) need a manager approval.
REFUND_APPROVAL_THRESHOLD_USD = 50_000
# Managers approve refund requests up to this (USD 5,000.00); larger ones are denied.
MANAGER_APPROVAL_LIMIT_USD = 500_000
# Days a refund may be issued after fulfilment (or capture when never fulfilled).
REFUND_WINDOW_DAYS = {"standard": 14, "silver": 30, "gold": 60, "platinum": 90}

_ISO = "%Y-%m-%dT%H:%M:%SZ"


def parse_iso(value: str) -> datetime:
    return datetime.strptime(value, _ISO).replace(tzinfo=UTC)


def usd_equivalent(amount: int, currency: str) -> int:
    """``amount`` (minor units of ``currency``) in US cents, at the fixed rates."""
    return amount * USD_CENTS_PER_100_MINOR[currency] // 100


def format_money(amount: int, currency: str) -> str:
    if currency == "JPY":
        return f"JPY {amount:,}"
    return f"{currency} {amount // 100:,}.{amount % 100:02d}"


def email_verification_code(secret: str, customer_id: int, new_email: str) -> str:
    """The 6-digit code emailed to ``new_email``: derived from the episode's secret, so it is
    the same for the same world and request (determinism) and no agent can compute it — it
    must ask the customer, who received it."""
    digest = mac(secret, "email-code", f"{customer_id}:{new_email.lower()}")
    return f"{int(digest[:8], 16) % 1_000_000:06d}"


# ---------------------------------------------------------------------------
# Lookups
# ---------------------------------------------------------------------------

_TABLE_LABEL = {
    "tickets": "ticket",
    "customers": "customer",
    "agents": "agent",
    "groups": "group",
    "organizations": "organization",
    "orders": "order",
    "charges": "charge",
    "refunds": "refund",
    "approvals": "approval",
    "account_actions": "account action",
    "macros": "macro",
    "articles": "article",
    "satisfaction_ratings": "satisfaction rating",
    "comments": "comment",
}


def get_row(
    db: sqlite3.Connection, table: str, row_id: int, *, field: str | None = None
) -> dict[str, Any]:
    """The row ``row_id`` of ``table`` (a code constant) or NotFound."""
    row = sql.one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    if row is None:
        label = _TABLE_LABEL.get(table, table)
        raise NotFound(
            f"{label} {row_id} does not exist",
            code=f"{label.replace(' ', '_')}_not_found",
            field=field,
        )
    return row


def refunded_total(db: sqlite3.Connection, charge_id: int) -> int:
    row = sql.one(
        db, "SELECT coalesce(sum(amount), 0) AS n FROM refunds WHERE charge_id = ?", (charge_id,)
    )
    assert row is not None
    return int(row["n"])


# ---------------------------------------------------------------------------
# Tickets
# ---------------------------------------------------------------------------


def _require_open_ticket(ticket: Mapping[str, Any], *, field: str | None = None) -> None:
    if ticket["status"] == "closed":
        merged = ticket["merged_into_id"]
        hint = f" (it was merged into ticket {merged})" if merged else ""
        raise RuleViolation(
            f"ticket {ticket['id']} is closed{hint}; closed tickets cannot be changed, commented "
            "on or merged — open a follow-up ticket instead",
            code="ticket_closed",
            field=field,
            rule="closed_ticket_is_immutable",
        )


def check_transition(current: str, target: str) -> None:
    if target == current:
        return
    if target not in TRANSITIONS[current]:
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none (terminal)"
        raise RuleViolation(
            f"ticket status cannot go from '{current}' to '{target}'; allowed from "
            f"'{current}': {allowed}",
            code="invalid_status_transition",
            field="status",
            rule="ticket_status_machine",
        )


def update_ticket(
    db: sqlite3.Connection, *, ticket_id: int, changes: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    """Apply ``changes`` (only the keys the caller set) to a ticket; return the new row.

    Keys: status, priority, type, assignee_id, group_id (None unassigns), add_tags,
    remove_tags. Tags match exactly (case-sensitive), as stored.
    """
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    values: dict[str, Any] = {}

    if "status" in changes and changes["status"] != ticket["status"]:
        check_transition(ticket["status"], changes["status"])
        values["status"] = changes["status"]
        if changes["status"] == "solved":
            values["solved_at"] = iso(now)
        elif changes["status"] == "open" and ticket["solved_at"] is not None:
            values["solved_at"] = None
    for key in ("priority", "type"):
        if key in changes and changes[key] != ticket[key]:
            values[key] = changes[key]

    group_id = changes["group_id"] if "group_id" in changes else ticket["group_id"]
    assignee_id = changes["assignee_id"] if "assignee_id" in changes else ticket["assignee_id"]
    if "group_id" in changes and group_id is not None:
        get_row(db, "groups", group_id, field="group_id")
    if "assignee_id" in changes and assignee_id is not None:
        agent = get_row(db, "agents", assignee_id, field="assignee_id")
        if not agent["active"]:
            raise RuleViolation(
                f"agent {assignee_id} ({agent['name']}) is deactivated and cannot be assigned "
                "tickets",
                code="assignee_inactive",
                field="assignee_id",
                rule="assignee_active",
            )
    if assignee_id is not None and group_id is not None:
        agent = get_row(db, "agents", assignee_id, field="assignee_id")
        if agent["group_id"] != group_id:
            group = get_row(db, "groups", group_id)
            field = "assignee_id" if "assignee_id" in changes else "group_id"
            raise RuleViolation(
                f"agent {assignee_id} ({agent['name']}) is not a member of group {group_id} "
                f"({group['name']}); set assignee_id to a member of that group or to null",
                code="assignee_not_in_group",
                field=field,
                rule="assignee_in_group",
            )
    if group_id != ticket["group_id"]:
        values["group_id"] = group_id
    if assignee_id != ticket["assignee_id"]:
        values["assignee_id"] = assignee_id

    add, remove = changes.get("add_tags") or [], changes.get("remove_tags") or []
    if add or remove:
        tags: list[str] = orjson.loads(ticket["tags"])
        new_tags = [t for t in tags if t not in set(remove)]
        for tag in add:
            if tag not in new_tags:
                new_tags.append(tag)
        if new_tags != tags:
            values["tags"] = orjson.dumps(new_tags).decode()

    if values:
        values["updated_at"] = iso(now)
        sql.update(db, "tickets", ticket_id, values)
    return get_row(db, "tickets", ticket_id)


def add_comment(
    db: sqlite3.Connection,
    *,
    ticket_id: int,
    body: str,
    public: bool,
    now: datetime,
    author_type: str = "agent",
    author_id: int | None = ACTING_AGENT_ID,
) -> dict[str, Any]:
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    stamp = iso(now)
    comment_id = sql.insert(
        db,
        "comments",
        {
            "ticket_id": ticket_id,
            "author_type": author_type,
            "author_id": author_id,
            "body": body,
            "public": public,
            "created_at": stamp,
        },
    )
    sql.update(db, "tickets", ticket_id, {"updated_at": stamp})
    return get_row(db, "comments", comment_id)


def merge_tickets(
    db: sqlite3.Connection, *, source_id: int, target_id: int, now: datetime
) -> dict[str, Any]:
    """Close ``source_id`` into ``target_id``; return the (closed) source ticket."""
    source = get_row(db, "tickets", source_id)
    if target_id == source_id:
        raise RuleViolation(
            f"ticket {source_id} cannot be merged into itself",
            code="merge_into_self",
            field="target_ticket_id",
            rule="merge_target_differs",
        )
    target = get_row(db, "tickets", target_id, field="target_ticket_id")
    _require_open_ticket(source)
    _require_open_ticket(target, field="target_ticket_id")
    if source["requester_id"] != target["requester_id"]:
        raise RuleViolation(
            f"ticket {source_id} (requester {source['requester_id']}) and ticket {target_id} "
            f"(requester {target['requester_id']}) have different requesters; only tickets of "
            "the same requester can be merged",
            code="requester_mismatch",
            field="target_ticket_id",
            rule="merge_same_requester",
        )
    stamp = iso(now)
    sql.update(
        db,
        "tickets",
        source_id,
        {
            "status": "closed",
            "merged_into_id": target_id,
            "updated_at": stamp,
        },
    )
    sql.update(db, "tickets", target_id, {"updated_at": stamp})
    for ticket_id, text in (
        (source_id, f"This ticket was closed and merged into ticket #{target_id}."),
        (target_id, f"Ticket #{source_id} was merged into this ticket."),
    ):
        sql.insert(
            db,
            "comments",
            {
                "ticket_id": ticket_id,
                "author_type": "system",
                "author_id": None,
                "body": text,
                "public": False,
                "created_at": stamp,
            },
        )
    return get_row(db, "tickets", source_id)


def apply_macro(
    db: sqlite3.Connection, *, ticket_id: int, macro_id: int, now: datetime
) -> dict[str, Any]:
    """Run a macro's actions as one ticket update plus, if it has one, a comment."""
    macro = get_row(db, "macros", macro_id)
    if not macro["active"]:
        raise RuleViolation(
            f"macro {macro_id} ('{macro['title']}') is inactive",
            code="macro_inactive",
            field="macro_id",
            rule="macro_active",
        )
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    actions: dict[str, Any] = orjson.loads(macro["actions"])
    changes = {k: v for k, v in actions.items() if k != "comment"}
    ticket = update_ticket(db, ticket_id=ticket_id, changes=changes, now=now)
    comment = actions.get("comment")
    if comment:
        requester = get_row(db, "customers", ticket["requester_id"])
        body = (
            comment["body"]
            .replace("{{requester.first_name}}", requester["name"].split(" ")[0])
            .replace("{{ticket.id}}", str(ticket_id))
        )
        add_comment(db, ticket_id=ticket_id, body=body, public=comment.get("public", True), now=now)
        ticket = get_row(db, "tickets", ticket_id)
    return ticket


# ---------------------------------------------------------------------------
# Money: approvals and refunds
# ---------------------------------------------------------------------------


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
            f"Denied: {format_money(amount, currency)} is above the manager approval limit "
            f"(USD 5,000.00 equivalent); refunds this large go to Finance."
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
            f"prorated amount must be floor({charge['amount']} * ({total_days} - {used_days}) "
            f"/ {total_days}) = {expected}, got {amount}",
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
    if start is not None and now > parse_iso(start) + timedelta(days=days):
        raise RuleViolation(
            f"refund window expired: {customer['tier']} customers can be refunded within {days} "
            f"days of {basis} ({start}); the window closed "
            f"{iso(parse_iso(start) + timedelta(days=days))}",
            code="refund_window_expired",
            field="charge_id",
            rule="refund_window_by_tier",
        )

    if usd_equivalent(value, currency) > REFUND_APPROVAL_THRESHOLD_USD:
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


def _check_approval(
    db: sqlite3.Connection, *, approval_id: int | None, charge_id: int, amount: int, currency: str
) -> None:
    needed = (
        f"refunds above USD 500.00 equivalent need an approved manager approval "
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


# ---------------------------------------------------------------------------
# Customers and account actions
# ---------------------------------------------------------------------------


def update_customer(
    db: sqlite3.Connection, *, customer_id: int, changes: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    customer = get_row(db, "customers", customer_id)
    if changes.get("organization_id") is not None:
        get_row(db, "organizations", changes["organization_id"], field="organization_id")
    values = {k: v for k, v in changes.items() if customer[k] != v}
    if values:
        values["updated_at"] = iso(now)
        sql.update(db, "customers", customer_id, values)
    return get_row(db, "customers", customer_id)


def _action(
    db: sqlite3.Connection,
    *,
    customer_id: int,
    kind: str,
    status: str,
    now: datetime,
    verification_required: bool,
    verification_method: str | None = None,
    new_email: str | None = None,
) -> dict[str, Any]:
    stamp = iso(now)
    action_id = sql.insert(
        db,
        "account_actions",
        {
            "customer_id": customer_id,
            "kind": kind,
            "status": status,
            "verification_required": verification_required,
            "verification_method": verification_method,
            "new_email": new_email,
            "requested_by": ACTING_AGENT_ID,
            "created_at": stamp,
            "completed_at": stamp if status == "completed" else None,
        },
    )
    return get_row(db, "account_actions", action_id)


def request_password_reset(
    db: sqlite3.Connection, *, customer_id: int, now: datetime
) -> dict[str, Any]:
    """Email a reset link to the address on file (which must be verified)."""
    customer = get_row(db, "customers", customer_id)
    if not customer["email_verified"]:
        raise RuleViolation(
            f"customer {customer_id}'s email {customer['email']} is not verified; a reset link "
            "can only go to a verified address — change and verify the email first",
            code="email_not_verified",
            field="customer_id",
            rule="reset_to_verified_email",
        )
    return _action(
        db,
        customer_id=customer_id,
        kind="password_reset",
        status="completed",
        now=now,
        verification_required=False,
        verification_method="verified_email_link",
    )


def reset_two_factor(
    db: sqlite3.Connection,
    *,
    customer_id: int,
    identity_verified: bool,
    verification_method: str,
    now: datetime,
) -> dict[str, Any]:
    """Remove 2FA from an account, only after the agent verified the caller's identity."""
    customer = get_row(db, "customers", customer_id)
    if not identity_verified:
        raise RuleViolation(
            "2FA can only be reset after the customer's identity is verified; verify it "
            f"({verification_method}) and send identity_verified=true",
            code="identity_verification_required",
            field="identity_verified",
            rule="verify_identity_before_2fa_reset",
        )
    if not customer["two_factor_enabled"]:
        raise RuleViolation(
            f"customer {customer_id} does not have 2FA enabled",
            code="two_factor_not_enabled",
            field="customer_id",
            rule="2fa_reset_needs_2fa",
        )
    sql.update(db, "customers", customer_id, {"two_factor_enabled": False, "updated_at": iso(now)})
    return _action(
        db,
        customer_id=customer_id,
        kind="2fa_reset",
        status="completed",
        now=now,
        verification_required=True,
        verification_method=verification_method,
    )


def request_email_change(
    db: sqlite3.Connection, *, customer_id: int, new_email: str, now: datetime
) -> dict[str, Any]:
    """Start an email change: pending until verified with the code sent to the new address."""
    customer = get_row(db, "customers", customer_id)
    if new_email.lower() == customer["email"].lower():
        raise RuleViolation(
            f"{new_email} is already customer {customer_id}'s email",
            code="email_unchanged",
            field="new_email",
            rule="email_change_differs",
        )
    other = sql.one(
        db,
        "SELECT id FROM customers WHERE lower(email) = lower(?) AND id != ?",
        (new_email, customer_id),
    )
    if other is not None:
        raise RuleViolation(
            f"{new_email} already belongs to customer {other['id']}",
            code="email_in_use",
            field="new_email",
            rule="email_unique",
        )
    db.execute(
        "UPDATE account_actions SET status = 'cancelled' WHERE customer_id = ? AND "
        "kind = 'email_change' AND status = 'pending'",
        (customer_id,),
    )
    sql.update(db, "customers", customer_id, {"pending_email": new_email, "updated_at": iso(now)})
    return _action(
        db,
        customer_id=customer_id,
        kind="email_change",
        status="pending",
        now=now,
        verification_required=True,
        verification_method="code_to_new_email",
        new_email=new_email,
    )


def verify_account_action(
    db: sqlite3.Connection, *, action_id: int, code: str, now: datetime, secret: str
) -> dict[str, Any]:
    action = get_row(db, "account_actions", action_id)
    if action["status"] != "pending":
        raise RuleViolation(
            f"account action {action_id} is {action['status']}, not pending",
            code="action_not_pending",
            field="action_id",
            rule="verify_pending_action",
        )
    expected = email_verification_code(secret, action["customer_id"], action["new_email"] or "")
    if not hmac.compare_digest(code, expected):
        raise RuleViolation(
            f"verification code does not match the one sent to {action['new_email']}",
            code="invalid_verification_code",
            field="code",
            rule="verification_code_matches",
        )
    stamp = iso(now)
    if action["kind"] == "email_change":
        sql.update(
            db,
            "customers",
            action["customer_id"],
            {
                "email": action["new_email"],
                "pending_email": None,
                "email_verified": True,
                "updated_at": stamp,
            },
        )
    sql.update(db, "account_actions", action_id, {"status": "completed", "completed_at": stamp})
    return get_row(db, "account_actions", action_id)
