"""A generated world: its static material (YAML) and writing it into a database (the schema
from the app's models, then its rows).

An app's world generator builds its tables as lists of dicts and hands them here::

    write_world(conn, METADATA, {"groups": groups, "agents": agents, ...})

Tables are written in the models' foreign-key order (``metadata.sorted_tables``: a row's
references are written before it), all in one transaction; the order the generator built
them in does not matter.
SQLAlchemy is imported on use: only building a snapshot needs it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from sqlalchemy import MetaData

Rows = Sequence[Mapping[str, Any]]


@cache
def ddl(metadata: MetaData) -> tuple[str, ...]:
    """CREATE TABLE and CREATE INDEX statements of ``metadata``, in dependency order."""
    from sqlalchemy.dialects import sqlite
    from sqlalchemy.schema import CreateIndex, CreateTable

    dialect = sqlite.dialect()
    statements: list[str] = []
    for table in metadata.sorted_tables:
        statements.append(str(CreateTable(table).compile(dialect=dialect)))
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            statements.append(str(CreateIndex(index).compile(dialect=dialect)))
    return tuple(statements)


def create_schema(conn: sqlite3.Connection, metadata: MetaData) -> None:
    for statement in ddl(metadata):
        conn.execute(statement)


def write_rows(conn: sqlite3.Connection, table: str, rows: Rows) -> None:
    """Insert ``rows`` (dicts with the same keys) into ``table`` (a name in code)."""
    if not rows:
        return
    cols = list(rows[0])
    marks = ", ".join("?" for _ in cols)
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})",
        [tuple(row[c] for c in cols) for row in rows],
    )


def write_world(conn: sqlite3.Connection, metadata: MetaData,
                tables: Mapping[str, Rows]) -> None:
    """Create the schema and write every table's rows, in one transaction, in the models'
    foreign-key order; a table the models do not have is a ValueError naming it."""
    if unknown := sorted(set(tables) - set(metadata.tables)):
        raise ValueError(f"the world has rows for {unknown}, tables the models do not have "
                         f"(they have {sorted(metadata.tables)})")
    conn.execute("BEGIN")
    try:
        create_schema(conn, metadata)
        for table in metadata.sorted_tables:
            write_rows(conn, table.name, tables.get(table.name, ()))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def load_yaml(path: Path) -> Any:
    """A world's static material (YAML); callers keep what they load (``functools.cache``)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, ~10x faster
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
