"""Row operations bind rows, resolve references (this app's and other apps') and time
expressions, make rows with the app's factories, are atomic, and touch only the app's own
tables, columns and factories: no SQL, no bookkeeping tables."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import rows
from replicas.runtime.factories import ID_GAP
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
    new = identity(1).person_with(bound["a"]["email"])  # a new person of the identity's
    assert new not in identity(1).people(WORLD_PEOPLE)
    assert (bound["a"]["name"], bound["a"]["boss_id"]) == (new.name, 1)
    # another new person, with the overrides, resolved
    assert identity(1).person_with(bound["b"]["email"]) not in identity(1).people(WORLD_PEOPLE)
    assert bound["b"]["email"] != bound["a"]["email"]
    assert (bound["b"]["name"], bound["b"]["seen_at"]) == ("A-10423", "2025-06-16T09:00:00Z")


def test_factories_are_deterministic_per_seed_setup_and_op() -> None:
    ops = [{"bind": "a", "factory": "person"}, {"bind": "b", "factory": "person"}]
    first, again, other_seed = apply(ops), apply(ops), apply(ops, seed=2)
    assert first == again
    assert first["a"]["email"] != other_seed["a"]["email"]
    # an op's stream is its own: another setup draws other values (and people) at the same
    # index
    changed = apply([*ops, {"insert": "people", "values": {"name": "z"}}])
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
                               "values": {"boss": True, "seen_at": "@now"}, "when": None}
    assert parse_ops([op.model_dump()]) == [op]


# --- instances drawn from the seed ------------------------------------------------------

DRAW = {"bind": "d", "draw": {
    "who": {"choice": ["ann", "bob", "cy"]},
    "days": {"between": [10, 40], "step": 5},
    "half": {"expr": "$d.days * 10 // 2"},
}}


def test_draws_are_the_seeds() -> None:
    drawn = [apply([DRAW], seed=seed)["d"] for seed in range(20)]
    assert drawn[3] == apply([DRAW], seed=3)["d"]  # the same seed, the same draw
    assert len({d["who"] for d in drawn}) == 3 and len({d["days"] for d in drawn}) > 3
    assert all(d["days"] in range(10, 41, 5) and d["half"] == d["days"] * 5 for d in drawn)


def test_a_cycle_gives_every_outcome_its_share_of_any_run_of_seeds() -> None:
    """A decision's outcome: any n consecutive seeds draw each of n values once, from a
    start each task (each setup) draws for itself."""
    op = {"bind": "verdict", "draw": {"refund": {"cycle": [1, 0]}}}
    outcomes = [apply([op], seed=seed)["verdict"]["refund"] for seed in range(40, 50)]
    assert all({outcomes[i], outcomes[i + 1]} == {0, 1} for i in range(9))
    # Each setup starts its cycle where it draws: on one seed, tasks differ.
    starts = {apply([{**op, "bind": f"v{i}"}], seed=0)[f"v{i}"]["refund"] for i in range(8)}
    assert starts == {0, 1}
    with pytest.raises(ValidationError):
        parse_ops([{"bind": "v", "draw": {"x": {"cycle": [1]}}}])  # one value is no cycle


def test_an_op_runs_only_when_its_condition_holds() -> None:
    ops = [{"bind": "verdict", "draw": {"refund": {"cycle": [1, 0]}}},
           {"bind": "paid", "insert": "people", "when": "$verdict.refund == 1",
            "values": {"name": "paid", "seen_at": "@now-3d"}}]
    for seed in (1, 2):
        bound = apply(ops, seed=seed)
        assert ("paid" in bound) == (bound["verdict"]["refund"] == 1)
    with pytest.raises(InvalidRequest, match="when") as caught:
        apply([{**ops[1], "when": "$nothing.bound == 1"}])
    assert caught.value.rule == "condition"


@pytest.mark.parametrize("expr", ["__import__('os').getcwd()", "$d.who.upper()", "2 ** 999",
                                  "[x for x in (1,)]"])
def test_expressions_compute_but_never_run_code(expr: str) -> None:
    with pytest.raises(InvalidRequest, match="draw d.x") as caught:
        apply([{"bind": "d", "draw": {"who": {"choice": ["a"]}, "x": {"expr": expr}}}])
    assert caught.value.rule == "expression"


def test_templates_render_in_values_and_times() -> None:
    bound = apply([
        {**DRAW, "draw": {"who": {"choice": ["ann"]}, "days": {"between": [2, 2]}}},
        {"bind": "p", "insert": "people", "values": {
            "name": "{{ d.who | upper }} of {{ d.days }}", "seen_at": "@now-{{ d.days }}d"}},
    ])
    assert bound["p"]["name"] == "ANN of 2"
    assert bound["p"]["seen_at"] == "2025-06-14T09:00:00Z"


def test_select_random_draws_among_the_matches() -> None:
    op = {"bind": "x", "select": "people", "where": {"boss_id": 1}, "order_by": "random"}
    picked = {apply([op], seed=seed)["x"]["name"].split(" ")[0] for seed in range(12)}
    assert picked == {"mid", "other"}


def test_pick_draws_one_element_of_a_json_list() -> None:
    ops: list[dict[str, Any]] = [
        {"bind": "p", "insert": "people",
         "values": {"name": '[{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]'}},
        {"bind": "item", "pick": "$p.name"}]
    assert {apply(ops, seed=seed)["item"]["sku"] for seed in range(12)} == {"A", "B", "C"}
    with pytest.raises(InvalidRequest, match="not a non-empty list"):
        apply([{"bind": "p", "insert": "people", "values": {"name": "[]"}},
               {"bind": "item", "pick": "$p.name"}])


def test_inserted_rows_sit_past_the_world_at_a_seeded_gap() -> None:
    op = {"bind": "p", "insert": "people", "values": {"name": "new"}}
    ids = [apply([op], seed=seed)["p"]["id"] for seed in range(10)]
    assert all(3 < i <= 3 + 1 + ID_GAP for i in ids) and len(set(ids)) > 3
    assert apply([op], seed=4)["p"]["id"] == ids[4]
    given = {"bind": "p", "insert": "people", "values": {"id": 50, "name": "new"}}
    assert apply([given])["p"]["id"] == 50


ACTIVITY = parse_ops([{"factory": "person", "bind": "someone", "seen_at": "$activity.at"}])


def test_the_world_goes_on_between_and_after_the_setups_inserts() -> None:
    """Given the app's activity, pieces of it follow each insert another insert into the
    same table follows, and a few the last insert: later ids, times after the newest the
    setup wrote and before now; bound to nothing."""
    world = db()
    bound = apply([{"bind": "a", "insert": "people", "values": {"name": "a", "seen_at": "@now-3d"}},
                   {"bind": "b", "insert": "people", "values": {"name": "b", "seen_at": "@now-5d"}},
                   {"bind": "boss", "select": "people", "where": {"name": "root"}}],
                  db=world, activity=ACTIVITY)
    assert set(bound) == {"a", "b", "boss"}
    people = rows(world, "SELECT id, name, seen_at FROM people ORDER BY id")
    ids = [p["id"] for p in people]
    a, b = ids.index(bound["a"]["id"]), ids.index(bound["b"]["id"])
    between, after = people[a + 1:b], people[b + 1:]
    assert len(between) == 1 and 2 <= len(after) <= 3
    assert all(bound["a"]["seen_at"] < p["seen_at"] < "2025-06-16T09:00:00Z" for p in between)
    assert all(bound["a"]["seen_at"] < p["seen_at"] < "2025-06-16T09:00:00Z" for p in after)
    again = db()
    apply([{"bind": "a", "insert": "people", "values": {"name": "a", "seen_at": "@now-3d"}},
           {"bind": "b", "insert": "people", "values": {"name": "b", "seen_at": "@now-5d"}},
           {"bind": "boss", "select": "people", "where": {"name": "root"}}],
          db=again, activity=ACTIVITY)
    assert rows(again, "SELECT * FROM people") == rows(world, "SELECT * FROM people")


def test_new_people_are_drawn_per_setup_and_speak_every_language_over_six_seeds() -> None:
    """Two setups on one seed meet different people; one setup's over six seeds, every
    locale of the identity."""
    first = apply([{"bind": "p", "factory": "person"}], seed=3)["p"]
    other = apply([{"bind": "p", "factory": "person"},
                   {"select": "people", "where": {"name": "root"}, "bind": "r"}], seed=3)["p"]
    assert first["email"] != other["email"]
    locales = {identity(seed).person_with(apply([{"bind": "p", "factory": "person"}],
                                                seed=seed)["p"]["email"]).locale
               for seed in range(6)}
    assert locales == {"en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "ja-JP"}


def test_a_setup_that_inserts_nothing_comes_after_the_worlds_activity() -> None:
    """What it selects (the newest row before the episode) sees the pieces."""
    world = db()
    bound = apply([{"bind": "last", "select": "people", "order_by": "-id"}], db=world,
                  activity=ACTIVITY)
    assert bound["last"]["id"] == rows(world, "SELECT max(id) AS n FROM people")[0]["n"]
    assert bound["last"]["name"] not in ("root", "mid", "other 1")
