"""The final-state class: two solutions that change the same columns of the same records and
add as many rows are in one class, whatever values they write (free text, times, generated
ids) and however bookkeeping columns move; one that touches another column or record, adds
another number of rows or removes a row is not."""

from __future__ import annotations

from collections.abc import Callable

from workgym_reward import row_diff
from workgym_reward.state_class import state_class


def _class(world: bytes, final: bytes) -> dict[str, dict[str, object]]:
    return state_class(row_diff(world, final))


def test_the_class_says_which_columns_of_which_rows_changed_and_how_many_rows_came(
        world: bytes, act: Callable[..., bytes]) -> None:
    final = act("UPDATE tickets SET status = 'solved', updated_at = '2024-05-02' WHERE id = 10;"
                "INSERT INTO refunds VALUES (7, 41, 2500, 'partial');"
                "DELETE FROM charges WHERE id = 42;")

    assert _class(world, final) == {
        "charges": {"changed": {}, "added": 0, "removed": [42]},
        "refunds": {"changed": {}, "added": 1, "removed": []},
        "tickets": {"changed": {"10": ["status"]}, "added": 0, "removed": []},
    }


def test_values_ids_and_bookkeeping_that_legitimately_differ_leave_the_class_as_it_is(
        world: bytes, act: Callable[..., bytes]) -> None:
    api = act("UPDATE tickets SET status = 'solved', updated_at = '2024-05-02' WHERE id = 10;"
              "INSERT INTO refunds VALUES (7, 41, 2500, 'Refunded as agreed.');")
    page = act("UPDATE tickets SET status = 'pending', updated_at = '2024-05-03' WHERE id = 10;"
               "UPDATE tickets SET updated_at = '2024-05-03' WHERE id = 11;"
               "INSERT INTO refunds VALUES (9, 40, 10, 'Another wording entirely.');")

    assert _class(world, page) == _class(world, api)


def test_another_column_record_or_count_is_another_class(
        world: bytes, act: Callable[..., bytes]) -> None:
    api = act("UPDATE tickets SET status = 'solved' WHERE id = 10;"
              "INSERT INTO refunds VALUES (7, 41, 2500, 'partial');")
    others = [
        "UPDATE tickets SET status = 'solved', priority = 'low' WHERE id = 10;"
        "INSERT INTO refunds VALUES (7, 41, 2500, 'partial');",
        "UPDATE tickets SET status = 'solved' WHERE id = 11;"
        "INSERT INTO refunds VALUES (7, 41, 2500, 'partial');",
        "UPDATE tickets SET status = 'solved' WHERE id = 10;"
        "INSERT INTO refunds VALUES (7, 41, 2500, 'partial'), (8, 41, 1, 'again');",
        "UPDATE tickets SET status = 'solved' WHERE id = 10;"
        "INSERT INTO refunds VALUES (7, 41, 2500, 'partial'); DELETE FROM charges WHERE id = 40;",
    ]

    assert all(_class(world, act(other)) != _class(world, api) for other in others)
