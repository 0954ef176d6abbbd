"""Thin helpers over sqlite3 for replica domain code: rows come back as dicts.

Table and column names passed here are code, never user input (row operations check
theirs against the schema first); only values are bound. Each read first checks the request's
time budget (``budget.py``): a loop of many small statements stops there once it is spent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from workgym_core.errors import NotFound, WorkGymError

from . import budget


def dict_factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


def connect_memory() -> sqlite3.Connection:
    """An in-memory connection configured the way every replica expects."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = dict_factory
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def cap_size(conn: sqlite3.Connection, max_bytes: int) -> None:
    """``conn``'s database may hold at most ``max_bytes``: a statement that would grow it past
    that fails with SQLITE_FULL (and SQLite rolls its transaction back): :func:`storage_full`."""
    page_size = conn.execute("PRAGMA page_size").fetchone()["page_size"]
    conn.execute(f"PRAGMA max_page_count = {max_bytes // page_size}")


class StorageFull(WorkGymError):
    """A write past the episode's storage ceiling: 400 in each product's shape (Jira's
    errorMessages, Zendesk's InvalidValue, Stripe's invalid_request_error)."""

    status_code = 400
    code = "storage_full"


def storage_full(exc: BaseException, max_bytes: int) -> StorageFull | None:
    """The refusal an agent gets for a write past its episode's storage ceiling, if ``exc``
    is SQLite's SQLITE_FULL, or was raised while handling it (a savepoint it undid)."""
    cause: BaseException | None = exc
    while not (isinstance(cause, sqlite3.OperationalError)
               and cause.sqlite_errorcode == sqlite3.SQLITE_FULL):
        if cause is None:
            return None
        cause = cause.__context__
    return StorageFull(f"this write would take the episode's data past its storage ceiling "
                       f"({max_bytes} bytes more than it started with)",
                       rule=f"max_bytes:{max_bytes}")


Params = Sequence[Any] | Mapping[str, Any]


def rows(db: sqlite3.Connection, sql: str, params: Params = ()) -> list[dict[str, Any]]:
    budget.check()
    return db.execute(sql, params).fetchall()


def one(db: sqlite3.Connection, sql: str, params: Params = ()) -> dict[str, Any] | None:
    budget.check()
    row: dict[str, Any] | None = db.execute(sql, params).fetchone()
    return row


def get_row(db: sqlite3.Connection, table: str, row_id: int, *, field: str | None = None,
            noun: str | None = None) -> dict[str, Any]:
    """The row ``row_id`` of ``table``, or NotFound naming it: ``<noun> <id> does not exist``,
    code ``<noun>_not_found``. ``noun`` defaults to the table's name in the singular
    (``account_actions`` -> ``account action``); ``field`` is the request field that named
    the id, if one did."""
    row = one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    if row is None:
        noun = noun or table.removesuffix("s").replace("_", " ")
        raise NotFound(f"{noun} {row_id} does not exist",
                       code=f"{noun.replace(' ', '_')}_not_found", field=field)
    return row


def insert(db: sqlite3.Connection, table: str, values: Mapping[str, Any]) -> int:
    """Insert one row; return its id."""
    cols = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    cur = db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", tuple(values.values()))
    assert cur.lastrowid is not None
    return cur.lastrowid


def update(db: sqlite3.Connection, table: str, row_id: int, values: Mapping[str, Any]) -> None:
    """Update one row by id."""
    if not values:
        return
    sets = ", ".join(f"{col} = ?" for col in values)
    db.execute(f"UPDATE {table} SET {sets} WHERE id = ?", (*values.values(), row_id))


def update_changed(db: sqlite3.Connection, table: str, row: Mapping[str, Any],
                   values: Mapping[str, Any], *,
                   touch: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write the ``values`` that differ from ``row`` (its current state), plus ``touch``
    (e.g. ``updated_at``) when any do; return those that differed (empty: nothing written)."""
    changed = {col: value for col, value in values.items() if row[col] != value}
    if changed:
        update(db, table, row["id"], {**changed, **(touch or {})})
    return changed
