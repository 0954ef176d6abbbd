"""Row operations bind rows, resolve references (this app's and other apps') and time
expressions, make rows with the app's factories, are atomic, and touch only the app's own
tables, columns and factories: no SQL, no bookkeeping tables."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import rows
from replicas.runtime.identity import WORLD_PEOPLE, identity
from replicas.runtime.setup import apply_ops, parse_ops
from tests.replicas.runtime.toy_app import FACTORIES, db
from workgym_core.errors import InvalidRequest
from workgym_core.refs import BadReference

OTHERS = {"checkout": {"order": {"id": 3, "number": "A-10423"}}}


def apply(ops: list[dict[str, Any]], seed: int = 1, **kwargs: Any) -> dict[str, Any]:
    return apply_ops(kwargs.pop("db", None) or db(), parse_ops(ops), WORLD_START, seed=seed,
                     factories=FACTORIES, **kwargs)


def test_insert_select_update_bind_rows() -> None:
    bound = apply([
        {"bind": "boss", "select": "people", "where": {"name": "root"}},
        {"bind": "p", "insert": "people",
         "values": {"name": "ann", "boss_id": "$boss.id", "seen_at": "@now-1d+2h"}},
        {"update": "people", "id": "$p.id", "values": {"name": "ann b"}, "bind": "p2"},
        {"bind": "last_report", "select": "people", "where": {"boss_id": "$boss.id"},
         "exclude": {"name": "ann b"}, "order_by": "-id"},
    ])
    assert bound["p"]["boss_id"] == bound["boss"]["id"] == 1
    assert bound["p"]["seen_at"] == "2025-06-15T11:00:00Z"
    assert bound["p2"]["name"] == "ann b"
    assert bound["last_report"]["name"] == "other 1"


def test_failed_setup_changes_nothing() -> None:
    world = db()
    with pytest.raises(InvalidRequest, match="no people row 999"):
        apply([{"insert": "people", "values": {"name": "x"}},
               {"update": "people", "id": 999, "values": {"name": "y"}}], db=world)
    assert [r["name"] for r in rows(world, "SELECT name FROM people")] == [
        "root", "mid", "other 1"]


def test_unknown_reference_is_named() -> None:
    with pytest.raises(BadReference, match=r"\$nobody\.id"):
        apply([{"insert": "people", "values": {"boss_id": "$nobody.id"}}])


def test_rows_other_apps_bound_are_referred_to_with_three_parts() -> None:
    bound = apply([{"bind": "p", "insert": "people",
                    "values": {"name": "$checkout.order.number", "boss_id": "$checkout.order.id"}},
                   {"update": "people", "id": "$p.id", "values": {"seen_at": "$p.name"}}],
                  others=OTHERS)
    assert (bound["p"]["name"], bound["p"]["boss_id"]) == ("A-10423", 3)
    with pytest.raises(BadReference, match=r"no app 'tracker' .*\(apps: checkout\)"):
        apply([{"insert": "people", "values": {"name": "$tracker.bug.id"}}], others=OTHERS)


def test_a_factory_fills_the_row_and_the_overrides_win() -> None:
    bound = apply([{"bind": "a", "factory": "person", "boss": True},
                   {"bind": "b", "factory": "person", "name": "$checkout.order.number",
                    "seen_at": "@now"}], others=OTHERS)
    new = identity(1).person(WORLD_PEOPLE)
    assert (bound["a"]["name"], bound["a"]["email"], bound["a"]["boss_id"]) == (
        new.name, new.email, 1)
    # the next new person (the first is taken), with the overrides, resolved
    assert bound["b"]["email"] == identity(1).person(WORLD_PEOPLE + 1).email
    assert (bound["b"]["name"], bound["b"]["seen_at"]) == ("A-10423", "2025-06-16T09:00:00Z")


def test_factories_are_deterministic_per_seed_setup_and_op() -> None:
    ops = [{"bind": "a", "factory": "person"}, {"bind": "b", "factory": "person"}]
    first, again, other_seed = apply(ops), apply(ops), apply(ops, seed=2)
    assert first == again
    assert first["a"]["email"] != other_seed["a"]["email"]
    # an op's stream is its own: another setup draws other values at the same index
    changed = apply([*ops, {"insert": "people", "values": {"name": "z"}}])
    assert changed["a"]["email"] == first["a"]["email"]
    assert changed["a"]["seen_at"] != first["a"]["seen_at"]


def test_a_factory_refusing_its_input_fails_the_setup() -> None:
    with pytest.raises(InvalidRequest, match="factory person: boss is true or false") as refused:
        apply([{"factory": "person", "boss": "maybe"}])
    assert refused.value.code == "setup_failed"


@pytest.mark.parametrize(("op", "field"), [
    ({"insert": "nobody", "values": {"name": "x"}}, "ops.0.insert"),
    ({"insert": "people", "values": {"no_such_column": 1}}, "ops.0.values.no_such_column"),
    ({"select": "people", "where": {"secret": 1}, "bind": "x"}, "ops.0.where.secret"),
    ({"select": "people", "order_by": "-nope", "bind": "x"}, "ops.0.order_by.nope"),
    ({"insert": "sqlite_master", "values": {"name": "x"}}, "ops.0.insert"),
    ({"factory": "robot"}, "ops.0.factory"),
    ({"factory": "person", "salary": 1}, "ops.0.values.salary"),  # checked before it runs
])
def test_only_the_apps_tables_columns_and_factories(op: dict[str, object], field: str) -> None:
    world = db()
    with pytest.raises(InvalidRequest) as refused:
        apply([{"insert": "people", "values": {"name": "first"}}, op], db=world)
    assert refused.value.field == field.replace("ops.0", "ops.1")
    assert len(rows(world, "SELECT * FROM people")) == 3


@pytest.mark.parametrize("op", [
    {"sql": "ATTACH DATABASE '/tmp/x' AS x"},                       # no SQL operation at all
    {"select": "SELECT * FROM people", "bind": "x"},                # a table name, not SQL
    {"insert": "_changes", "values": {"tbl": "x"}},                 # bookkeeping tables
    {"update": "people", "id": "1; DROP TABLE people", "values": {"name": "x"}},
    {"insert": "people", "values": {"name; DROP TABLE people": "x"}},
    {"insert": "people", "values": {"boss_id": 2**63}},             # would overflow SQLite
    {"factory": "person; DROP TABLE people"},
    {"factory": "person", "name = 'x' --": "x"},                    # flat overrides: columns
    {"factory": "person", "name": "x", "values": {"name": "y"}},    # given twice
])
def test_sql_cannot_be_expressed(op: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        parse_ops([op])


def test_a_factory_op_parses_flat_and_round_trips() -> None:
    [op] = parse_ops([{"bind": "c", "factory": "person", "boss": True, "seen_at": "@now"}])
    assert op.model_dump() == {"op": "factory", "factory": "person", "bind": "c",
                               "values": {"boss": True, "seen_at": "@now"}}
    assert parse_ops([op.model_dump()]) == [op]
