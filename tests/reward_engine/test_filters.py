from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from workgym_reward import ConfigError
from workgym_reward.filters import check_filter, compile_filter, describe_filter

COLUMNS = ("id", "status", "amount", "note")


@pytest.fixture
def table() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT, amount INTEGER, note TEXT);"
        "INSERT INTO t VALUES (1, 'open', 100, 'Refund Requested'), (2, 'solved', 250, NULL),"
        " (3, NULL, 250, 'call back'), (4, 'pending', 900, '50% off');"
    )
    yield conn
    conn.close()


def _ids(conn: sqlite3.Connection, where: dict[str, Any]) -> list[int]:
    condition, params = compile_filter(where, table="t", columns=COLUMNS)
    return [i for (i,) in conn.execute(f"SELECT id FROM t WHERE {condition} ORDER BY id", params)]


@pytest.mark.parametrize(
    ("where", "ids"),
    [
        ({}, [1, 2, 3, 4]),
        ({"status": "open"}, [1]),
        ({"status": None}, [3]),
        ({"amount": 250, "status": "solved"}, [2]),
        ({"status": {"eq": "solved"}}, [2]),
        ({"status": {"ne": "open"}}, [2, 3, 4]),  # NULL-safe: the NULL status is not 'open'
        ({"status": {"ne": None}}, [1, 2, 4]),
        ({"amount": {"gt": 250}}, [4]),
        ({"amount": {"gte": 250}}, [2, 3, 4]),
        ({"amount": {"lt": 250}}, [1]),
        ({"amount": {"lte": 250}}, [1, 2, 3]),
        ({"status": {"in": ["open", "pending"]}}, [1, 4]),
        ({"status": {"in": []}}, []),
        ({"status": {"not_in": ["open", "pending"]}}, [2, 3]),
        ({"note": {"contains": "REFUND"}}, [1]),
        ({"note": {"like": "%back"}}, [3]),
        ({"amount": "250"}, [2, 3]),  # the column's affinity applies, as in SQL
    ],
)
def test_operators(table: sqlite3.Connection, where: dict[str, Any], ids: list[int]) -> None:
    assert _ids(table, where) == ids


def test_same_day_compares_calendar_days_of_timestamps() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT, amount INTEGER, note TEXT);"
        "INSERT INTO t VALUES (1, NULL, 0, '2025-06-16T00:05:00Z'), (2, NULL, 0, "
        "'2025-06-16T23:59:59Z'), (3, NULL, 0, '2025-06-15T23:59:59Z'), (4, NULL, 0, 'soon'),"
        " (5, NULL, 0, NULL);")
    assert _ids(conn, {"note": {"same_day": "2025-06-16T09:00:00Z"}}) == [1, 2]
    assert _ids(conn, {"note": {"same_day": "2025-06-15"}}) == [3]  # text is no day at all
    assert describe_filter({"started": {"same_day": "2025-06-16"}}) == (
        "started on the day of '2025-06-16'")
    conn.close()


def test_values_never_enter_the_sql(table: sqlite3.Connection) -> None:
    assert _ids(table, {"note": "x'); DROP TABLE t; --"}) == []
    assert _ids(table, {"note": {"contains": "%"}}) == [4]  # no LIKE wildcard either


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"status": {"regex": "o.*"}}, "filter on 'status': unknown operator 'regex' \\(operators"),
        ({"status": {"eq": 1, "ne": 2}}, "exactly one key, got \\['eq', 'ne'\\]"),
        ({"status": ["open"]}, "expected a string or a number, got \\['open'\\] \\(use {in"),
        ({"status": {"in": "open"}}, "operator 'in': expected a list"),
        ({"amount": {"gt": None}}, "null only compares with eq or ne"),
        ({"status": {"eq": {"nested": 1}}}, "expected a string or a number"),
        ({"note": {"same_day": "today"}}, "operator 'same_day': expected a date or an ISO "),
        ({"note": {"same_day": 20250616}}, "operator 'same_day': expected a date"),
    ],
)
def test_malformed_filters(where: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_filter(where)


def test_unknown_columns_are_named() -> None:
    with pytest.raises(ConfigError, match="unknown column 'state' in table 't' \\(columns: id,"):
        compile_filter({"state": "open"}, table="t", columns=COLUMNS)


def test_descriptions() -> None:
    where = {"charge_id": 41, "reason": "partial", "closed_at": None, "n": {"gte": 2},
             "s": {"in": ["a", "b"]}, "note": {"contains": "x"}}

    assert describe_filter(where) == (
        "charge_id=41, reason='partial', closed_at=null, n>=2, s in ['a', 'b'], note contains 'x'"
    )
