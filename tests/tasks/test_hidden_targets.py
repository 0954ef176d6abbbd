"""A task's rows sit among the world's (issue 24): the world goes on around a task's setup
(other people's tickets, orders and issues, later in ids, numbers, keys and times), so no
"newest record" or "contiguous block of keys" policy finds what a verifier judges; each task
draws its own customers, and they speak every language of the world over ten seeds.

Worlds are prepared as an episode's are (``SnapshotCache.prepared``, app by app), without
serving them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replicas.catalog import spec
from replicas.runtime.identity import data
from replicas.runtime.snapshots import SnapshotCache, load
from tests.tasks.test_every_task import GATE_SEEDS
from tests.tiers import tiered
from workgym.tasks import Task, catalogue
from workgym_core.rowops import FactoryRow, InsertRow, parse_ops, table_of

Prepare = Callable[[Task, int], dict[str, tuple[dict[str, Any], Any]]]
# A table's creation time, and the numbers people sort it by (orders, issues).
TIME_COLUMNS = ("created_at", "created", "placed_at")
NUMBERED = ("number", "key")


@pytest.fixture(scope="module")
def prepare(tmp_path_factory: pytest.TempPathFactory) -> Prepare:
    """Factory: (task, seed) -> app -> (the rows its setup bound, its initial database)."""
    data_dir: Path = tmp_path_factory.mktemp("hidden-targets")
    caches: dict[str, SnapshotCache] = {}

    def prepared(task: Task, seed: int) -> dict[str, tuple[dict[str, Any], Any]]:
        out: dict[str, tuple[dict[str, Any], Any]] = {}
        for app in task.apps:
            cache = caches.setdefault(app, SnapshotCache(spec(app), data_dir, 256))
            made = cache.prepared(seed, task.setup_of(app),
                                  {a: bound for a, (bound, _) in out.items()})
            out[app] = (made.vars, load(made.data))
        return out

    return prepared


def _activity_tables(app: str) -> set[str]:
    """The tables the app's world goes on in (what its activity inserts)."""
    found = spec(app)
    return {table for op in parse_ops(list(found.activity))
            if isinstance(op, InsertRow | FactoryRow)
            and (table := table_of(op, found.factories)) is not None}


def _targets(task: Task) -> list[tuple[str, str, str]]:
    """(app, bound name, table) of the rows the task's setup inserts that its verifier
    judges (every assertion but the collateral check names them by reference)."""
    inserted = {(app, op.bind): table_of(op, spec(app).factories)
                for app in task.apps for op in parse_ops(task.setup_of(app))
                if op.bind is not None and isinstance(op, InsertRow | FactoryRow)}
    named: set[tuple[str, str]] = set()
    for assertion in task.verifier.root:
        if assertion.check == "only_changes":
            continue
        text = str(assertion.model_dump())
        own = assertion.app or task.apps[0]
        for first, second in re.findall(r"\$([A-Za-z_]\w*)\.([A-Za-z_]\w*)", text):
            named.add((first, second) if first in task.apps else (own, first))
    return sorted((app, name, table) for (app, name), table in inserted.items()
                  if (app, name) in named and table is not None
                  and table in _activity_tables(app))


def _number(value: str) -> tuple[str, int]:
    """'A-13006' -> ('A', 13006): numbers compare within their prefix (a project's key,
    the shop's orders; its legacy ones are another series)."""
    prefix, _, number = value.rpartition("-")
    return prefix, int(number)


def _hidden(db: Any, table: str, rows: list[dict[str, Any]]) -> list[str]:
    """What gives the target ``rows`` of ``table`` away: newest, highest, one block."""
    found = []
    columns = [c["name"] for c in db.execute(f"PRAGMA table_info({table})")]
    ids = [row["id"] for row in rows]
    if max(ids) == db.execute(f"SELECT max(id) AS n FROM {table}").fetchone()["n"]:
        found.append(f"{table} {max(ids)} is the newest by id")
    when = next(c for c in TIME_COLUMNS if c in columns)
    newest = db.execute(f"SELECT max({when}) AS t FROM {table}").fetchone()["t"]
    found += [f"{table} {row['id']} is the newest by {when}" for row in rows
              if row[when] == newest]
    for column in (c for c in NUMBERED if c in columns):
        scope = "project_id" if "project_id" in columns else None
        for row in rows:
            where = f" WHERE {scope} = {int(row[scope])}" if scope else ""
            prefix, number = _number(row[column])
            top = max(n for p, n in (_number(r[column]) for r in db.execute(
                f"SELECT {column} FROM {table}{where}") if r[column]) if p == prefix)
            if number == top:
                found.append(f"{table} {row[column]} is the highest {column}")
    if len(rows) > 1:
        between = db.execute(f"SELECT count(*) AS n FROM {table} WHERE id > ? AND id < ? AND "
                             f"id NOT IN ({','.join('?' * len(ids))})",
                             (min(ids), max(ids), *ids)).fetchone()["n"]
        if not between:
            found.append(f"{table} {sorted(ids)} are one block: no other row among them")
    return found


TARGETED = [task.id for task in catalogue() if _targets(task)]


@pytest.mark.parametrize("task_id", tiered(TARGETED))
def test_the_verifiers_records_are_neither_the_newest_nor_the_highest_nor_a_block(
        prepare: Prepare, task_id: str) -> None:
    task = catalogue().get(task_id)
    found = []
    for seed in GATE_SEEDS:
        worlds = prepare(task, seed)
        by_table: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for app, name, table in _targets(task):
            bound, _ = worlds[app]
            if name in bound:  # not a row a `when` skipped on this seed
                by_table.setdefault((app, table), []).append(bound[name])
        for (app, table), rows in by_table.items():
            _, db = worlds[app]
            found += [f"seed {seed}, {app}: {what}" for what in _hidden(db, table, rows)]
    assert not found, "\n".join(found)


def _customers(task: Task, seed: int, prepare: Prepare) -> list[tuple[str, dict[str, Any]]]:
    """The new people the task's setup makes customers of (by the apps' customer and person
    factories; not another app's customer by email; not one a `when` skipped), in setup
    order, with their app."""
    worlds = prepare(task, seed)
    return [(app, worlds[app][0][op.bind]) for app in task.apps
            for op in parse_ops(task.setup_of(app))
            if isinstance(op, FactoryRow) and op.factory in ("customer", "person")
            and op.bind in worlds[app][0] and "email" not in op.values]


WITH_CUSTOMERS = [task.id for task in catalogue() if any(
    isinstance(op, FactoryRow) and op.factory in ("customer", "person")
    and "email" not in op.values for app in task.apps for op in parse_ops(task.setup_of(app)))]


@pytest.mark.parametrize("seed", GATE_SEEDS)
def test_two_tasks_on_one_seed_have_different_customers(prepare: Prepare, seed: int) -> None:
    """Each task draws its own people from the seed: across the catalogue, a task's first
    customer is another task's only by the birthday chance of drawing from a few thousand
    people (a person is never the customer of three tasks, and of two rarely)."""
    made = {task_id: _customers(catalogue().get(task_id), seed, prepare)[0]
            for task_id in WITH_CUSTOMERS}
    first = {task_id: row["email"] for task_id, (_, row) in made.items()}
    # Twins, whose setups are the same in the app that makes the customer, share its world
    # (a generated family's variants of one record: the instruction names what differs).
    setup = {task_id: json.dumps(catalogue().get(task_id).setup_of(app), sort_keys=True,
                                 default=str) for task_id, (app, _) in made.items()}
    shared = {email: [t for t, e in first.items() if e == email]
              for email in set(first.values())}
    shared = {email: tasks for email, tasks in shared.items() if len(tasks) > 1}
    setups = {email: {setup[t] for t in tasks} for email, tasks in shared.items()}
    assert max(map(len, setups.values()), default=1) <= 2, shared
    by_chance = [shared[email] for email, distinct in setups.items() if len(distinct) > 1]
    assert len(by_chance) <= max(1, len(set(setup.values())) // 30), by_chance
    pairs = [("helpdesk/refund-standard", "checkout/refund-one-item"),
             ("helpdesk/refund-standard", "helpdesk/duplicate-charge"),
             ("checkout/refund-duplicate-charge", "checkout/return-with-restock")]
    for a, b in pairs:
        assert first[a] != first[b], (a, b)


LOCALES = list(data()["locales"])


@pytest.mark.parametrize("task_id", ["helpdesk/refund-standard", "checkout/refund-one-item",
                                     "framework/note-contact-preference"])
def test_a_tasks_customers_over_ten_seeds_speak_every_language(
        prepare: Prepare, task_id: str) -> None:
    task = catalogue().get(task_id)
    locales = set()
    for seed in range(10):
        _, customer = _customers(task, seed, prepare)[0]
        locales.add(customer.get("locale") or customer["preferred_locales"].strip('[]"'))
    assert locales == set(LOCALES)
