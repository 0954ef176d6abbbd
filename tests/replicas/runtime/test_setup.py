"""Row operations bind rows, resolve references and time expressions, are atomic, and touch
only the app's own tables and columns: no SQL, no bookkeeping tables."""

from __future__ import annotations

import sqlite3

import pytest
from pydantic import ValidationError

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import connect_memory, rows
from replicas.runtime.setup import apply_ops, parse_ops
from workgym_core.errors import InvalidRequest
from workgym_core.refs import BadReference


def _db() -> sqlite3.Connection:
    db = connect_memory()
    db.execute(
        "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, boss_id INTEGER, seen_at TEXT)"
    )
    db.execute("CREATE TABLE _changes (seq INTEGER PRIMARY KEY, tbl TEXT)")
    db.executemany("INSERT INTO people (name, boss_id) VALUES (?, ?)",
                   [("root", None), ("mid", 1), ("other", 1)])
    return db


def test_insert_select_update_bind_rows() -> None:
    db = _db()
    bound = apply_ops(db, parse_ops([
        {"bind": "boss", "select": "people", "where": {"name": "root"}},
        {"bind": "p", "insert": "people",
         "values": {"name": "ann", "boss_id": "$boss.id", "seen_at": "@now-1d+2h"}},
        {"update": "people", "id": "$p.id", "values": {"name": "ann b"}, "bind": "p2"},
        {"bind": "last_report", "select": "people", "where": {"boss_id": "$boss.id"},
         "exclude": {"name": "ann b"}, "order_by": "-id"},
    ]), WORLD_START)
    assert bound["p"]["boss_id"] == bound["boss"]["id"] == 1
    assert bound["p"]["seen_at"] == "2025-06-15T11:00:00Z"
    assert bound["p2"]["name"] == "ann b"
    assert bound["last_report"]["name"] == "other"


def test_failed_setup_changes_nothing() -> None:
    db = _db()
    ops = parse_ops([{"insert": "people", "values": {"name": "x"}},
                     {"update": "people", "id": 999, "values": {"name": "y"}}])
    with pytest.raises(InvalidRequest, match="no people row 999"):
        apply_ops(db, ops, WORLD_START)
    assert [r["name"] for r in rows(db, "SELECT name FROM people")] == ["root", "mid", "other"]


def test_unknown_reference_is_named() -> None:
    with pytest.raises(BadReference, match=r"\$nobody\.id"):
        apply_ops(_db(), parse_ops([{"insert": "people", "values": {"boss_id": "$nobody.id"}}]),
                  WORLD_START)


@pytest.mark.parametrize(("op", "field"), [
    ({"insert": "nobody", "values": {"name": "x"}}, "ops.0.insert"),
    ({"insert": "people", "values": {"no_such_column": 1}}, "ops.0.values.no_such_column"),
    ({"select": "people", "where": {"secret": 1}, "bind": "x"}, "ops.0.where.secret"),
    ({"select": "people", "order_by": "-nope", "bind": "x"}, "ops.0.order_by.nope"),
    ({"insert": "sqlite_master", "values": {"name": "x"}}, "ops.0.insert"),
])
def test_only_the_apps_tables_and_columns(op: dict[str, object], field: str) -> None:
    db = _db()
    with pytest.raises(InvalidRequest) as refused:
        apply_ops(db, parse_ops([op]), WORLD_START)
    assert refused.value.field == field
    assert len(rows(db, "SELECT * FROM people")) == 3


@pytest.mark.parametrize("op", [
    {"sql": "ATTACH DATABASE '/tmp/x' AS x"},                       # no SQL operation at all
    {"select": "SELECT * FROM people", "bind": "x"},                # a table name, not SQL
    {"insert": "_changes", "values": {"tbl": "x"}},                 # bookkeeping tables
    {"update": "people", "id": "1; DROP TABLE people", "values": {"name": "x"}},
    {"insert": "people", "values": {"name; DROP TABLE people": "x"}},
    {"insert": "people", "values": {"boss_id": 2**63}},             # would overflow SQLite
])
def test_sql_cannot_be_expressed(op: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        parse_ops([op])
