"""Query rows reused across the episodes of one initial state (snapshot key) only while the
tables the query reads are unchanged."""

from __future__ import annotations

from collections.abc import Callable

from workgym_reward import reused_rows
from workgym_reward.diff import States, diff_states

PEOPLE = "SELECT name FROM users WHERE role = 'end-user' ORDER BY id"
LOG = "SELECT count(*) AS n FROM _episode"


def _rows(world: bytes, final: bytes, key: str, sql: str) -> list[reused_rows.Row]:
    with States.open(world, final, key) as states:
        unchanged = reused_rows.unchanged_tables(states, diff_states(states))
        return reused_rows.rows(states, unchanged, sql, {})


def test_rows_of_unchanged_tables_are_reused(world: bytes, act: Callable[..., bytes]) -> None:
    touched = act("UPDATE tickets SET status = 'solved' WHERE id = 10")
    first = _rows(world, touched, "reuse", PEOPLE)
    again = _rows(world, touched, "reuse", PEOPLE)
    assert [r["name"] for r in first] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert all(a is b for a, b in zip(first, again, strict=True))  # kept, not read again


def test_a_changed_table_is_read_from_the_final_state(world: bytes,
                                                     act: Callable[..., bytes]) -> None:
    _rows(world, act("UPDATE tickets SET status = 'solved' WHERE id = 10"), "changed", PEOPLE)
    renamed = act("UPDATE users SET name = 'Ada King' WHERE id = 2")
    assert [r["name"] for r in _rows(world, renamed, "changed", PEOPLE)] == [
        "Ada King", "Alan Turing", "Grace Hopper"]
    assert _rows(world, world, "changed", PEOPLE)[0]["name"] == "Ada Lovelace"


def test_a_query_of_other_tables_is_always_run(world: bytes, act: Callable[..., bytes]) -> None:
    assert _rows(world, world, "log", LOG) == [{"n": 1}]
    assert _rows(world, act("INSERT INTO _episode VALUES (2, 'acted')"), "log", LOG) == [{"n": 2}]


def test_without_a_key_nothing_is_kept(world: bytes) -> None:
    with States.open(world, world) as states:
        first = reused_rows.rows(states, frozenset({"users"}), PEOPLE, {})
        again = reused_rows.rows(states, frozenset({"users"}), PEOPLE, {})
    assert first == again and first[0] is not again[0]
