"""The seeded helpdesk world: big enough, consistent as Zendesk keeps its data (users and
their identities, memberships, lowercase tags, SLA metric events that follow each ticket's
history), and carrying its documented mess (README.md, "The mess"). Determinism for every
app: tests/replicas/test_contract.py; its orders agreeing with the checkout's:
tests/replicas/test_one_world.py."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter

import orjson
import pytest

from replicas.helpdesk import seed as seed_module
from replicas.helpdesk.rules import sla
from replicas.runtime.clock import WORLD_START, iso
from replicas.runtime.db import connect_memory

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
NOW = iso(WORLD_START)
UNSOLVED = ("new", "open", "pending", "hold")


def build(seed: int) -> sqlite3.Connection:
    conn = connect_memory()
    seed_module.seed(conn, seed, WORLD_START)
    return conn


@pytest.fixture(scope="module")
def world() -> sqlite3.Connection:
    return build(1)


def count(conn: sqlite3.Connection, sql: str, *params: object) -> int:
    return int(conn.execute(sql, params).fetchone()["n"])


def test_minimum_counts(world: sqlite3.Connection) -> None:
    minimums = {
        "users WHERE role = 'end-user'": 200,
        "users WHERE role != 'end-user'": 20,
        "users WHERE role = 'admin'": 2,
        "organizations": 20,
        "groups": 4,
        "tickets": 500,
        "tickets WHERE order_number IS NOT NULL": 200,
        "comments": 1500,
        "satisfaction_ratings": 50,
        "articles": 10,
        "macros": 5,
        "views": 5,
        "triggers": 3,
        "automations": 3,
        "sla_policies": 2,
        "schedules": 2,
        "ticket_fields": 3,
    }
    for table, minimum in minimums.items():
        assert count(world, f"SELECT count(*) AS n FROM {table}") >= minimum, table
    # Every ticket's SLA runs on metric events; the automations have run (as rules).
    assert count(world, "SELECT count(*) AS n FROM tickets WHERE id NOT IN "
                        "(SELECT ticket_id FROM ticket_metric_events)") == 0
    assert count(world, "SELECT count(*) AS n FROM audits WHERE channel = 'rule'") > 0
    assert count(world, "SELECT count(*) AS n FROM job_statuses") == 0


def test_canonical_timestamps_are_iso(world: sqlite3.Connection) -> None:
    for table, columns in (
        ("tickets", ("created_at", "updated_at", "status_updated_at", "solved_at")),
        ("users", ("created_at", "updated_at")),
        ("user_identities", ("created_at",)),
        ("comments", ("created_at",)),
        ("audits", ("created_at",)),
        ("ticket_metric_events", ("time",)),
        ("satisfaction_ratings", ("created_at",)),
    ):
        for column in columns:
            for row in world.execute(f"SELECT {column} AS v FROM {table} "
                                     f"WHERE {column} IS NOT NULL"):
                assert ISO.match(row["v"]), (table, column, row["v"])
    for table in ("tickets", "users", "comments", "audits", "satisfaction_ratings"):
        latest = world.execute(f"SELECT max(created_at) AS m FROM {table}").fetchone()["m"]
        assert latest <= NOW, table


def test_users_and_their_identities_agree(world: sqlite3.Connection) -> None:
    users = {u["id"]: u for u in world.execute("SELECT * FROM users")}
    me = users[1]
    assert (me["name"], me["role"], me["active"], me["default_group_id"]) == (
        "AI Agent", "agent", 1, 1)
    staff = [u for u in users.values() if u["role"] != "end-user"]
    end_users = [u for u in users.values() if u["role"] == "end-user"]
    assert max(u["id"] for u in staff) < min(u["id"] for u in end_users)  # staff first
    assert all(u["tier"] is None and u["default_group_id"] for u in staff)
    assert all(u["tier"] in ("standard", "silver", "gold", "platinum") and
               u["default_group_id"] is None for u in end_users)
    identities = world.execute("SELECT * FROM user_identities ORDER BY id").fetchall()
    assert {i["user_id"] for i in identities} <= set(users)
    # An email address belongs to one user (without case). (Phone numbers may be shared,
    # as Zendesk's shared numbers: near-duplicates have their original's.)
    emails = Counter(i["value"].lower() for i in identities if i["type"] == "email")
    assert [v for v, n in emails.items() if n > 1] == []
    by_user: dict[int, list[sqlite3.Row]] = {}
    for identity in identities:
        by_user.setdefault(identity["user_id"], []).append(identity)
    for user in users.values():
        mine = by_user.get(user["id"], [])
        for kind, column in (("email", "email"), ("phone_number", "phone")):
            primary = [i["value"] for i in mine if i["type"] == kind and i["is_primary"]]
            # Every email (and phone) on a user is their one primary identity of that type.
            assert primary == ([user[column]] if user[column] else []), (user["id"], kind)
    assert all(u["email"] for u in users.values())


def test_memberships_and_assignments(world: sqlite3.Connection) -> None:
    users = {u["id"]: u for u in world.execute("SELECT * FROM users")}
    memberships = world.execute("SELECT * FROM group_memberships").fetchall()
    member: dict[int, set[int]] = {}
    for m in memberships:
        assert users[m["user_id"]]["role"] != "end-user"
        member.setdefault(m["user_id"], set()).add(m["group_id"])
    assert len({(m["user_id"], m["group_id"]) for m in memberships}) == len(memberships)
    defaults = {m["user_id"]: m["group_id"] for m in memberships if m["is_default"]}
    staff = {uid: u["default_group_id"] for uid, u in users.items() if u["role"] != "end-user"}
    assert defaults == staff  # one default membership each: their default group
    assert any(len(groups) > 1 for groups in member.values())  # leads cover Support too
    for t in world.execute("SELECT * FROM tickets WHERE assignee_id IS NOT NULL"):
        assert users[t["assignee_id"]]["role"] != "end-user", t["id"]
        assert t["group_id"] in member[t["assignee_id"]], t["id"]
    for t in world.execute("SELECT * FROM tickets"):
        requester = users[t["requester_id"]]
        assert requester["role"] == "end-user" and t["submitter_id"] == t["requester_id"]
        assert t["organization_id"] == requester["organization_id"], t["id"]
        assert (t["assignee_id"] is not None) or t["status"] in ("new", "open", "pending",
                                                                  "hold"), t["id"]


def test_tags_are_lowercase_and_unique(world: sqlite3.Connection) -> None:
    seen: set[str] = set()
    for t in world.execute("SELECT id, tags FROM tickets"):
        tags = orjson.loads(t["tags"])
        assert tags == [tag.lower() for tag in tags] and len(tags) == len(set(tags)), t["id"]
        assert all(tag and " " not in tag for tag in tags), t["id"]
        seen.update(tags)
    assert {"refund", "vip", "double_charge", "legacy_import"} <= seen


def test_the_mess_is_there(world: sqlite3.Connection) -> None:
    # Customers write in about the orders the checkout charged twice.
    charged = world.execute("SELECT t.status FROM tickets t, json_each(t.tags) j "
                            "WHERE j.value = 'double_charge'").fetchall()
    assert len(charged) >= 3 and {r["status"] for r in charged} <= {"new", "open"}
    # Legacy imports: dates as text in mixed formats; created_at stays ISO.
    legacy = [r["legacy_created"] for r in world.execute(
        "SELECT legacy_created FROM users WHERE legacy_created IS NOT NULL")]
    assert len(legacy) >= 20 and not any(ISO.match(v) for v in legacy)
    assert len({re.sub(r"\d", "9", v) for v in legacy}) >= 3  # several formats
    assert count(world, "SELECT count(*) AS n FROM users WHERE legacy_id LIKE 'DK-%' AND "
                        "notes LIKE 'Imported from Desk.com%'") == len(legacy)
    old = world.execute("SELECT * FROM tickets WHERE legacy_created IS NOT NULL").fetchall()
    assert len(old) == 15 and all(t["status"] == "closed" and "legacy_import" in t["tags"]
                                  for t in old)
    # Stale contact details in notes, contradicting the profile.
    stale = world.execute("SELECT * FROM users WHERE notes LIKE '%for callbacks%' "
                          "OR notes LIKE '%Prefers contact%'").fetchall()
    assert len(stale) >= 5
    for user in stale:
        assert user["email"] not in user["notes"]
        assert not user["phone"] or user["phone"] not in user["notes"]
    # Near-duplicate end users after the identity's people: another's phone and locale under
    # a variant of the name, another email, tier standard.
    last_person = min(u["id"] for u in world.execute(
        "SELECT id FROM users WHERE role = 'end-user'")) + 291
    duplicates = world.execute("SELECT * FROM users WHERE id > ?", (last_person,)).fetchall()
    assert len(duplicates) == 8
    for dup in duplicates:
        assert dup["tier"] == "standard"
        twins = world.execute(
            "SELECT * FROM users WHERE id <= ? AND role = 'end-user' AND locale = ? AND "
            "phone IS ? AND email != ? AND substr(name, -3) = substr(?, -3)",
            (last_person, dup["locale"], dup["phone"], dup["email"], dup["name"])).fetchall()
        assert twins, dup["name"]
    # Conflicting policies: the old refund article and the tiered one; a stale macro.
    bodies = [r["body"] for r in world.execute("SELECT body FROM articles")]
    assert any("30 days" in b for b in bodies) and any("Standard: 14 days" in b for b in bodies)
    macro = world.execute("SELECT * FROM macros WHERE title = 'Refund policy reply'").fetchone()
    assert macro["active"] and "30 days" in macro["actions"]
    assert count(world, "SELECT count(*) AS n FROM macros WHERE NOT active") == 1
    assert count(world, "SELECT count(*) AS n FROM users WHERE role = 'agent' "
                        "AND NOT active") == 2
    # Mixed languages.
    assert count(world, "SELECT count(*) AS n FROM tickets WHERE subject GLOB '*[ぁ-ヿ]*' "
                        "OR subject LIKE '%Bestellung%' OR subject LIKE '%commande%'") >= 5


def test_breached_tickets_are_there(world: sqlite3.Connection) -> None:
    """SLA breaches are metric events: unsolved tickets whose next breach is past."""
    breached = {tid for tid, at in sla.next_breaches(world).items() if at < NOW}
    statuses = Counter(r["status"] for r in world.execute(
        f"SELECT status FROM tickets WHERE id IN ({','.join(map(str, breached))})"))
    assert statuses["new"] + statuses["open"] >= 10
    assert set(statuses) <= {"new", "open", "hold"}  # pending pauses the wait, solved ends it
    # The breach is the metric's own event: recorded ahead, never deleted, not met.
    for tid in list(breached)[:10]:
        events = world.execute("SELECT * FROM ticket_metric_events WHERE ticket_id = ? "
                               "ORDER BY id", (tid,)).fetchall()
        late = [e for e in events if e["type"] == "breach" and not e["deleted"]
                and e["time"] < NOW]
        assert late, tid
        assert any(e["type"] == "apply_sla" and e["metric"] == late[0]["metric"]
                   for e in events), tid


def _threads(world: sqlite3.Connection) -> dict[int, list[sqlite3.Row]]:
    threads: dict[int, list[sqlite3.Row]] = {}
    for c in world.execute("SELECT c.*, u.role FROM comments c JOIN users u "
                           "ON u.id = c.author_id ORDER BY c.id"):
        threads.setdefault(c["ticket_id"], []).append(c)
    return threads


def test_native_tickets_and_timelines(world: sqlite3.Connection) -> None:
    # A German customer who writes in German writes the subject and description in German.
    german = world.execute(
        """SELECT t.subject, t.description FROM tickets t JOIN users u
        ON u.id = t.requester_id WHERE u.locale = 'de-DE' AND t.legacy_id IS NULL
        AND (t.subject LIKE '%Bestellung%' OR t.subject LIKE '%Rückerstattung%'
             OR t.subject LIKE '%stornieren%')"""
    ).fetchall()
    assert german
    markers = (" ich ", " Sie ", "Bestellung", " und ", " mein", "Hallo", "Guten Tag")
    for row in german:
        assert any(m in f" {row['description']} " for m in markers), row["description"]
    # The description at creation by the requester, then strictly in time order, up to
    # updated_at; an open ticket's last public word is the requester's, a pending one's the
    # agent's; internal notes are staff's.
    threads = _threads(world)
    for t in world.execute("SELECT * FROM tickets"):
        thread = threads[t["id"]]
        first = thread[0]
        assert (first["created_at"], first["body"], first["author_id"], first["public"]) == (
            t["created_at"], t["description"], t["requester_id"], 1), t["id"]
        times = [c["created_at"] for c in thread]
        assert all(a < b for a, b in zip(times, times[1:], strict=False)), t["id"]
        assert times[-1] <= t["updated_at"] <= NOW, t["id"]
        assert t["created_at"] <= t["status_updated_at"] <= t["updated_at"], t["id"]
        if t["solved_at"]:
            assert times[-1] < t["solved_at"] <= t["updated_at"], t["id"]
        assert (t["solved_at"] is not None) == (t["status"] in ("solved", "closed")), t["id"]
        assert all(c["role"] != "end-user" for c in thread if not c["public"]), t["id"]
        public = [c for c in thread if c["public"]]
        if t["status"] == "pending":
            assert public[-1]["role"] != "end-user", t["id"]
        if t["status"] == "open":
            assert public[-1]["author_id"] == t["requester_id"], t["id"]
        if t["status"] == "new":
            assert len(thread) == 1, t["id"]


def _first_replies(world: sqlite3.Connection) -> list[sqlite3.Row]:
    """Each ticket's first-reply breach and whether it was met, with the requester's tier."""
    return world.execute(
        """SELECT t.id, u.tier, b.time AS due, b.deleted, f.time AS replied
        FROM tickets t JOIN users u ON u.id = t.requester_id
        JOIN ticket_metric_events b ON b.ticket_id = t.id AND b.metric = 'reply_time'
             AND b.instance_id = 1 AND b.type = 'breach'
        JOIN ticket_metric_events f ON f.ticket_id = t.id AND f.metric = 'reply_time'
             AND f.instance_id = 1 AND f.type = 'fulfill'""").fetchall()


def test_the_sla_follows_each_tickets_history(world: sqlite3.Connection) -> None:
    """Each ticket's first-reply clock starts at its creation and is met by the first
    public agent reply: in time (its breach deleted) unless the reply came late."""
    threads = _threads(world)
    replies = _first_replies(world)
    assert len(replies) >= 300
    for r in replies:
        agent = [c for c in threads[r["id"]] if c["public"] and c["role"] != "end-user"]
        assert agent and r["replied"] == agent[0]["created_at"], r["id"]
        assert bool(r["deleted"]) == (r["replied"] < r["due"]), r["id"]
    for t in world.execute("SELECT * FROM tickets"):
        applied = world.execute("SELECT * FROM ticket_metric_events WHERE ticket_id = ? AND "
                                "type = 'apply_sla' ORDER BY id", (t["id"],)).fetchall()
        assert applied and applied[0]["time"] == t["created_at"], t["id"]
        policy = orjson.loads(applied[0]["sla"])["policy"]["title"]
        tier = world.execute("SELECT tier FROM users WHERE id = ?",
                             (t["requester_id"],)).fetchone()["tier"]
        assert policy == ("Platinum customers" if tier == "platinum" else "Standard"), t["id"]
    # Agents answer within the SLA, except on the deliberately breached (new or open) ones.
    late = [r["id"] for r in replies if not r["deleted"] and r["tier"] != "platinum"]
    statuses = {r["status"] for r in world.execute(
        f"SELECT status FROM tickets WHERE id IN ({','.join(map(str, late)) or '0'})")}
    assert statuses <= {"new", "open"}, late


def test_platinum_first_replies_are_within_their_sla(world: sqlite3.Connection) -> None:
    late = [r["id"] for r in _first_replies(world) if not r["deleted"]
            and r["tier"] == "platinum"]
    statuses = {r["status"] for r in world.execute(
        f"SELECT status FROM tickets WHERE id IN ({','.join(map(str, late)) or '0'})")}
    assert statuses <= {"new", "open"}, late


def test_the_same_seed_is_the_same_world(world: sqlite3.Connection) -> None:
    again, other = build(1), build(2)
    assert again.serialize() == world.serialize()
    people = "SELECT email FROM users WHERE role = 'end-user' ORDER BY id LIMIT 20"
    assert [r["email"] for r in again.execute(people)] != \
        [r["email"] for r in other.execute(people)]
