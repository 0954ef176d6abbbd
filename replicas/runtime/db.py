"""Thin helpers over sqlite3 for replica domain code: rows come back as dicts."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any


def dict_factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


def connect_memory() -> sqlite3.Connection:
    """An in-memory connection configured the way every replica expects."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.row_factory = dict_factory
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


Params = Sequence[Any] | Mapping[str, Any]


def rows(db: sqlite3.Connection, sql: str, params: Params = ()) -> list[dict[str, Any]]:
    return db.execute(sql, params).fetchall()


def one(db: sqlite3.Connection, sql: str, params: Params = ()) -> dict[str, Any] | None:
    row: dict[str, Any] | None = db.execute(sql, params).fetchone()
    return row


def insert(db: sqlite3.Connection, table: str, values: Mapping[str, Any]) -> int:
    """Insert one row; ``table`` and the keys are code, never user input."""
    cols = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    cur = db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", tuple(values.values()))
    assert cur.lastrowid is not None
    return cur.lastrowid


def update(db: sqlite3.Connection, table: str, row_id: int, values: Mapping[str, Any]) -> None:
    """Update one row by id; ``table`` and the keys are code, never user input."""
    if not values:
        return
    sets = ", ".join(f"{col} = ?" for col in values)
    db.execute(f"UPDATE {table} SET {sets} WHERE id = ?", (*values.values(), row_id))
