"""The store's customer accounts (ours): the shopper's login, the same person as their Stripe
customer. Password resets go to a verified address only; two-factor authentication is reset
only once the holder's identity was verified; an email change waits for the code sent to the
new address (``replicas/runtime/codes.py``), and once verified the account and its Stripe
customer both take the new address. The shop's only account actions: support reaches them
here."""

from __future__ import annotations

import hmac
import sqlite3
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.codes import email_change_code

from ..render import Row
from ..schemas.requests import CustomerUpdate
from . import customers
from .common import World, refused


def _action(w: World, account: Row, kind: str, status: str, *, verified_by: str | None,
            new_email: str | None = None) -> Row:
    now = w.stamp
    action_id = sql.insert(w.db, "account_actions", {
        "account_id": account["id"], "kind": kind, "status": status,
        "verification_required": int(kind != "password_reset"),
        "verification_method": verified_by, "new_email": new_email, "self_service": 0,
        "created_at": now, "completed_at": now if status == "completed" else None})
    return sql.get_row(w.db, "account_actions", action_id)


def request_password_reset(w: World, account: Row) -> Row:
    """Email a reset link to the account's address, which must be verified."""
    if not account["email_verified"]:
        raise refused(f"Account {account['id']}'s email {account['email']} is not verified: a "
                       "reset link only goes to a verified address. Change and verify the "
                       "email first.", "email_not_verified")
    return _action(w, account, "password_reset", "completed",
                   verified_by="verified_email_link")


def reset_two_factor(w: World, account: Row, *, identity_verified: bool, method: str) -> Row:
    """Turn two-factor authentication off, once the holder's identity was verified."""
    if not identity_verified:
        raise refused("Two-factor authentication is reset only after the account holder's "
                       f"identity is verified ({method}): verify it and send "
                       "identity_verified=true.", "identity_verification_required",
                       "identity_verified")
    if not account["two_factor_enabled"]:
        raise refused(f"Account {account['id']} does not have two-factor authentication "
                       "enabled.", "two_factor_not_enabled")
    sql.update(w.db, "accounts", account["id"], {"two_factor_enabled": 0,
                                                 "updated_at": w.stamp})
    return _action(w, account, "2fa_reset", "completed", verified_by=method)


def request_email_change(w: World, account: Row, *, new_email: str) -> Row:
    """Start an email change: pending until verified with the code sent to the new address
    (a newer request cancels an older pending one)."""
    if new_email.lower() == account["email"].lower():
        raise refused(f"{new_email} is already account {account['id']}'s email.",
                       "email_unchanged", "new_email")
    other = sql.one(w.db, "SELECT id FROM accounts WHERE lower(email) = lower(?) AND id != ?",
                    (new_email, account["id"]))
    if other is not None:
        raise refused(f"{new_email} already belongs to account {other['id']}.",
                       "email_in_use", "new_email")
    w.db.execute("UPDATE account_actions SET status = 'cancelled' WHERE account_id = ? AND "
                 "kind = 'email_change' AND status = 'pending'", (account["id"],))
    sql.update(w.db, "accounts", account["id"], {"pending_email": new_email,
                                                 "updated_at": w.stamp})
    return _action(w, account, "email_change", "pending", verified_by="code_to_new_email",
                   new_email=new_email)


def mail(db: sqlite3.Connection, secret: str, changed: list[dict[str, Any]]) -> list[Row]:
    """What the store emailed in a write, from the rows it changed: an email change it
    started sends its code to the new address (the one :func:`verify` takes)."""
    sent = []
    for change in changed:
        if (change["table"], change["op"]) != ("account_actions", "insert"):
            continue
        action = sql.get_row(db, "account_actions", change["id"])
        if action["kind"] == "email_change" and action["status"] == "pending":
            account = sql.get_row(db, "accounts", action["account_id"])
            sent.append({"to": action["new_email"], "about": "email_change",
                         "code": email_change_code(secret, account["email"],
                                                   action["new_email"])})
    return sent


def verify(w: World, action: Row, *, code: str) -> Row:
    """Complete a pending email change with the code its new address received: the account
    and its Stripe customer take the address."""
    if action["status"] != "pending":
        raise refused(f"Account action {action['id']} is {action['status']}, not pending.",
                       "action_not_pending")
    account = sql.get_row(w.db, "accounts", action["account_id"])
    expected = email_change_code(w.secret, account["email"], action["new_email"])
    if not hmac.compare_digest(code, expected):
        raise refused(f"The code does not match the one sent to {action['new_email']}.",
                       "invalid_verification_code", "code")
    values: dict[str, Any] = {"email": action["new_email"], "pending_email": None,
                              "email_verified": 1, "updated_at": w.stamp}
    sql.update(w.db, "accounts", account["id"], values)
    customer = account["customer"] and w.objects.row("customers", account["customer"],
                                                     kind="customer")
    if customer and not customer["deleted"]:
        customers.update(w, customer, CustomerUpdate(email=action["new_email"]))
    sql.update(w.db, "account_actions", action["id"], {"status": "completed",
                                                       "completed_at": w.stamp})
    return sql.get_row(w.db, "account_actions", action["id"])
