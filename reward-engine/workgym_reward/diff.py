"""Row-level diff of the initial and final state of one app database, keyed by ``id``.

Both states are deserialized into one in-memory connection: ``main`` holds the final state and
the initial one is attached as ``initial``. Differing rows are found in SQL with ``EXCEPT``,
narrowed to the rowid spans of the pages that changed (see :mod:`workgym_reward.pages`) and,
where both states keep a change log (a ``_changes`` table that triggers on every app table fill
with each write's ``tbl``, as the replicas' runtime does), to the tables it names since the
initial state. Tables whose names start with ``_`` or ``sqlite_`` are not app data and are
ignored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .errors import RewardError
from .pages import Span, changed_spans
from .schema import app_tables, ident

Side = Literal["initial", "final"]
Row = dict[str, Any]

SCHEMAS: Mapping[Side, str] = {"initial": "initial", "final": "main"}


@dataclass(frozen=True, slots=True)
class Change:
    before: Row
    after: Row
    fields: frozenset[str]


@dataclass(frozen=True, slots=True)
class TableDiff:
    added: dict[int, Row]
    removed: dict[int, Row]
    changed: dict[int, Change]


Diff = dict[str, TableDiff]
"""The app tables that differ, in name order."""


@dataclass(frozen=True, slots=True)
class States:
    """Both states of one app in one connection, with the app tables of each side."""

    conn: sqlite3.Connection
    initial: bytes
    final: bytes
    tables: Mapping[Side, Mapping[str, tuple[str, ...]]]
    key: str | None = None
    """What names the initial state (the replica's snapshot key): equal keys, equal states."""

    @classmethod
    def open(cls, initial: bytes, final: bytes, key: str | None = None) -> States:
        conn = sqlite3.connect(":memory:")
        conn.deserialize(final)
        conn.execute("ATTACH ':memory:' AS initial")
        conn.deserialize(initial, name="initial")
        tables = {side: app_tables(conn, schema) for side, schema in SCHEMAS.items()}
        keyless = {t for side in tables.values() for t, cols in side.items() if "id" not in cols}
        if keyless:
            conn.close()
            raise RewardError(f"app tables without an id column: {', '.join(sorted(keyless))}")
        return cls(conn, initial, final, tables, key)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> States:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def row_diff(initial: bytes, final: bytes) -> Diff:
    """Added, removed and changed rows of every app table between two serialized databases."""
    with States.open(initial, final) as states:
        return diff_states(states)


def diff_states(states: States) -> Diff:
    before, after = states.tables["initial"], states.tables["final"]
    same = _same_schema(states.conn)
    spans = changed_spans(states.initial, states.final) if same else None
    if spans == []:
        return {}
    logged = _logged(states.conn, before) if same else None
    diff: Diff = {}
    for table in sorted(before.keys() | after.keys()):
        if logged is not None and table not in logged:
            continue  # the same definition (same schema), and no write logged on it
        if before.get(table) == after.get(table):
            found = _compare(states.conn, table, spans)
        else:  # created, dropped or redefined: every row counts
            found = TableDiff(
                added=_rows(states.conn, "final", table) if table in after else {},
                removed=_rows(states.conn, "initial", table) if table in before else {},
                changed={},
            )
        if found.added or found.removed or found.changed:
            diff[table] = found
    return diff


def _same_schema(conn: sqlite3.Connection) -> bool:
    query = "SELECT type, name, tbl_name, rootpage, sql FROM {}.sqlite_master ORDER BY name"
    return bool(
        conn.execute(query.format("main")).fetchall()
        == conn.execute(query.format("initial")).fetchall()
    )


_LOGGED_OPS = ("INSERT", "UPDATE", "DELETE")


def _logged(conn: sqlite3.Connection, tables: Mapping[str, tuple[str, ...]]) -> set[str] | None:
    """The app tables the change log names since the initial state; None (every table may
    differ) unless an AFTER INSERT, UPDATE and DELETE trigger on every app table writes to a
    ``_changes (seq, tbl, ...)`` table. Called with both sides' schemas equal."""
    triggers = conn.execute(
        "SELECT tbl_name, upper(sql) FROM initial.sqlite_master WHERE type = 'trigger'"
    ).fetchall()
    covered: dict[str, set[str]] = {}
    for table, sql in triggers:
        if "INSERT INTO _CHANGES" in sql and " WHEN " not in sql:
            covered.setdefault(table, set()).update(
                op for op in _LOGGED_OPS if f"AFTER {op} ON" in sql)
    if any(covered.get(table) != set(_LOGGED_OPS) for table in tables):
        return None
    columns = {row[1] for row in conn.execute("PRAGMA initial.table_info(_changes)")}
    if not {"seq", "tbl"} <= columns:
        return None
    rows = conn.execute("SELECT DISTINCT tbl FROM main._changes WHERE seq > "
                        "(SELECT coalesce(max(seq), 0) FROM initial._changes)")
    return {table for (table,) in rows}


def _compare(conn: sqlite3.Connection, table: str, spans: list[Span] | None) -> TableDiff:
    where, params = _within(spans)
    main, initial = (f"SELECT * FROM {db}.{ident(table)}{where}" for db in ("main", "initial"))
    new = _keyed(conn.execute(f"{main} EXCEPT {initial}", params * 2))
    old = _keyed(conn.execute(f"{initial} EXCEPT {main}", params * 2))
    changed = {
        row_id: Change(old[row_id], new[row_id], _changed_fields(old[row_id], new[row_id]))
        for row_id in sorted(new.keys() & old.keys())
    }
    return TableDiff(
        added={row_id: row for row_id, row in new.items() if row_id not in changed},
        removed={row_id: row for row_id, row in old.items() if row_id not in changed},
        changed=changed,
    )


def _within(spans: list[Span] | None) -> tuple[str, list[int]]:
    """WHERE clause restricting a scan to ``spans`` of rowids (all rows when None)."""
    if spans is None:
        return "", []
    clause = " OR ".join("rowid BETWEEN ? AND ?" for _ in spans)
    return f" WHERE {clause}", [bound for span in spans for bound in span]


def _rows(conn: sqlite3.Connection, side: Side, table: str) -> dict[int, Row]:
    return _keyed(conn.execute(f"SELECT * FROM {SCHEMAS[side]}.{ident(table)}"))


def _keyed(cursor: sqlite3.Cursor) -> dict[int, Row]:
    names = [column[0] for column in cursor.description]
    rows = (dict(zip(names, values, strict=True)) for values in cursor)
    return {row["id"]: row for row in sorted(rows, key=lambda row: row["id"])}


def _changed_fields(before: Row, after: Row) -> frozenset[str]:
    return frozenset(name for name, value in after.items() if before[name] != value)
