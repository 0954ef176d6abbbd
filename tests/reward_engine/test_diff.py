from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from workgym_reward import RewardError, row_diff
from workgym_reward.diff import Diff

from .conftest import SCHEMA, MakeDb


def test_no_change_is_an_empty_diff(world: bytes) -> None:
    assert row_diff(world, world) == {}


def test_added_removed_and_changed_rows(world: bytes, act: Callable[..., bytes]) -> None:
    final = act(
        "INSERT INTO refunds VALUES (1, 41, 2500, 'partial');"
        "UPDATE tickets SET status = 'solved', updated_at = '2024-05-02' WHERE id = 10;"
        "DELETE FROM charges WHERE id = 42;"
    )

    diff = row_diff(world, final)

    assert list(diff) == ["charges", "refunds", "tickets"]
    assert diff["refunds"].added == {
        1: {"id": 1, "charge_id": 41, "amount_cents": 2500, "reason": "partial"}
    }
    assert diff["charges"].removed == {42: {"id": 42, "customer_id": 2, "amount_cents": 990}}
    change = diff["tickets"].changed[10]
    assert change.fields == {"status", "updated_at"}
    assert (change.before["status"], change.after["status"]) == ("open", "solved")
    assert change.after["subject"] == "Refund for order 77"


def test_underscore_and_sqlite_tables_are_ignored(world: bytes, act: Callable[..., bytes]) -> None:
    final = act("UPDATE _episode SET note = 'done'; INSERT INTO audit (event) VALUES ('x')")

    diff = row_diff(world, final)

    assert list(diff) == ["audit"]  # not _episode, nor sqlite_sequence's counter
    assert list(diff["audit"].added) == [2]


def test_tables_on_one_side_count_wholly(world: bytes, act: Callable[..., bytes]) -> None:
    final = act(
        "DROP TABLE charges; CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
        "INSERT INTO notes VALUES (1, 'hello')"
    )

    diff = row_diff(world, final)

    assert sorted(diff["charges"].removed) == [40, 41, 42]
    assert not diff["charges"].added
    assert diff["notes"].added == {1: {"id": 1, "body": "hello"}}


def test_a_redefined_table_is_removed_and_added_wholly(
    world: bytes, act: Callable[..., bytes]
) -> None:
    final = act("ALTER TABLE charges ADD COLUMN currency TEXT DEFAULT 'EUR'")

    diff = row_diff(world, final)

    assert sorted(diff["charges"].removed) == sorted(diff["charges"].added) == [40, 41, 42]
    assert diff["charges"].added[40]["currency"] == "EUR"


def test_a_table_without_id_is_an_error(make_db: MakeDb) -> None:
    data = make_db("CREATE TABLE things (name TEXT)")

    with pytest.raises(RewardError, match="without an id column: things"):
        row_diff(data, data)


def _oracle(initial: bytes, final: bytes) -> dict[str, Any]:
    """The diff computed the slow, obvious way: whole tables compared in Python."""

    def load(data: bytes) -> dict[str, dict[int, dict[str, Any]]]:
        conn = sqlite3.connect(":memory:")
        conn.deserialize(data)
        conn.row_factory = sqlite3.Row
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        tables = {
            name: {row["id"]: dict(row) for row in conn.execute(f'SELECT * FROM "{name}"')}
            for name in names
            if not name.startswith(("_", "sqlite_"))
        }
        conn.close()
        return tables

    before, after = load(initial), load(final)
    diff = {}
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name, {}), after.get(name, {})
        entry = {
            "added": {i: new[i] for i in new.keys() - old.keys()},
            "removed": {i: old[i] for i in old.keys() - new.keys()},
            "changed": {i: (old[i], new[i]) for i in old.keys() & new.keys() if old[i] != new[i]},
        }
        if any(entry.values()):
            diff[name] = entry
    return diff


def _as_plain(diff: Diff) -> dict[str, Any]:
    return {
        name: {
            "added": table.added,
            "removed": table.removed,
            "changed": {i: (c.before, c.after) for i, c in table.changed.items()},
        }
        for name, table in diff.items()
    }


def _random_history(rng: random.Random, conn: sqlite3.Connection, steps: int) -> None:
    """Inserts, updates and deletes of rows of every size, including overflowing ones."""
    for _ in range(steps):
        table = rng.choice(["tickets", "refunds", "users"])
        (top,) = conn.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()
        text = "x" * rng.choice([1, 40, 900, 6000])  # 6000 bytes overflow a 4096-byte page
        action = rng.random()
        if action < 0.4:
            if table == "tickets":
                conn.execute(
                    "INSERT INTO tickets (requester_id, subject, status) VALUES (?, ?, 'open')",
                    (rng.randint(2, 4), text),
                )
            elif table == "refunds":
                conn.execute(
                    "INSERT INTO refunds (charge_id, amount_cents, reason) VALUES (?, ?, ?)",
                    (rng.randint(40, 42), rng.randint(1, 9999), text),
                )
            else:
                conn.execute("INSERT INTO users (name, role) VALUES (?, 'end-user')", (text,))
        elif action < 0.75:
            column = {"tickets": "subject", "refunds": "reason", "users": "email"}[table]
            conn.execute(
                f"UPDATE {table} SET {column} = ? WHERE id = ?", (text, rng.randint(1, top + 1))
            )
        else:
            low = rng.randint(1, top + 1)
            conn.execute(f"DELETE FROM {table} WHERE id BETWEEN ? AND ?", (low, low + 30))


@pytest.mark.parametrize("seed", range(12))
def test_diff_matches_a_whole_table_comparison(seed: int) -> None:
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    _random_history(rng, conn, 400)  # a world with free pages and overflow chains
    conn.commit()
    initial = conn.serialize()
    _random_history(rng, conn, rng.choice([1, 3, 30]))
    conn.commit()
    if seed % 4 == 3:
        conn.execute("VACUUM")  # a final state with another page layout altogether
    final = conn.serialize()
    conn.close()

    assert _as_plain(row_diff(initial, final)) == _oracle(initial, final)
