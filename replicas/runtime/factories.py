"""Row factories: a realistic row on demand, for task setup.

    {factory: customer, bind: vip, tier: gold}
    {factory: order, bind: order, customer_id: $vip.id, status: returned, placed_at: "@now-9d"}

Each app names its factories in its spec (``SPEC.factories``). A :class:`Factory` has a
``table`` (known without running it, so an op's overrides are checked against that table's
columns before anything runs), the ``options`` it takes besides those columns, and
``build``, which fills every column the op does not override with seeded, realistic values;
the runtime inserts the row (the overrides win) and binds it, then calls ``after`` for the
rows that come with it (an order's charge).

Deterministic: ``ctx.rng`` is seeded from (world seed, the setup's digest, the op's index),
never from global randomness; new people, companies and order numbers come from the seed's
identity (:mod:`.identity`) past every world's share, skipping those the database has. New
people (``ctx.new_people()``) are drawn per (seed, setup, op): two tasks on one seed meet
different people, and an op's people over any six consecutive seeds speak every language.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from . import db as sql
from .identity import Identity, Person, identity

T = TypeVar("T")


# The largest gap drawn between a table's last id and a row a task's setup inserts.
ID_GAP = 40


def gapped_id(db: sqlite3.Connection, table: str, rng: random.Random) -> int:
    """An id past ``table``'s last by a gap drawn from ``rng``: ids are never contiguous in
    a real system, and a task's rows must not sit at the same ids in every instance."""
    last = db.execute(f"SELECT coalesce(max(id), 0) AS n FROM {table}").fetchone()
    return int(last["n"]) + 1 + rng.randint(0, ID_GAP)


@dataclass(frozen=True)
class FactoryContext:
    """What a factory builds with: the world being set up and its own random stream."""

    db: sqlite3.Connection
    rng: random.Random
    now: datetime
    identity: Identity
    # What this op's new people are drawn by (the setup's digest and the op's index).
    key: str = ""

    @classmethod
    def for_op(cls, db: sqlite3.Connection, *, seed: int, digest: str, index: int,
               now: datetime) -> FactoryContext:
        """The context of op ``index`` of the ops whose digest is ``digest``."""
        return cls(db=db, rng=random.Random(f"factory:{seed}:{digest}:{index}"), now=now,
                   identity=identity(seed), key=f"{digest}:{index}")

    def new_people(self, currency: str | None = None) -> Iterator[Person]:
        """This op's new people (paying in ``currency`` if given): see
        :meth:`.identity.Identity.people_for`; take the first unused with :meth:`unused`."""
        return self.identity.people_for(self.key, currency)

    def insert(self, table: str, values: dict[str, Any]) -> int:
        """Insert a row a factory makes besides its own (a customer's account, an order's
        items), at a gapped id as the setup's rows are; its id."""
        return sql.insert(self.db, table, {"id": gapped_id(self.db, table, self.rng), **values})

    def ago(self, days: float = 0.0, hours: float = 0.0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def row(self, table: str, row_id: Any) -> dict[str, Any]:
        """The row ``row_id`` of ``table``; ValueError (the setup fails, naming it) if none."""
        row: dict[str, Any] | None = self.db.execute(
            f"SELECT * FROM {table} WHERE id = ?", (row_id,)).fetchone()
        if row is None:
            raise ValueError(f"no {table} row {row_id}")
        return row

    def pick(self, table: str, where: str = "1", params: tuple[Any, ...] = ()) -> Any:
        """The id of a random row of ``table`` matching ``where`` (SQL in code), or None."""
        ids = [row["id"] for row in self.db.execute(
            f"SELECT id FROM {table} WHERE {where} ORDER BY id", params)]
        return self.rng.choice(ids) if ids else None

    def unused(self, candidates: Iterator[T], table: str, column: str,
               key: Callable[[T], Any]) -> T:
        """The first candidate whose ``key`` no row of ``table`` has in ``column``."""
        for candidate in candidates:
            if self.db.execute(f"SELECT 1 FROM {table} WHERE {column} = ? LIMIT 1",
                               (key(candidate),)).fetchone() is None:
                return candidate
        raise AssertionError("identity streams are endless")


class Factory:
    """One kind of row an app can make on demand (subclass it; see the module docstring)."""

    table: str
    # Keys a factory op may carry besides the table's columns (e.g. an order's ``charge``).
    options: frozenset[str] = frozenset()

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> dict[str, Any]:
        """Values for the new row's columns. ``given`` holds the op's overrides (resolved;
        they replace what this returns) and options: build around them (a ticket for a
        given requester gets that requester's organization)."""
        raise NotImplementedError

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        """Write the rows that come with ``row`` (as inserted), if any."""
