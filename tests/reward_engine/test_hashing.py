from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable

import pytest

from workgym_reward import state_hash
from workgym_reward.diff import States, diff_states
from workgym_reward.hashing import hash_after

from .conftest import SCHEMA, MakeDb
from .test_diff import _random_history


def test_same_content_in_another_insert_order_hashes_the_same(make_db: MakeDb) -> None:
    rows = [(1, "open"), (2, "solved"), (3, "open")]
    schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT);"
    forward = make_db(schema, *(f"INSERT INTO t VALUES ({i}, '{s}');" for i, s in rows))
    backward = make_db(schema, *(f"INSERT INTO t VALUES ({i}, '{s}');" for i, s in rows[::-1]))

    assert forward != backward  # different pages, same content
    assert state_hash(forward) == state_hash(backward)


@pytest.mark.parametrize(
    ("change", "same"),
    [
        ("UPDATE charges SET amount_cents = 2501 WHERE id = 41", False),
        ("UPDATE tickets SET subject = 2500 WHERE id = 10", False),
        ("UPDATE tickets SET subject = '2500' WHERE id = 10", False),
        ("UPDATE tickets SET closed_at = NULL WHERE id = 12", False),
        ("CREATE TABLE notes (id INTEGER PRIMARY KEY)", False),
        ("UPDATE charges SET amount_cents = 2500.0 WHERE id = 41", True),  # INTEGER affinity
        ("DELETE FROM refunds", True),  # no row to delete
        ("UPDATE _episode SET note = 'not app data'", True),
    ],
)
def test_the_hash_follows_content_and_types(
    world: bytes, act: Callable[..., bytes], change: str, same: bool
) -> None:
    assert (state_hash(act(change)) == state_hash(world)) is same


def test_values_of_different_types_hash_differently(make_db: MakeDb) -> None:
    schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, value);"
    values = ["1", "1.0", "'1'", "x'31'", "NULL"]
    hashes = {state_hash(make_db(schema, f"INSERT INTO t VALUES (1, {v})")) for v in values}

    assert len(hashes) == len(values)


def test_a_connection_hashes_like_its_bytes_whatever_its_row_factory(world: bytes) -> None:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(world)
    conn.row_factory = sqlite3.Row

    assert state_hash(conn) == state_hash(world)
    conn.close()


@pytest.mark.parametrize("seed", range(6))
def test_hash_after_a_diff_equals_hashing_the_final_state(seed: int) -> None:
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    _random_history(rng, conn, 200)
    conn.commit()
    initial = conn.serialize()
    _random_history(rng, conn, 20)
    if seed % 3 == 1:
        conn.execute("DROP TABLE charges")
    if seed % 3 == 2:
        conn.execute("ALTER TABLE refunds ADD COLUMN currency TEXT DEFAULT 'EUR'")
    conn.commit()
    final = conn.serialize()
    conn.close()

    with States.open(initial, final) as states:
        assert hash_after(states, diff_states(states)) == state_hash(final)
