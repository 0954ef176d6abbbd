"""Customer and account rules: contact updates, password and 2FA resets, email changes
verified with a code the customer receives."""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row
from workgym_core.credentials import mac
from workgym_core.errors import RuleViolation

from .common import ACTING_AGENT_ID


def email_verification_code(secret: str, customer_id: int, new_email: str) -> str:
    """The 6-digit code emailed to ``new_email``: derived from the episode's secret, so it is
    the same for the same world and request (determinism) and no agent can compute it — it
    must ask the customer, who received it."""
    digest = mac(secret, "email-code", f"{customer_id}:{new_email.lower()}")
    return f"{int(digest[:8], 16) % 1_000_000:06d}"



def update_customer(
    db: sqlite3.Connection, *, customer_id: int, changes: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    customer = get_row(db, "customers", customer_id)
    if changes.get("organization_id") is not None:
        get_row(db, "organizations", changes["organization_id"], field="organization_id")
    sql.update_changed(db, "customers", customer, changes, touch={"updated_at": iso(now)})
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
