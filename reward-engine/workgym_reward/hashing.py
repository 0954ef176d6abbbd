"""A content hash of an app database, independent of SQLite's version and page layout.

Each row is encoded canonically (its values in column order, with their JSON types; blobs as
hex) and digested with SHA-256. A table's digest is the sum of its rows' digests modulo 2**256
(a multiset hash: rows are identified by their ``id``, so order does not matter), and the state
hash is the SHA-256 of every app table's name, columns, row count and digest, in name order.

Because the table digest is a sum, the final state's hash follows from the initial state's
and the diff in time proportional to the diff; the initial state's is cached per snapshot,
which a group of episodes of one task shares.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from hashlib import sha256
from typing import Any

import orjson

from .diff import Diff, States
from .schema import app_tables, ident, query

_MODULUS = 1 << 256


@dataclass(frozen=True, slots=True)
class _Table:
    columns: tuple[str, ...]
    rows: int
    digest: int


def state_hash(state: sqlite3.Connection | bytes) -> str:
    """Hash of the app tables of a connection's main database, or of a serialized database."""
    if isinstance(state, bytes):
        return _hexdigest(_snapshot(state))
    return _hexdigest(_tables(state, "main"))


def hash_after(states: States, diff: Diff) -> str:
    """Hash of the final state, from the (cached) initial state's and the diff."""
    initial = _snapshot(states.initial)
    final: dict[str, _Table] = {}
    for name, columns in states.tables["final"].items():
        table = initial.get(name, _Table(columns, 0, 0))
        changes = diff.get(name)
        if changes is not None:
            gone = [*changes.removed.values(), *(c.before for c in changes.changed.values())]
            new = [*changes.added.values(), *(c.after for c in changes.changed.values())]
            table = _Table(
                columns,
                table.rows + len(changes.added) - len(changes.removed),
                (table.digest - _sum(r.values() for r in gone) + _sum(r.values() for r in new))
                % _MODULUS,
            )
        final[name] = table
    return _hexdigest(final)


@lru_cache(maxsize=16)
def _snapshot(data: bytes) -> Mapping[str, _Table]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        return _tables(conn, "main")
    finally:
        conn.close()


def _tables(conn: sqlite3.Connection, schema: str) -> dict[str, _Table]:
    tables = {}
    for name, columns in app_tables(conn, schema).items():
        rows = query(conn, f"SELECT * FROM {ident(schema)}.{ident(name)}").fetchall()
        tables[name] = _Table(columns, len(rows), _sum(rows))
    return tables


def _sum(rows: Iterable[Iterable[Any]]) -> int:
    return sum(_row_digest(tuple(row)) for row in rows) % _MODULUS


def _row_digest(values: Sequence[Any]) -> int:
    return int.from_bytes(sha256(orjson.dumps(values, default=_blob)).digest())


def _blob(value: object) -> dict[str, str]:
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    raise TypeError(f"cannot hash a {type(value).__name__} value")


def _hexdigest(tables: Mapping[str, _Table]) -> str:
    dump = [
        [name, list(table.columns), table.rows, f"{table.digest:064x}"]
        for name, table in sorted(tables.items())
    ]
    return sha256(orjson.dumps(dump)).hexdigest()
