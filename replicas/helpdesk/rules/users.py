"""Users (end users and staff in one resource) and their identities.

As in Zendesk: an email belongs to one user (a phone number may be shared); ``email`` is
set on create only; on update it adds a secondary identity (``make_primary`` makes it the
user's email); the primary email identity cannot be deleted. Tier is the end user's user
field ``tier``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row, one
from workgym_core.errors import NotFound

from .common import invalid

Row = dict[str, Any]
KIND_COLUMN = {"email": "email", "phone_number": "phone"}


def owner_of(db: sqlite3.Connection, kind: str, value: str) -> Row | None:
    """The user who has identity ``value`` (emails compared without case)."""
    if kind == "email":
        return one(db, "SELECT u.* FROM users u JOIN user_identities i ON i.user_id = u.id "
                   "WHERE i.type = 'email' AND lower(i.value) = lower(?)", (value,))
    return one(db, "SELECT u.* FROM users u JOIN user_identities i ON i.user_id = u.id "
               "WHERE i.type = ? AND i.value = ?", (kind, value))


def _identity(db: sqlite3.Connection, user_id: int, kind: str, value: str, primary: bool,
              now: datetime) -> Row:
    taken = owner_of(db, kind, value) if kind == "email" else None  # phones may be shared
    if taken is not None:
        raise invalid("value" if kind != "email" else "email",
                      f"{value} is already being used by user {taken['id']}", "duplicate_value")
    identity_id = sql.insert(db, "user_identities", {
        "user_id": user_id, "type": kind, "value": value, "is_primary": primary,
        "verified": True, "created_at": iso(now)})
    return get_row(db, "user_identities", identity_id)


def create(db: sqlite3.Connection, values: Mapping[str, Any], now: datetime) -> Row:
    """A new user (an end user unless ``role`` says otherwise), with identities for the
    email and phone given."""
    if values.get("organization_id") is not None:
        get_row(db, "organizations", values["organization_id"], field="organization_id")
    stamp = iso(now)
    row = {"name": values["name"], "email": values.get("email"), "phone": values.get("phone"),
           "role": values.get("role") or "end-user",
           "organization_id": values.get("organization_id"), "default_group_id": None,
           "tier": values.get("tier"), "locale": values.get("locale") or "en-US",
           "active": True, "notes": values.get("notes") or "", "created_at": stamp,
           "updated_at": stamp}
    if row["email"] and owner_of(db, "email", row["email"]) is not None:
        raise invalid("email", f"{row['email']} is already being used by another user",
                      "duplicate_value")
    user_id = sql.insert(db, "users", row)
    for kind, column in KIND_COLUMN.items():
        if row[column]:
            _identity(db, user_id, kind, row[column], True, now)
    return get_row(db, "users", user_id)


def find_or_create(db: sqlite3.Connection, spec: Mapping[str, Any], now: datetime) -> Row:
    """A ticket's ``requester {name, email, locale}``: the user with that email (left as
    they are), else a new end user."""
    found = owner_of(db, "email", spec["email"])
    if found is not None:
        return found
    return create(db, {"name": spec.get("name") or spec["email"].split("@")[0],
                       "email": spec["email"], "locale": spec.get("locale")}, now)


def update(db: sqlite3.Connection, user_id: int, values: Mapping[str, Any],
           now: datetime) -> Row:
    """Change a user's profile; an ``email`` is added as a secondary identity, a ``phone``
    replaces the primary phone number."""
    user = get_row(db, "users", user_id)
    if not user["active"]:
        raise invalid("id", f"user {user_id} is deleted", "user_deleted")
    changes = dict(values)
    if changes.get("organization_id") is not None:
        get_row(db, "organizations", changes["organization_id"], field="organization_id")
    email = changes.pop("email", None)
    if email and (owner_of(db, "email", email) or {}).get("id") != user_id:
        _identity(db, user_id, "email", email, False, now)
    if "phone" in changes and changes["phone"] != user["phone"]:
        db.execute("DELETE FROM user_identities WHERE user_id = ? AND type = 'phone_number' "
                   "AND is_primary", (user_id,))
        if changes["phone"]:
            _identity(db, user_id, "phone_number", changes["phone"], True, now)
    sql.update_changed(db, "users", user, changes, touch={"updated_at": iso(now)})
    return get_row(db, "users", user_id)


def add_identity(db: sqlite3.Connection, user_id: int, kind: str, value: str,
                 now: datetime) -> Row:
    get_row(db, "users", user_id)
    first = one(db, "SELECT 1 AS y FROM user_identities WHERE user_id = ? AND type = ?",
                (user_id, kind)) is None
    identity = _identity(db, user_id, kind, value, first, now)
    if first:
        sql.update(db, "users", user_id, {KIND_COLUMN[kind]: value, "updated_at": iso(now)})
    return identity


def own_identity(db: sqlite3.Connection, user_id: int, identity_id: int) -> Row:
    identity = one(db, "SELECT * FROM user_identities WHERE id = ? AND user_id = ?",
                   (identity_id, user_id))
    if identity is None:  # none, or another user's: the same answer
        raise NotFound(f"identity {identity_id} of user {user_id} does not exist",
                       code="identity_not_found")
    return identity


def make_primary(db: sqlite3.Connection, user_id: int, identity_id: int,
                 now: datetime) -> Row:
    """Make an identity the user's primary of its type (their email or phone)."""
    identity = own_identity(db, user_id, identity_id)
    db.execute("UPDATE user_identities SET is_primary = (id = ?) WHERE user_id = ? AND "
               "type = ?", (identity_id, user_id, identity["type"]))
    sql.update(db, "users", user_id, {KIND_COLUMN[identity["type"]]: identity["value"],
                                      "updated_at": iso(now)})
    return get_row(db, "user_identities", identity_id)


def delete_identity(db: sqlite3.Connection, user_id: int, identity_id: int,
                    now: datetime) -> None:
    identity = own_identity(db, user_id, identity_id)
    if identity["is_primary"] and identity["type"] == "email":
        raise invalid("identity", "the primary email cannot be deleted; make another email "
                      "primary first", "primary_identity")
    db.execute("DELETE FROM user_identities WHERE id = ?", (identity_id,))
    if identity["is_primary"]:
        sql.update(db, "users", user_id, {"phone": None, "updated_at": iso(now)})
