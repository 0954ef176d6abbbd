"""Rows of a query over an episode's final state, reused across the episodes of one initial
state (its snapshot key) when no table the query reads changed in the episode.

The facts a message is judged against (``claims.yaml``: ``facts``, ``amounts``, the world's
names, the sensitive data) are queries over the whole final state, mostly of tables the agent
never touched. A query's result depends only on the rows of the tables it reads (SQLite's
authorizer names them as the query is prepared) and its parameters, so where each of those
tables is unchanged (the same columns on both sides, no row in the diff), its result is the
initial state's: the first episode of a snapshot that finds it so keeps it, and the others of
the group (every rollout of a (task, seed)) reuse it. A query that reads anything but app
tables (the change log, SQLite's schema, another database) is always run.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .diff import Diff, States

Row = dict[str, Any]

# Snapshots whose query results are kept: every (task, seed) of a large GRPO batch. A
# snapshot's facts are tens to hundreds of rows per claim.
CACHED_SNAPSHOTS = 256


@dataclass(frozen=True, slots=True)
class _Result:
    tables: frozenset[str] | None  # the app tables it reads; None: it reads other things
    rows: tuple[Row, ...] | None  # the initial state's rows, once an episode found them so


_results: OrderedDict[str, dict[tuple[str, str], _Result]] = OrderedDict()
_lock = threading.Lock()  # scoring threads share the cache


def unchanged_tables(states: States, diff: Diff) -> frozenset[str]:
    """The app tables of the same columns in both states with no row in ``diff``."""
    before, after = states.tables["initial"], states.tables["final"]
    return frozenset(t for t, columns in after.items()
                     if before.get(t) == columns and t not in diff)


def rows(states: States, unchanged: frozenset[str], sql: str,
         values: Mapping[str, Any]) -> list[Row]:
    """The rows of ``sql`` (with ``values``) over the final state of ``states``: the initial
    state's, kept by its snapshot key, where each table it reads is in ``unchanged``. The
    rows are shared between episodes: read them, never change them."""
    if states.key is None:
        return _run(states.conn, sql, values)
    query = (sql, repr(sorted(values.items())))
    with _lock:
        known = _results.get(states.key, {}).get(query)
    if known is not None and known.tables is not None and known.tables <= unchanged:
        if known.rows is not None:
            return list(known.rows)
        found = _run(states.conn, sql, values)
        _keep(states.key, query, _Result(known.tables, tuple(found)))
        return found
    if known is not None:
        return _run(states.conn, sql, values)
    tables, found = _recorded(states, sql, values)
    _keep(states.key, query, _Result(
        tables, tuple(found) if tables is not None and tables <= unchanged else None))
    return found


def _keep(key: str, query: tuple[str, str], result: _Result) -> None:
    with _lock:
        by_query = _results.setdefault(key, {})
        _results.move_to_end(key)
        by_query[query] = result
        if len(_results) > CACHED_SNAPSHOTS:
            _results.popitem(last=False)


def _run(conn: sqlite3.Connection, sql: str, values: Mapping[str, Any]) -> list[Row]:
    cursor = conn.execute(sql, values)
    columns = [c[0] for c in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor]


def _recorded(states: States, sql: str, values: Mapping[str, Any]
              ) -> tuple[frozenset[str] | None, list[Row]]:
    """The query's rows and the app tables it reads (None when it reads anything else)."""
    read: set[tuple[str, str]] = set()

    def authorize(action: int, table: str | None, _column: str | None, database: str | None,
                  _trigger: str | None) -> int:
        if action == sqlite3.SQLITE_READ and table is not None:
            read.add((table, database or ""))
        return sqlite3.SQLITE_OK

    states.conn.set_authorizer(authorize)  # also makes SQLite prepare the query anew
    try:
        found = _run(states.conn, sql, values)
    finally:
        states.conn.set_authorizer(None)
    app_tables = states.tables["final"]
    tables = set()
    for table, database in read:
        if database == "main" and table in app_tables:
            tables.add(table)
        elif database != "main" or table.startswith("sqlite_") or states.conn.execute(
                "SELECT 1 FROM main.sqlite_master WHERE name = ?", [table]).fetchone():
            return None, found  # the change log, the schema, the other state
        # else a table-valued function (json_each): its rows come from the values
    return frozenset(tables), found
