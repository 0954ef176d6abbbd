"""Which rows each request changed: a change log kept by SQLite triggers.

Every app table gets AFTER INSERT/UPDATE/DELETE triggers appending
``(table, op, row id)`` to ``_changes`` (tables starting with ``_`` are
outside the world: the reward engine's diff and state hash ignore them). The
replica reports a write's changes to the proxy in an internal response header,
so trajectories and traces show the rows each step touched, each with ``ref``: the
id the app's API shows for the row (its ``ReplicaSpec.public_id`` column where the table
has one, Stripe's ``stripe_id``; else its id), which the reward engine looks for in what a
later read showed the agent.
"""

from __future__ import annotations

import sqlite3
from typing import Any

_OPS = {"INSERT": "NEW", "UPDATE": "NEW", "DELETE": "OLD"}


def install(db: sqlite3.Connection) -> None:
    """Create the change log and its triggers on every app table."""
    tables = [row["name"] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    db.execute("CREATE TABLE _changes (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, "
               "op TEXT NOT NULL, row_id INTEGER)")
    for table in tables:
        for op, row in _OPS.items():
            db.execute(
                f"CREATE TRIGGER _log_{table}_{op.lower()} AFTER {op} ON {table} BEGIN "
                f"INSERT INTO _changes (tbl, op, row_id) VALUES ('{table}', '{op.lower()}', "
                f"{row}.id); END"
            )


def since(db: sqlite3.Connection, seq: int, public_id: str = "id"
          ) -> tuple[list[dict[str, Any]], int]:
    """Changes logged after ``seq`` (de-duplicated, in order, each with the row's ``ref``)
    and the newest seq."""
    rows = db.execute("SELECT seq, tbl, op, row_id FROM _changes WHERE seq > ? ORDER BY seq",
                      (seq,)).fetchall()
    seen: dict[tuple[str, str, int], None] = {}
    for row in rows:
        seen.setdefault((row["tbl"], row["op"], row["row_id"]), None)
    changes = [{"table": t, "op": o, "id": i, "ref": _ref(db, t, i, public_id)}
               for t, o, i in seen]
    return changes, (rows[-1]["seq"] if rows else seq)


def _ref(db: sqlite3.Connection, table: str, row_id: int, public_id: str) -> Any:
    """The id the API shows for a row: its ``public_id`` column if it has one (and the row
    still exists), else its id."""
    if public_id == "id" or public_id not in _columns(db, table):
        return row_id
    row = db.execute(f"SELECT {public_id} FROM {table} WHERE id = ?", (row_id,)).fetchone()
    return row_id if row is None or row[public_id] is None else row[public_id]


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {col["name"] for col in db.execute(f"PRAGMA table_info({table})")}
