"""A toy app for runtime tests (a plain module; tests import what they need): one table,
``people``, a world of three, and a ``person`` factory."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fastapi import APIRouter

from replicas.runtime.clock import iso
from replicas.runtime.db import connect_memory
from replicas.runtime.factories import Factory, FactoryContext
from replicas.runtime.spec import ReplicaSpec


class PersonFactory(Factory):
    """A new person of the identity; option ``boss``: make them report to person 1."""

    table = "people"
    options = frozenset({"boss"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> dict[str, Any]:
        if given.get("boss") not in (None, True, False):
            raise ValueError("boss is true or false")
        person = ctx.unused(ctx.new_people(), "people", "email", lambda p: p.email)
        return {"name": person.name, "email": person.email,
                "boss_id": 1 if given.get("boss") else None,
                "seen_at": iso(ctx.ago(hours=ctx.rng.randint(1, 1000)))}


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    conn.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE, "
                 "boss_id INTEGER, seen_at TEXT)")
    conn.executemany("INSERT INTO people (name, boss_id) VALUES (?, ?)",
                     [("root", None), ("mid", 1), (f"other {seed}", 1)])


def db() -> sqlite3.Connection:
    """The toy world of seed 1 (with a bookkeeping table, as snapshots have)."""
    conn = connect_memory()
    seed(conn, 1, datetime(2025, 1, 1))
    conn.execute("CREATE TABLE _changes (seq INTEGER PRIMARY KEY, tbl TEXT)")
    return conn


FACTORIES = {"person": PersonFactory()}

SPEC = ReplicaSpec(
    name="toy", title="Toy", description="A toy app.", data_version="1", router=APIRouter(),
    generator=seed, probe={"update": "people", "id": 1, "values": {"name": "probed"}},
    factories=FACTORIES,
)
