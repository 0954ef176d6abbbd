"""What an episode's setup gives away, read by the quality gate from the rows the setup bound
and each app's initial state (:class:`World`):

* :func:`extremes`: the task's **targets** (the bound rows its verifier names:
  ``where: {id: $ticket.id}``, ``$order.total``, ``$checkout.charge.stripe_id``) that are the
  newest or the first record of their table (by id, by creation time, by number or key):
  where that holds, "take the newest" finds the target without the skill;
* :func:`answer_key`: what a question task's answer checks (``answer``, ``answer_states``,
  ``answer_matches``) accept, resolved for the instance: two seeds with the same key accept
  the same answers (a question task: :func:`is_question`).

Only records of the world's history are targets a "newest" agent finds: rows of tables with
a creation time (tickets, users, orders, charges, issues ...), not configuration (groups,
projects, sprints), whose order is the product's own.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from replicas.catalog import spec
from workgym_core.rowops import SelectRow, parse_ops, table_of

from .tasks import Task

# The columns a record's age is read from: an agent sorting by one finds the newest.
CREATED = ("created", "created_at", "placed_at")
# Record numbers and keys (A-13006, SHOP-141): ordered by their number within their prefix.
NUMBERED = ("number", "key")
# The checks that judge a final answer.
ANSWER_CHECKS = frozenset({"answer", "answer_states", "answer_matches"})
# A task whose final answer must be a value on every instance (a count, ids, a name, an
# amount: ``answer``; texts it must contain: ``answer_matches``; no ``when``) asks a
# question: its point is the answer. A report ``answer_states`` reads (what the agent did),
# or a value one outcome of a decision gives (a code issued), follows what the state checks
# judge; a constant one is the default-outcome shortcut's to catch.
QUESTION_CHECKS = frozenset({"answer", "answer_matches"})
_NUMBER = re.compile(r"^(.*?)(\d+)$")
_REFERENCE = re.compile(r"^\$([A-Za-z_]\w*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?$")


@dataclass(frozen=True)
class World:
    """One episode's setup as the gate reads it: the rows it bound (app -> name -> row) and
    each app's initial state (a serialized SQLite database)."""

    vars: Mapping[str, Mapping[str, Any]]
    states: Mapping[str, bytes]


@dataclass(frozen=True)
class Target:
    """A bound row the verifier names: its app, its name in the setup, its table."""

    app: str
    name: str
    table: str

    def __str__(self) -> str:
        return f"{self.app}.{self.name} ({self.table})"


def _references(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if _REFERENCE.match(value):
            yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _references(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _references(item)


def _tables(task: Task, app: str) -> dict[str, str]:
    """The app's bound names -> the table of the row each names (draws and picks: none; nor
    a watermark: the table's newest row at setup, selected whatever it is to tell what the
    episode adds after it)."""
    factories = spec(app).factories
    found = {}
    for op in parse_ops(task.setup_of(app)):
        table = table_of(op, factories)
        watermark = (isinstance(op, SelectRow) and op.order_by.startswith("-")
                     and not op.where and not op.exclude)
        if op.bind is not None and table is not None and not watermark:
            found[op.bind] = table
    return found


def targets(task: Task) -> list[Target]:
    """The bound rows the task's verifier names, in the order it names them first."""
    found: dict[Target, None] = {}
    for assertion in task.verifier.root:
        home = assertion.app or task.apps[0]
        for reference in _references(assertion.model_dump(by_alias=True, exclude_unset=True)):
            match = _REFERENCE.match(reference)
            assert match is not None
            first, second, third = match.groups()
            app, name = (home, first) if third is None else (first, second)
            table = _tables(task, app).get(name) if app in task.apps else None
            if table is not None:
                found[Target(app, name, table)] = None
    return list(found)


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]


def _numbered(db: sqlite3.Connection, table: str, column: str, value: str) -> list[str]:
    """Where ``value`` (a record number or key) stands among its table's of the same prefix."""
    match = _NUMBER.match(value)
    if match is None:
        return []
    prefix, number = match.group(1), int(match.group(2))
    numbers = [int(found.group(2)) for (other,) in db.execute(
        f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL')
        if isinstance(other, str) and (found := _NUMBER.match(other)) and found.group(1) == prefix]
    return ([f"highest {column}"] if number >= max(numbers) else []) + \
        ([f"lowest {column}"] if number <= min(numbers) else [])


def _standing(db: sqlite3.Connection, target: Target, row_id: Any) -> list[str]:
    """How the target's row stands out in its table: 'newest id', 'first created_at',
    'highest number' ... (empty when it stands anywhere in between)."""
    columns = _columns(db, target.table)
    if "id" not in columns or not set(CREATED) & set(columns):
        return []  # no record of the world's history: no "newest" to find
    db.row_factory = sqlite3.Row
    row = db.execute(f'SELECT * FROM "{target.table}" WHERE id = ?', (row_id,)).fetchone()
    if row is None:
        return []
    found = []
    for column in ("id", *CREATED):
        if column in columns and row[column] is not None:
            low, high = db.execute(f'SELECT MIN("{column}"), MAX("{column}") FROM '
                                   f'"{target.table}" WHERE "{column}" IS NOT NULL').fetchone()
            found += ([f"newest {column}"] if row[column] == high else []) + \
                ([f"first {column}"] if row[column] == low else [])
    for column in NUMBERED:
        if column in columns and isinstance(row[column], str):
            found += _numbered(db, target.table, column, row[column])
    return found


def extremes(task: Task, world: World) -> dict[Target, list[str]]:
    """Every target of the task that stands out in its table in this episode's initial
    state, and how (``newest id``, ``first created_at``, ``highest number`` ...)."""
    found: dict[Target, list[str]] = {}
    dbs: dict[str, sqlite3.Connection] = {}
    try:
        for target in targets(task):
            row = world.vars.get(target.app, {}).get(target.name)
            if not isinstance(row, Mapping) or "id" not in row:
                continue
            if target.app not in dbs:
                dbs[target.app] = sqlite3.connect(":memory:")
                dbs[target.app].deserialize(world.states[target.app])
            standing = _standing(dbs[target.app], target, row["id"])
            if standing:
                found[target] = standing
    finally:
        for db in dbs.values():
            db.close()
    return found


def is_question(task: Task) -> bool:
    return any(a.check in QUESTION_CHECKS and a.when is None for a in task.verifier.root)


def answer_key(task: Task, vars: Mapping[str, Mapping[str, Any]]) -> str:
    """What the task's question checks that judge this instance (their ``when`` holds)
    accept, resolved for it, as one canonical text."""
    judging = [(a, vars.get(a.app or task.apps[0], {})) for a in task.verifier.root
               if a.check in ANSWER_CHECKS]
    resolved = [a.resolved(own, vars).model_dump(by_alias=True, exclude_unset=True,
                                                 exclude={"name", "description", "when"})
                for a, own in judging if a.applies(own, vars)]
    return orjson.dumps(resolved, option=orjson.OPT_SORT_KEYS).decode()
