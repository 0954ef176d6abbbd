"""Row operations applied to a world: a task's setup, and other actors' changes (the
``state_drift`` fault), binding rows to names.

The operations are :mod:`workgym_core.rowops` (declarative, never SQL): checked against
the database's own tables and columns (and the app's factories) first, then applied in one
transaction. Values may refer to rows bound earlier in the ops, by the task's setup or, with
three parts, by another app's setup earlier in the episode (``others``); see
:mod:`workgym_core.refs`. An update's values may name the row it updates as it is then,
``$this.field`` / ``{{ this.field }}``. An op with a ``when`` runs only where its condition
holds. Bound rows are returned to the gym API for verifiers; agents never see them.

The world goes on after a task's setup: given the app's ``activity`` (row ops of one piece
of other people's activity, ``SPEC.activity``), a few pieces follow the setup's last insert
(or precede a setup that inserts nothing: what it selects, e.g. the newest issue before the
episode, sees them), and one follows each insert that another insert into the same table
follows, so that the case's rows are neither the newest nor a contiguous block. Each piece is bound
``$activity.at``: a time after the newest the setup wrote so far and before now (``unix``:
the same in Unix seconds), and ``n``: its place among the pieces that go on together (the
first, ``n == 1``, also writes what a task's record must not be the newest of: a dispute,
a campaign's coupon, an account action); its draws are the seed's and the setup's, and its
rows are bound to nothing the task sees.
"""

from __future__ import annotations

import hashlib
import random
import re
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any

import orjson

from workgym_core.errors import InvalidRequest
from workgym_core.exprs import evaluate
from workgym_core.refs import Others, resolve
from workgym_core.rowops import (
    Between,
    Choice,
    Cycle,
    DrawRow,
    FactoryRow,
    InsertRow,
    Op,
    PickRow,
    SelectRow,
    UpdateRow,
    check_schema,
    parse_ops,
    table_of,
)
from workgym_core.templates import render

from . import db as sql
from .clock import ISO_PATTERN, iso, parse_iso, parse_time_expr
from .factories import Factory, FactoryContext, gapped_id

__all__ = ["apply_ops", "digest", "parse_ops", "schema"]

# How many pieces of the world's activity follow a setup's last insert (drawn); one
# follows each insert that another insert into the same table follows.
LATER = (2, 3)
# Times of the world's activity stay this far from the setup's newest and from now.
MARGIN = timedelta(minutes=2)
_ISO = re.compile(ISO_PATTERN)
_UNIX_SPAN = timedelta(days=20 * 365)


def schema(db: sqlite3.Connection) -> dict[str, list[str]]:
    """The app's own tables and their columns (bookkeeping ``_`` tables excluded)."""
    tables = [row["name"] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' "
        "ESCAPE '\\' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {table: [col["name"] for col in db.execute(f"PRAGMA table_info({table})")]
            for table in tables}


def digest(data: Any) -> str:
    """SHA-256 of ``data`` as canonical JSON (keys sorted)."""
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()


class _Run:
    """One application of ops: where references resolve, the clock, and factories' seeds."""

    def __init__(self, db: sqlite3.Connection, ops: Sequence[Op], *, now: datetime,
                 seed: int, bound: dict[str, Any], others: Others,
                 factories: Mapping[str, Factory], of: str | None = None) -> None:
        self.db, self.ops, self.now, self.seed = db, ops, now, seed
        self.bound, self.others, self.factories = bound, others, factories
        self.of = of

    def expand(self, value: Any, this: dict[str, Any] | None = None) -> Any:
        """References resolved, ``{{ ... }}`` texts rendered, ``@now-3d`` times on the clock
        (``this``: the row an update changes, as it is now, named ``this``)."""
        bound = self.bound if this is None else {**self.bound, "this": this}
        value = resolve(value, bound, self.others)
        if isinstance(value, str):
            value = render(value, bound, self.others)
            moment = parse_time_expr(value, self.now)
            return value if moment is None else moment
        if isinstance(value, dict):
            return {k: self.expand(v, this) for k, v in value.items()}
        return value

    def holds(self, condition: str, where: str) -> bool:
        """Whether an op's ``when`` holds over the rows bound so far."""
        try:
            return bool(evaluate(condition, self.bound, self.others))
        except (ValueError, ArithmeticError, TypeError) as exc:
            raise InvalidRequest(f"{where}: when {condition!r}: {exc}", code="setup_failed",
                                 field="when", rule="condition") from exc

    def rng(self, kind: str, index: int) -> random.Random:
        """The op's own random stream: (kind, seed, the ops' digest, its index)."""
        return random.Random(f"{kind}:{self.seed}:{self.digest}:{index}")

    def draw(self, index: int, op: DrawRow) -> dict[str, Any]:
        rng, drawn = self.rng("draw", index), {}
        for field, how in op.draw.items():
            if isinstance(how, Choice):
                drawn[field] = self.expand(rng.choice(how.choice))
            elif isinstance(how, Between):
                low, high = how.between
                drawn[field] = low + how.step * rng.randint(0, (high - low) // how.step)
            elif isinstance(how, Cycle):  # in turn by seed, from a start the task draws
                start = int(digest([self.digest, index, field])[:8], 16)
                drawn[field] = self.expand(how.cycle[(self.seed + start) % len(how.cycle)])
            else:  # expressions see the fields drawn before them, as $<bind>.<field>
                try:
                    drawn[field] = evaluate(how.expr, {**self.bound, op.bind: drawn},
                                            self.others)
                except (ValueError, ArithmeticError) as exc:
                    raise InvalidRequest(f"draw {op.bind}.{field}: {exc}", code="setup_failed",
                                         field="draw", rule="expression") from exc
        return drawn

    def pick(self, index: int, op: PickRow) -> dict[str, Any]:
        found = self.expand(op.pick)
        if isinstance(found, str):
            found = orjson.loads(found)
        if not isinstance(found, list) or not found:
            raise InvalidRequest(f"pick {op.pick}: not a non-empty list", code="setup_failed",
                                 field="pick", rule="list")
        element = self.rng("pick", index).choice(found)
        return element if isinstance(element, dict) else {"value": element}

    def insert(self, index: int, table: str, values: dict[str, Any]) -> int:
        """Insert a row of the ops; its id (unless given) past the table's last by a gap
        drawn from the seed: ids are never contiguous in a real system, and a task's rows
        must not sit at the same ids in every instance."""
        if "id" not in values:
            values = {"id": gapped_id(self.db, table, self.rng("id", index)), **values}
        return sql.insert(self.db, table, values)

    def apply(self, index: int, op: Op) -> dict[str, Any]:
        if isinstance(op, InsertRow):
            return _row(self.db, op.insert, self.insert(index, op.insert, self.expand(op.values)))
        if isinstance(op, UpdateRow):
            row_id = self.expand(op.id)
            if not isinstance(row_id, int) or isinstance(row_id, bool):
                raise InvalidRequest(f"update {op.update}: id {op.id!r} is not an integer",
                                     code="setup_failed", field="id", rule="integer")
            # Values see the row as it is when the update applies ($this.field): another
            # actor's change (state_drift) keeps what the agent changed before it.
            sql.update(self.db, op.update, row_id,
                       self.expand(op.values, this=_row(self.db, op.update, row_id)))
            return _row(self.db, op.update, row_id)
        if isinstance(op, FactoryRow):
            return self.make(index, op)
        if isinstance(op, DrawRow):
            return self.draw(index, op)
        if isinstance(op, PickRow):
            return self.pick(index, op)
        row = _select(self.db, op, self.expand(op.where), self.expand(op.exclude),
                      self.rng("select", index))
        if row is None:
            raise InvalidRequest(f"select {op.select} for '{op.bind}' matched no row",
                                 code="setup_failed", field="select",
                                 rule="select_matches_a_row")
        return row

    def make(self, index: int, op: FactoryRow) -> dict[str, Any]:
        """A row from the op's factory, the overrides winning; then the rows that come
        with it."""
        factory = self.factories[op.factory]
        given = self.expand(op.values)
        ctx = FactoryContext.for_op(self.db, seed=self.seed, digest=self.digest, index=index,
                                    now=self.now)
        try:
            values = factory.build(ctx, given)
        except ValueError as exc:  # an option or override the factory cannot build with
            raise InvalidRequest(f"factory {op.factory}: {exc}", code="setup_failed",
                                 field="values", rule="factory_input") from exc
        values.update((k, v) for k, v in given.items() if k not in factory.options)
        row = _row(self.db, factory.table, self.insert(index, factory.table, values))
        factory.after(ctx, row, given)
        return row

    @cached_property
    def digest(self) -> str:
        """What factories' random streams are seeded from (with the seed and op index): the
        ops' digest, or what a piece of the world's activity is drawn by (``of``)."""
        # An op without a condition digests as before conditions existed: instances stay.
        return self.of or digest([op.model_dump(exclude=None if op.when else {"when"})
                                  for op in self.ops])


def _inserts(op: Op) -> bool:
    return isinstance(op, InsertRow | FactoryRow)


def _newest(row: Mapping[str, Any], now: datetime) -> datetime | None:
    """The latest time ``row`` holds up to ``now``: a value in the one timestamp format, or
    a Unix time (Stripe's ``created``) of the last twenty years."""
    times = [parse_iso(v) for v in row.values() if isinstance(v, str) and _ISO.match(v)]
    times += [datetime.fromtimestamp(v, UTC) for v in row.values()
              if isinstance(v, int) and not isinstance(v, bool)
              and (now - _UNIX_SPAN).timestamp() <= v <= now.timestamp()]
    return max((t for t in times if t <= now), default=None)


class _World:
    """The world going on during and after a setup: pieces of ``activity`` at times after
    the newest the setup wrote so far."""

    def __init__(self, run: _Run, activity: Sequence[Op], field: str) -> None:
        self.run, self.activity, self.field = run, activity, field
        self.rng = run.rng("activity", -1)
        self.newest: datetime | None = None
        self.pieces = 0
        tables = [(i, table_of(op, run.factories)) for i, op in enumerate(run.ops)
                  if _inserts(op)] if activity else []
        self.last = tables[-1][0] if tables else None
        # After an insert into a table another insert into it follows: a piece.
        self.between = {i for n, (i, table) in enumerate(tables)
                        if any(later == table for _, later in tables[n + 1:])}

    def saw(self, row: Mapping[str, Any]) -> None:
        found = _newest(row, self.run.now)
        if found is not None and (self.newest is None or found > self.newest):
            self.newest = found

    def after(self, index: int) -> None:
        """What happens after the setup's op ``index`` (it inserted a row)."""
        if index == self.last:
            self.go_on(self.rng.randint(*LATER))
        elif index in self.between:
            self.go_on(1)

    def go_on(self, pieces: int) -> None:
        now = self.run.now
        end = now - MARGIN
        start = min(end, (self.newest or now - timedelta(days=1)) + MARGIN)
        moments = sorted(start + (end - start) * self.rng.random() for _ in range(pieces))
        for n, at in enumerate(moments, 1):
            self.pieces += 1
            piece = _Run(self.run.db, self.activity, now=now, seed=self.run.seed,
                         bound={"activity": {"at": iso(at), "unix": int(at.timestamp()),
                                             "n": n}}, others={},
                         factories=self.run.factories,
                         of=f"{self.run.digest}:activity:{self.pieces}")
            _apply_all(piece, f"{self.field} activity")


def _apply_all(run: _Run, field: str, world: _World | None = None) -> None:
    """Apply ``run``'s ops in order, binding rows (and letting the world go on)."""
    for i, op in enumerate(run.ops):
        where = f"{field}[{i}] ({op.op} {table_of(op, run.factories)})"
        try:
            if op.when is not None and not run.holds(op.when, where):
                if world is not None and _inserts(op):
                    world.after(i)  # a skipped insert: the world goes on where it would have
                continue
            row = run.apply(i, op)
        except sqlite3.IntegrityError as exc:  # names the constraint, never the SQL
            raise InvalidRequest(f"{where}: {exc}", code="setup_failed",
                                 field=f"{field}.{i}", rule="constraint") from exc
        except (sqlite3.Error, OverflowError) as exc:
            raise InvalidRequest(f"{where} was refused by the database",
                                 code="setup_failed", field=f"{field}.{i}") from exc
        if op.bind is not None:
            run.bound[op.bind] = row
        if world is not None and _inserts(op):
            world.saw(row)
            world.after(i)


def _row(db: sqlite3.Connection, table: str, row_id: int) -> dict[str, Any]:
    row = sql.one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    if row is None:
        raise InvalidRequest(f"no {table} row {row_id}", code="setup_failed", field="id",
                             rule="row_exists")
    return row


def _select(db: sqlite3.Connection, op: SelectRow, values: dict[str, Any],
            excluded: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    # Table and column names were checked against the schema: only values are bound.
    conds = [f"{c} IS ?" for c in values] + [f"{c} IS NOT ?" for c in excluded]
    where = f" WHERE {' AND '.join(conds)}" if conds else ""
    params = (*values.values(), *excluded.values())
    if op.order_by == "random":  # one of the matching rows, drawn from the seed
        ids = [row["id"] for row in db.execute(
            f"SELECT id FROM {op.select}{where} ORDER BY id", params)]
        return sql.one(db, f"SELECT * FROM {op.select} WHERE id = ?",
                       (rng.choice(ids),)) if ids else None
    order = op.order_by.lstrip("-") + (" DESC" if op.order_by.startswith("-") else "")
    return sql.one(db, f"SELECT * FROM {op.select}{where} ORDER BY {order} LIMIT 1", params)


def apply_ops(db: sqlite3.Connection, ops: Sequence[Op], now: datetime, *, seed: int,
              bound: Mapping[str, Any] | None = None, others: Others | None = None,
              factories: Mapping[str, Factory] | None = None,
              field: str = "ops", activity: Sequence[Op] = ()) -> dict[str, Any]:
    """Apply ``ops`` to the world of ``seed`` in one transaction (all or nothing), with
    ``bound`` rows (this app's) and ``others`` (other apps', by app) to refer to and the
    app's ``factories``; return the rows bound by name (those given plus the new ones).
    Given the app's ``activity`` (a task's setup), the world goes on during and after the
    ops (the module's docstring)."""
    factories = factories or {}
    check_schema(ops, schema(db), field, factories)
    check_schema(activity, schema(db), "activity", factories)
    run = _Run(db, ops, now=now, seed=seed, bound=dict(bound or {}), others=others or {},
               factories=factories)
    world = _World(run, activity, field)
    db.execute("BEGIN")
    try:
        if activity and world.last is None:  # the case is the world's: it went on before it
            world.go_on(world.rng.randint(*LATER))
        _apply_all(run, field, world)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return run.bound
