"""The team's records an admin creates, changes and deletes, as Zendesk keeps them:
organizations (a unique name), groups (a unique name; deleting one keeps it, ``deleted``,
for the tickets that name it, and ends its memberships), macros, views and triggers (their
actions and conditions checked as the rules read them), and users (deleting one is Zendesk's
soft delete: ``active`` false, their tickets kept).

Each write takes the attributes sent (only those change on an update) and refuses a broken
record with RecordInvalid naming the attribute.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row, one

from .common import ACTING_AGENT_ID, invalid
from .conditions import validate, validate_actions

Row = dict[str, Any]
# The JSON columns of the rule tables.
_JSON = frozenset({"actions", "conditions", "execution"})
# What a new record has unless sent.
_DEFAULTS: dict[str, Row] = {
    "macros": {"description": ""},
    "views": {"execution": {"sort_by": "created_at", "sort_order": "asc"}}}


def _unique_name(db: sqlite3.Connection, table: str, name: str, own_id: int | None) -> None:
    taken = one(db, f"SELECT id FROM {table} WHERE lower(name) = lower(?) AND id IS NOT ?"
                + (" AND NOT deleted" if table == "groups" else ""), (name, own_id))
    if taken is not None:
        raise invalid("name", "has already been taken", "duplicate_value")


def _checked(table: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Actions and conditions as the rules read them (a 422 naming the one they refuse)."""
    out = dict(values)
    if "actions" in out:
        if not out["actions"]:
            raise invalid("actions", "cannot be blank", "blank")
        try:
            validate_actions(out["actions"])
        except (ValueError, KeyError, TypeError) as error:
            raise invalid("actions", str(error), "invalid_action") from None
    if "conditions" in out:
        conditions = out["conditions"]
        if not (conditions.get("all") or (table == "triggers" and conditions.get("any"))):
            raise invalid("conditions", "needs at least one condition in all", "blank")
        try:
            validate(conditions)
        except (ValueError, KeyError, TypeError) as error:
            raise invalid("conditions", str(error), "invalid_condition") from None
    return {k: orjson.dumps(v).decode() if k in _JSON else v for k, v in out.items()}


def create(db: sqlite3.Connection, table: str, values: Mapping[str, Any],
           now: datetime) -> Row:
    """A new record of ``table`` from the attributes sent."""
    row = _checked(table, {**_DEFAULTS.get(table, {}), **values})
    if table in ("organizations", "groups"):
        _unique_name(db, table, row["name"], None)
    if table in ("macros", "views", "triggers"):
        last = one(db, f"SELECT max(position) AS p FROM {table}")
        row.setdefault("position", ((last or {}).get("p") or 0) + 1)
    stamp = iso(now)
    stamps = {"created_at": stamp} if table == "organizations" else (
        {} if table == "groups" else {"created_at": stamp, "updated_at": stamp})
    return get_row(db, table, sql.insert(db, table, {**row, **stamps}))


def update(db: sqlite3.Connection, table: str, record_id: int, values: Mapping[str, Any],
           now: datetime) -> Row:
    """Change the attributes sent of a record of ``table``."""
    current = get_row(db, table, record_id)
    if table == "groups" and current["deleted"]:
        raise invalid("id", f"group {record_id} is deleted", "group_deleted")
    row = _checked(table, values)
    if "name" in row and table in ("organizations", "groups"):
        _unique_name(db, table, row["name"], record_id)
    touch = {"updated_at": iso(now)} if "updated_at" in current else {}
    sql.update_changed(db, table, current, row, touch=touch)
    return get_row(db, table, record_id)


def delete(db: sqlite3.Connection, table: str, record_id: int) -> None:
    """Delete a record of ``table``: an organization leaves its people and tickets without
    one; a group is kept as deleted, its memberships end (the default group cannot go)."""
    current = get_row(db, table, record_id)
    if table == "groups":
        if current["id"] == 1:
            raise invalid("id", "the default group cannot be deleted", "default_group")
        if current["deleted"]:
            raise invalid("id", f"group {record_id} is deleted", "group_deleted")
        db.execute("DELETE FROM group_memberships WHERE group_id = ?", (record_id,))
        db.execute("UPDATE users SET default_group_id = NULL WHERE default_group_id = ?",
                   (record_id,))
        sql.update(db, "groups", record_id, {"deleted": True})
        return
    if table == "organizations":
        for other in ("users", "tickets"):
            db.execute(f"UPDATE {other} SET organization_id = NULL WHERE organization_id = ?",
                       (record_id,))
    db.execute(f"DELETE FROM {table} WHERE id = ?", (record_id,))


def delete_user(db: sqlite3.Connection, user_id: int, now: datetime) -> Row:
    """Zendesk's soft delete: the user stays, inactive, with their tickets."""
    user = get_row(db, "users", user_id)
    if user_id == ACTING_AGENT_ID:
        raise invalid("id", "you cannot delete yourself", "self_delete")
    if not user["active"]:
        raise invalid("id", f"user {user_id} is deleted", "user_deleted")
    sql.update(db, "users", user_id, {"active": False, "updated_at": iso(now)})
    return get_row(db, "users", user_id)
