"""Task setup binds rows, resolves references and time expressions, and is atomic."""

from __future__ import annotations

import pytest

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import connect_memory, rows
from replicas.runtime.setup import apply_setup, parse_setup
from workgym.runtime.errors import InvalidRequest
from workgym.runtime.refs import BadReference


def _db():  # type: ignore[no-untyped-def]
    db = connect_memory()
    db.execute(
        "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, boss_id INTEGER, seen_at TEXT)"
    )
    db.execute("INSERT INTO people (name) VALUES ('root')")
    return db


def test_insert_select_update_bind_rows() -> None:
    db = _db()
    bound = apply_setup(
        db,
        parse_setup(
            [
                {
                    "bind": "boss",
                    "select": "SELECT * FROM people WHERE name = ?",
                    "params": ["root"],
                },
                {
                    "bind": "p",
                    "insert": "people",
                    "values": {"name": "ann", "boss_id": "$boss.id", "seen_at": "@now-1d+2h"},
                },
                {"update": "people", "id": "$p.id", "values": {"name": "ann b"}, "bind": "p2"},
            ]
        ),
        WORLD_START,
    )
    assert bound["p"]["boss_id"] == bound["boss"]["id"] == 1
    assert bound["p"]["seen_at"] == "2025-06-15T11:00:00Z"
    assert bound["p2"]["name"] == "ann b"


def test_failed_setup_changes_nothing() -> None:
    db = _db()
    ops = parse_setup(
        [
            {"insert": "people", "values": {"name": "x"}},
            {"insert": "people", "values": {"no_such_column": 1}},
        ]
    )
    with pytest.raises(InvalidRequest):
        apply_setup(db, ops, WORLD_START)
    assert rows(db, "SELECT name FROM people") == [{"name": "root"}]


def test_unknown_reference_is_named() -> None:
    with pytest.raises(BadReference, match=r"\$nobody\.id"):
        apply_setup(
            _db(),
            parse_setup([{"insert": "people", "values": {"boss_id": "$nobody.id"}}]),
            WORLD_START,
        )
