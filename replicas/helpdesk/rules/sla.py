"""SLA policies on the ticket's clock: which policy applies, and the metric events (Zendesk's
ticket_metric_events) that follow from what happened on the ticket.

Metrics (targets by priority, in business hours of the ticket's schedule or around the
clock, from the first policy whose filter the ticket meets):

- ``reply_time``: instance 1 (first reply time) runs from the ticket's creation by its
  requester until an agent's first public comment; each later public comment of the
  requester starts the next instance (next reply time) until the agent's next public reply.
- ``requester_wait_time``: runs while the requester waits (new, open, on-hold), pauses while
  the ticket is pending, and is fulfilled when it is solved.

An activation records its ``breach`` event ahead, at the moment the target runs out; a
fulfil or pause before then marks that breach ``deleted``. Solving fulfils both. The events
derive from the ticket's history (its creation, public comments and status changes in its
audits, or for a seeded ticket its current status since ``status_updated_at``), so
:func:`sync` after any change writes exactly the events that are new.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.db import get_row, one, rows

from ..models import STATUS_CHANGE
from .business_hours import add_minutes, business_minutes_between
from .conditions import Context, evaluate
from .triggers import as_evaluated

Row = dict[str, Any]
DEFAULT_SCHEDULE = 1
WAITING = ("new", "open", "hold")


@dataclass(frozen=True)
class Happening:
    """One thing in a ticket's history: ``kind`` is created (``status`` then says by whom:
    requester or agent), requester (a public comment by the requester's side), agent (a
    public agent comment) or status (``status`` set)."""

    time: datetime
    kind: str
    status: str | None = None


@dataclass
class Event:
    metric: str
    instance_id: int
    type: str
    time: datetime
    sla: str | None = None
    deleted: bool = False

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.metric, self.instance_id, self.type, iso(self.time))


def policy_for(db: sqlite3.Connection, ticket: Mapping[str, Any], now: datetime) -> Row | None:
    requester = get_row(db, "users", ticket["requester_id"])
    for policy in rows(db, "SELECT * FROM sla_policies ORDER BY position, id"):
        if evaluate(orjson.loads(policy["filter"]), as_evaluated(ticket),
                    Context(now=now, requester=requester)):
            return policy
    return None


def _history(db: sqlite3.Connection, ticket: Mapping[str, Any]) -> list[Happening]:
    # Each query reads what the clock steps on (public comments, status changes: partial
    # indexes, models.py), never every note and audit: a write costs the same whatever the
    # ticket's history.
    roles = {u["id"]: u["role"] for u in rows(
        db, "SELECT DISTINCT u.id, u.role FROM comments c INDEXED BY ix_comments_public "
        "JOIN users u ON c.author_id = u.id WHERE c.ticket_id = ? AND c.public",
        (ticket["id"],))}
    comments = rows(db, "SELECT author_id, created_at FROM comments INDEXED BY "
                    "ix_comments_public WHERE ticket_id = ? AND public ORDER BY created_at, id",
                    (ticket["id"],))
    kinds = ["requester" if roles[c["author_id"]] == "end-user" else "agent"
             for c in comments]
    # Created by the requester (their description), or by an agent on their behalf: then
    # the reply clock starts with the requester's first public comment.
    found = [Happening(parse_iso(ticket["created_at"]), "created",
                       "requester" if not kinds or kinds[0] == "requester" else "agent")]
    for i, (c, kind) in enumerate(zip(comments, kinds, strict=True)):
        if i > 0 or kind != "requester":  # the requester's description is the creation
            found.append(Happening(parse_iso(c["created_at"]), kind))
    statuses = []
    for audit in rows(db, "SELECT created_at, events FROM audits INDEXED BY "
                      f"ix_audits_status_changes WHERE ticket_id = ? AND {STATUS_CHANGE} "
                      "ORDER BY id", (ticket["id"],)):
        for event in orjson.loads(audit["events"]):
            if event.get("field_name") == "status":
                statuses.append(Happening(parse_iso(audit["created_at"]), "status",
                                          event["value"]))
    if not statuses and ticket["status"] != "new":  # a seeded ticket: its status since then
        statuses.append(Happening(parse_iso(ticket["status_updated_at"]), "status",
                                  ticket["status"]))
    order = {"created": 0, "requester": 1, "agent": 1, "status": 2}
    return sorted(found + statuses, key=lambda h: (h.time, order[h.kind]))


class _Clock:
    """The metrics of one ticket, stepped through its history."""

    def __init__(self, policy: Row, schedule: Row, priority: str) -> None:
        self.policy, self.schedule, self.priority = policy, schedule, priority
        self.targets = {(m["metric"], m["priority"]): m
                        for m in orjson.loads(policy["policy_metrics"])}
        self.events: list[Event] = []
        self.reply: int = 0  # instance of reply_time
        self.reply_breach: Event | None = None
        self.wait_used = 0  # minutes of requester_wait_time used before a pause
        self.wait_started: datetime | None = None
        self.wait_breach: Event | None = None

    def _target(self, metric: str) -> Row | None:
        return self.targets.get((metric, self.priority))

    def _sla(self, metric: str, target: Row) -> str:
        return orjson.dumps({"policy": {"id": self.policy["id"], "title": self.policy["title"],
                                        "description": self.policy["description"]},
                             "target": target["target"],
                             "business_hours": target["business_hours"],
                             "metric": metric}).decode()

    def _start(self, metric: str, target_metric: str, instance: int, at: datetime,
               used: int = 0) -> Event | None:
        target = self._target(target_metric)
        if target is None:
            return None
        if used == 0:
            self.events.append(Event(metric, instance, "apply_sla", at,
                                     self._sla(target_metric, target)))
        self.events.append(Event(metric, instance, "activate", at))
        due = add_minutes(at, max(0, target["target"] - used), self.schedule,
                          target["business_hours"])
        breach = Event(metric, instance, "breach", due)
        self.events.append(breach)
        return breach

    def _stop(self, breach: Event | None, kind: str, at: datetime) -> None:
        if breach is None:
            return
        self.events.append(Event(breach.metric, breach.instance_id, kind, at))
        if breach.time > at:
            breach.deleted = True

    def created(self, at: datetime, by: str | None) -> None:
        if by == "requester":
            self.reply = 1
            self.reply_breach = self._start("reply_time", "first_reply_time", 1, at)
        self.wait_started = at
        self.wait_breach = self._start("requester_wait_time", "requester_wait_time", 1, at)

    def requester(self, at: datetime) -> None:
        if self.reply_breach is None:
            self.reply += 1
            self.reply_breach = self._start(
                "reply_time", "first_reply_time" if self.reply == 1 else "next_reply_time",
                self.reply, at)

    def agent(self, at: datetime) -> None:
        self._stop(self.reply_breach, "fulfill", at)
        self.reply_breach = None

    def status(self, at: datetime, status: str) -> None:
        waiting = self.wait_started is not None
        if status in ("solved", "closed"):
            self.agent(at)
            if waiting:
                self._stop(self.wait_breach, "fulfill", at)
            self.wait_started = self.wait_breach = None
        elif status == "pending" and waiting:
            assert self.wait_started is not None
            target = self._target("requester_wait_time")
            if target is not None and target["business_hours"]:
                self.wait_used += business_minutes_between(self.wait_started, at, self.schedule)
            else:
                self.wait_used += int((at - self.wait_started) / timedelta(minutes=1))
            self._stop(self.wait_breach, "pause", at)
            self.wait_started = self.wait_breach = None
        elif status in WAITING and not waiting and self.wait_used:
            self.wait_started = at
            self.wait_breach = self._start("requester_wait_time", "requester_wait_time", 1, at,
                                           self.wait_used)


def _schedule(db: sqlite3.Connection, ticket: Mapping[str, Any]) -> Row:
    row = get_row(db, "schedules", ticket["schedule_id"] or DEFAULT_SCHEDULE)
    return {**row, "intervals": orjson.loads(row["intervals"]),
            "holidays": orjson.loads(row["holidays"])}


def expected(db: sqlite3.Connection, ticket: Mapping[str, Any], now: datetime) -> list[Event]:
    """The metric events the ticket's history makes under its policy."""
    policy = policy_for(db, ticket, now)
    if policy is None:
        return []
    clock = _Clock(policy, _schedule(db, ticket), ticket["priority"])
    for happening in _history(db, ticket):
        if happening.kind == "created":
            clock.created(happening.time, happening.status)
        elif happening.kind == "status":
            assert happening.status is not None
            clock.status(happening.time, happening.status)
        else:
            getattr(clock, happening.kind)(happening.time)
    return clock.events


def sync(db: sqlite3.Connection, ticket_id: int, now: datetime) -> None:
    """Write the ticket's metric events that are new, and mark breaches that no longer
    apply deleted."""
    ticket = get_row(db, "tickets", ticket_id)
    have = {(r["metric"], r["instance_id"], r["type"], r["time"]): r for r in rows(
        db, "SELECT * FROM ticket_metric_events WHERE ticket_id = ?", (ticket_id,))}
    for event in expected(db, ticket, now):
        found = have.get(event.key)
        if found is None:
            sql.insert(db, "ticket_metric_events", {
                "ticket_id": ticket_id, "metric": event.metric,
                "instance_id": event.instance_id, "type": event.type,
                "time": iso(event.time), "sla": event.sla, "deleted": event.deleted})
        elif bool(found["deleted"]) != event.deleted:
            sql.update(db, "ticket_metric_events", found["id"], {"deleted": event.deleted})


# A breach still ahead of its metric: no fulfil or pause of its instance after it.
_OPEN_BREACH = (
    "SELECT b.ticket_id, b.metric, b.instance_id, b.time FROM ticket_metric_events b "
    "WHERE b.type = 'breach' AND NOT b.deleted AND NOT EXISTS (SELECT 1 FROM "
    "ticket_metric_events e WHERE e.ticket_id = b.ticket_id AND e.metric = b.metric AND "
    "e.instance_id = b.instance_id AND e.type IN ('fulfill', 'pause') AND e.id > b.id)")


def next_breaches(db: sqlite3.Connection) -> dict[int, str]:
    """Ticket id -> the time of its next (or overdue) SLA breach, for tickets that have one."""
    found: dict[int, str] = {}
    for r in rows(db, _OPEN_BREACH):
        if r["ticket_id"] not in found or r["time"] < found[r["ticket_id"]]:
            found[r["ticket_id"]] = r["time"]
    return found


def policy_metrics(db: sqlite3.Connection, ticket_id: int, now: datetime) -> list[Row]:
    """Zendesk's ``slas.policy_metrics`` of a ticket: each metric's latest instance, its
    stage (active, paused, achieved) and when it breaches (or breached)."""
    latest: dict[str, Row] = {}
    for e in rows(db, "SELECT * FROM ticket_metric_events WHERE ticket_id = ? ORDER BY id",
                  (ticket_id,)):
        entry = latest.setdefault(e["metric"], {"metric": e["metric"], "stage": "active",
                                                "breach_at": None})
        if e["type"] == "apply_sla":
            entry["metric"] = orjson.loads(e["sla"])["metric"]
        elif e["type"] == "activate":
            entry["stage"] = "active"
        elif e["type"] == "breach" and not e["deleted"]:
            entry["breach_at"] = e["time"]
        elif e["type"] in ("pause", "fulfill"):
            entry["stage"] = "paused" if e["type"] == "pause" else "achieved"
            if e["type"] == "fulfill" and (entry["breach_at"] or "~") > e["time"]:
                entry["breach_at"] = None
    out = []
    for entry in latest.values():
        if entry["stage"] == "active" and entry["breach_at"]:
            minutes = int((parse_iso(entry["breach_at"]) - now) / timedelta(minutes=1))
            entry.update(days=minutes // 1440, hours=minutes // 60, minutes=minutes)
        out.append(entry)
    return out


def ticket_ids_with_events(db: sqlite3.Connection) -> bool:
    return one(db, "SELECT 1 AS y FROM ticket_metric_events LIMIT 1") is not None
