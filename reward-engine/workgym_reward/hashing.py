"""A content hash of an app database, independent of SQLite's version and page layout.

Each row is encoded canonically (its values in column order, with their JSON types; blobs as
hex) and digested with SHA-256. A table's digest is the sum of its rows' digests modulo 2**256
(a multiset hash: rows are identified by their ``id``, so order does not matter), and the state
hash is the SHA-256 of every app table's name, columns, row count and digest, in name order.

Because the table digest is a sum, the final state's hash follows from the initial state's
and the diff in time proportional to the diff; the initial state's is cached per snapshot,
which a group of episodes of one task shares: by its key where the caller names it (the
replica's snapshot key), else by a SHA-256 of its bytes; the cache holds a few hundred bytes
per snapshot, never the snapshot itself.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import sha256
from typing import Any

import orjson

from .diff import SCHEMAS, Diff, States
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


# Snapshots whose table digests are kept (a few hundred bytes each): every (task, seed) of a
# large GRPO group, and more.
CACHED_SNAPSHOTS = 4096


def hash_after(states: States, diff: Diff) -> str:
    """Hash of the final state, from the (cached) initial state's and the diff."""
    key = states.key if states.key is not None else sha256(states.initial).hexdigest()
    initial = _initial(key, states.conn)
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


_initials: OrderedDict[str, Mapping[str, _Table]] = OrderedDict()
_initials_lock = threading.Lock()  # scoring threads share the cache


def _initial(key: str, conn: sqlite3.Connection) -> Mapping[str, _Table]:
    """The table digests of the snapshot ``key`` names (attached to ``conn`` as
    ``initial``), the least recently used dropped past CACHED_SNAPSHOTS."""
    with _initials_lock:
        found = _initials.get(key)
        if found is not None:
            _initials.move_to_end(key)
            return found
    found = _tables(conn, SCHEMAS["initial"])
    with _initials_lock:
        _initials[key] = found
        if len(_initials) > CACHED_SNAPSHOTS:
            _initials.popitem(last=False)
    return found


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
