"""The seeded helpdesk world: big enough, and carrying its documented mess (determinism,
for every app: tests/replicas/test_contract.py; its orders agreeing with the checkout's:
tests/replicas/test_one_world.py)."""

from __future__ import annotations

import re
import sqlite3

import pytest

from replicas.helpdesk import seed as seed_module
from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import connect_memory

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def build(seed: int) -> sqlite3.Connection:
    conn = connect_memory()
    seed_module.seed(conn, seed, WORLD_START)
    return conn


@pytest.fixture(scope="module")
def world() -> sqlite3.Connection:
    return build(1)


def count(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()["n"])


def test_minimum_counts(world: sqlite3.Connection) -> None:
    minimums = {
        "customers": 200,
        "tickets": 500,
        "comments": 300,
        "agents": 20,
        "groups": 4,
        "articles": 10,
        "macros": 5,
    }
    for table, minimum in minimums.items():
        assert count(world, f"SELECT count(*) AS n FROM {table}") >= minimum, table
    assert count(world, "SELECT count(*) AS n FROM agents WHERE role = 'manager'") >= 2
    assert count(world, "SELECT count(*) AS n FROM tickets WHERE order_number IS NOT NULL") >= 200


def test_canonical_timestamps_are_iso(world: sqlite3.Connection) -> None:
    for table, column in (
        ("tickets", "created_at"),
        ("tickets", "updated_at"),
        ("customers", "created_at"),
        ("comments", "created_at"),
    ):
        for row in world.execute(f"SELECT {column} AS v FROM {table}"):
            assert ISO.match(row["v"]), (table, column, row["v"])
    latest = world.execute("SELECT max(created_at) AS m FROM tickets").fetchone()["m"]
    assert latest <= "2025-06-16T09:00:00Z"


def test_the_mess_is_there(world: sqlite3.Connection) -> None:
    # Customers write in about the orders the checkout charged twice.
    assert count(world, "SELECT count(*) AS n FROM tickets WHERE tags LIKE '%double_charge%'") >= 3
    legacy = [
        r["legacy_created"]
        for r in world.execute(
            "SELECT legacy_created FROM customers WHERE legacy_created IS NOT NULL"
        )
    ]
    assert len(legacy) >= 20 and not all(ISO.match(v) for v in legacy)
    assert len({re.sub(r"\d", "9", v) for v in legacy}) >= 3  # several formats
    assert (
        count(
            world,
            "SELECT count(*) AS n FROM customers WHERE notes LIKE '%Prefers contact%'"
            " OR notes LIKE '%for callbacks%'",
        )
        >= 5
    )
    assert (
        count(
            world,
            """SELECT count(*) AS n FROM tickets
        WHERE status IN ('new','open') AND sla_due_at < '2025-06-16T09:00:00Z'""",
        )
        >= 10
    )
    assert (
        count(
            world,
            "SELECT count(*) AS n FROM tickets WHERE subject GLOB '*[ぁ-ヿ]*' "
            "OR subject LIKE '%Bestellung%' OR subject LIKE '%commande%'",
        )
        >= 5
    )
    tags = {
        t["value"]
        for t in world.execute("SELECT DISTINCT j.value FROM tickets, json_each(tickets.tags) j")
    }
    assert {"refund", "vip"} <= tags and tags & {"Refund", "REFUND", "VIP", "Vip"}
    assert count(world, "SELECT count(*) AS n FROM customers WHERE id > 292") == 8
    bodies = [r["body"] for r in world.execute("SELECT body FROM articles")]
    assert any("30 days" in b for b in bodies) and any("Standard: 14 days" in b for b in bodies)


def test_native_tickets_and_timelines(world: sqlite3.Connection) -> None:
    # A German customer who writes in German writes the subject and description in German.
    german = world.execute(
        """SELECT t.subject, t.description FROM tickets t JOIN customers c
        ON c.id = t.requester_id WHERE c.locale = 'de-DE' AND t.legacy_id IS NULL
        AND (t.subject LIKE '%Bestellung%' OR t.subject LIKE '%Rückerstattung%'
             OR t.subject LIKE '%stornieren%')"""
    ).fetchall()
    assert german
    markers = (" ich ", " Sie ", "Bestellung", " und ", " mein", "Hallo", "Guten Tag")
    for row in german:
        assert any(m in f" {row['description']} " for m in markers), row["description"]
    # Comments: the description at creation, then strictly in time order, up to updated_at;
    # the first agent reply before sla_due_at unless the ticket is a deliberately breached one.
    now = "2025-06-16T09:00:00Z"
    comments: dict[int, list[sqlite3.Row]] = {}
    for c in world.execute("SELECT * FROM comments ORDER BY id"):
        comments.setdefault(c["ticket_id"], []).append(c)
    for t in world.execute("SELECT * FROM tickets"):
        thread = comments[t["id"]]
        assert thread[0]["created_at"] == t["created_at"], t["id"]
        assert thread[0]["body"] == t["description"], t["id"]
        times = [c["created_at"] for c in thread]
        assert all(a < b for a, b in zip(times, times[1:], strict=False)), t["id"]
        assert times[-1] <= t["updated_at"] <= now, t["id"]
        if t["solved_at"]:
            assert times[-1] < t["solved_at"] <= t["updated_at"], t["id"]
        breached = t["status"] in ("new", "open") and t["sla_due_at"] < now
        agent = [c for c in thread if c["author_type"] == "agent" and c["public"]]
        if t["sla_due_at"] and agent and not breached:
            assert agent[0]["created_at"] < t["sla_due_at"], t["id"]
        public = [c for c in thread if c["public"]]
        if t["status"] == "pending":
            assert public[-1]["author_type"] == "agent", t["id"]
        if t["status"] == "open":
            assert public[-1]["author_type"] == "customer", t["id"]
