"""The read copies of snapshots: kept for the next reads however many were in use at once,
within one bound over all snapshots; never written through."""

from __future__ import annotations

import sqlite3

import pytest

from replicas.runtime.reads import ReadCopies


def _snapshot(rows: int) -> bytes:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(rows)])
    data = conn.serialize()
    conn.close()
    return data


def test_bursts_of_reads_reuse_the_copies_of_the_first() -> None:
    copies, data = ReadCopies(), _snapshot(3)
    for _ in range(3):  # three bursts of 16 reads at once, each given back before the next
        leased = [copies.lease("a", data) for _ in range(16)]
        for conn in leased:
            copies.give_back("a", conn)
    assert copies.built == 16 and len(copies) == 16
    copies.close()
    assert len(copies) == 0


def test_a_copy_given_back_is_the_next_one_leased() -> None:
    copies, data = ReadCopies(), _snapshot(3)
    first = copies.lease("a", data)
    copies.give_back("a", first)
    assert copies.lease("a", data) is first
    assert copies.built == 1 and len(copies) == 0


def test_idle_copies_are_bounded_over_all_snapshots_least_recently_used_first() -> None:
    copies, a, b = ReadCopies(keep=3), _snapshot(1), _snapshot(2)
    older = [copies.lease("a", a) for _ in range(2)]
    newer = [copies.lease("b", b) for _ in range(2)]
    for conn in older:
        copies.give_back("a", conn)
    for conn in newer:
        copies.give_back("b", conn)
    assert len(copies) == 3
    with pytest.raises(sqlite3.ProgrammingError):  # a's first given back: closed
        older[0].execute("SELECT 1")
    assert copies.lease("a", a) is older[1]
    assert {id(copies.lease("b", b)) for _ in range(2)} == {id(conn) for conn in newer}
    assert copies.built == 4 and len(copies) == 0


def test_a_copy_is_never_written_through() -> None:
    copies = ReadCopies()
    conn = copies.lease("a", _snapshot(2))
    with pytest.raises(sqlite3.OperationalError, match="readonly|query_only"):
        conn.execute("DELETE FROM t")
    assert conn.execute("SELECT count(*) AS n FROM t").fetchone()["n"] == 2
