"""Business rules that act on their own: triggers after every ticket create or update, and
the changes a rule's actions make (shared with automations: rules/clock.py).

Triggers run as Zendesk's do: in position order, each at most once per update; after one
fires, the list is checked again from the top against the changed ticket, until none fires.
What they change is written to the ticket and returned as the audit's events (via
``rule``); their notifications are Notification events (the emails the requester gets).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row, rows

from . import audits
from .common import ACTING_AGENT_ID, tags_of
from .conditions import Context, apply_actions, evaluate
from .fields import custom_columns

Row = dict[str, Any]
Event = dict[str, Any]


def as_evaluated(ticket: Mapping[str, Any]) -> Row:
    """A tickets row as conditions read it (tags a list)."""
    return {**ticket, "tags": tags_of(dict(ticket))}


def placeholders(text: str, ticket: Mapping[str, Any], db: sqlite3.Connection) -> str:
    requester = get_row(db, "users", ticket["requester_id"])
    latest = db.execute("SELECT body FROM comments WHERE ticket_id = ? AND public "
                        "ORDER BY id DESC LIMIT 1", (ticket["id"],)).fetchone()
    for name, value in (("ticket.id", ticket["id"]), ("ticket.title", ticket["subject"]),
                        ("ticket.account", "Helpdesk"),
                        ("ticket.requester.first_name", requester["name"].split(" ")[0]),
                        ("ticket.requester.name", requester["name"]),
                        ("ticket.latest_comment", latest["body"] if latest else "")):
        text = text.replace("{{" + name + "}}", str(value))
    return text


def act(db: sqlite3.Connection, rule: Mapping[str, Any], kind: str, ticket: Row,
        now: datetime) -> list[Event]:
    """Apply ``rule``'s actions to ``ticket`` (written); the events they make."""
    via = audits.rule_via(kind, rule)
    result = apply_actions(orjson.loads(rule["actions"]), as_evaluated(ticket))
    changes = dict(result.changes)
    if "tags" in changes:
        changes["tags"] = orjson.dumps(changes["tags"]).decode()
    if "status" in changes:
        changes["status_updated_at"] = iso(now)
        if changes["status"] == "solved":
            changes["solved_at"] = iso(now)
    events = audits.changes(ticket, changes, custom_columns(), via)
    if changes:
        sql.update(db, "tickets", ticket["id"], {**changes, "updated_at": iso(now)})
    if result.comment is not None:
        body = placeholders(result.comment["body"], ticket, db)
        comment_id = sql.insert(db, "comments", {
            "ticket_id": ticket["id"], "author_id": ACTING_AGENT_ID, "body": body,
            "public": result.comment["public"], "created_at": iso(now)})
        events.append({**audits.comment_event(get_row(db, "comments", comment_id)),
                       "via": via})
    for note in result.notifications:
        events.append({"type": "Notification", "via": via, "recipients": [note["recipient"]],
                       "subject": placeholders(note["subject"], ticket, db),
                       "body": placeholders(note["body"], ticket, db)})
    return events


def fire(db: sqlite3.Connection, *, ticket: Row, previous: Row | None, comment: Row | None,
         author: Row, now: datetime) -> list[Event]:
    """Run the triggers after a create (``previous`` None) or an update; their events."""
    active = rows(db, "SELECT * FROM triggers WHERE active ORDER BY position, id")
    requester = get_row(db, "users", ticket["requester_id"])
    seen = {"public": bool(comment["public"]), "author_role": author["role"]} \
        if comment is not None else None
    ctx = Context(now=now, update_type="Create" if previous is None else "Change",
                  previous=as_evaluated(previous) if previous is not None else None,
                  comment=seen, requester=requester)
    fired: set[int] = set()
    events: list[Event] = []
    while True:
        current = get_row(db, "tickets", ticket["id"])
        hit = next((t for t in active if t["id"] not in fired and evaluate(
            orjson.loads(t["conditions"]), as_evaluated(current), ctx)), None)
        if hit is None:
            return events
        fired.add(hit["id"])
        events += act(db, hit, "trigger", current, now)


def creation_schedule(db: sqlite3.Connection, ticket: Row, now: datetime) -> int | None:
    """The schedule the triggers would give ``ticket`` when it was created (for tickets that
    were not created through the API: the seeded world's, the factories'), or None."""
    requester = get_row(db, "users", ticket["requester_id"])
    ctx = Context(now=now, update_type="Create", requester=requester)
    for trigger in rows(db, "SELECT * FROM triggers WHERE active ORDER BY position, id"):
        actions = orjson.loads(trigger["actions"])
        if any(a["field"] == "set_schedule" for a in actions) and evaluate(
                orjson.loads(trigger["conditions"]), as_evaluated(ticket), ctx):
            schedule: int | None = apply_actions(actions, as_evaluated(ticket)).changes.get(
                "schedule_id")
            return schedule
    return None
