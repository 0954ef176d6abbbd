"""SQL identifiers, and the app tables of a database read from its own schema."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any


def ident(name: str) -> str:
    """``name`` quoted as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def query(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
    """Run ``sql``, getting plain tuples back whatever the connection's row factory."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params)


def app_tables(conn: sqlite3.Connection, schema: str) -> dict[str, tuple[str, ...]]:
    """App tables (not ``_*`` nor ``sqlite_*``) of database ``schema`` with their columns."""
    tables: dict[str, list[str]] = {}
    rows = query(
        conn,
        f"SELECT m.name, p.name FROM {ident(schema)}.sqlite_master AS m"
        " JOIN pragma_table_info(m.name, ?) AS p"
        " WHERE m.type = 'table' ORDER BY m.name, p.cid",
        (schema,),
    )
    for table, column in rows:
        if not table.startswith(("_", "sqlite_")):
            tables.setdefault(table, []).append(column)
    return {table: tuple(columns) for table, columns in tables.items()}
