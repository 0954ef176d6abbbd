"""Ticket audits: every create and update of a ticket, by whom, through which channel, as a
list of events (Create, Change, Comment, Notification), as Zendesk keeps them."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso

Event = dict[str, Any]
# Ticket columns and the field names audits call them by (ids as Zendesk's field names).
FIELD_NAMES = {"subject": "subject", "status": "status", "priority": "priority",
               "type": "type", "assignee_id": "assignee_id", "group_id": "group_id",
               "requester_id": "requester_id", "organization_id": "organization_id",
               "tags": "tags", "due_at": "due_at", "schedule_id": "schedule_id"}


def field_name(column: str, custom: Mapping[str, int]) -> str | None:
    """The audit field name of a tickets column: Zendesk's, or a custom field's id."""
    if column in custom:
        return str(custom[column])
    return FIELD_NAMES.get(column)


def _text(value: Any) -> Any:
    return value if value is None or isinstance(value, list) else str(value)


def changes(before: Mapping[str, Any] | None, after: Mapping[str, Any],
            custom: Mapping[str, int], via: Event | None = None) -> list[Event]:
    """Create events (``before`` None) or Change events of the audited fields that differ."""
    events: list[Event] = []
    for column, value in after.items():
        name = field_name(column, custom)
        if name is None or (before is not None and before.get(column) == value):
            continue
        if column == "tags":
            value = orjson.loads(value) if isinstance(value, str) else value
        event: Event = {"type": "Create" if before is None else "Change",
                        "field_name": name, "value": _text(value)}
        if before is not None:
            previous = before.get(column)
            if column == "tags" and isinstance(previous, str):
                previous = orjson.loads(previous)
            event["previous_value"] = _text(previous)
        if via is not None:
            event["via"] = via
        events.append(event)
    return events


def comment_event(comment: Mapping[str, Any]) -> Event:
    return {"type": "Comment", "author_id": comment["author_id"], "body": comment["body"],
            "html_body": f"<p>{comment['body']}</p>", "plain_body": comment["body"],
            "public": bool(comment["public"]), "attachments": [],
            "comment_id": comment["id"]}


def rule_via(kind: str, rule: Mapping[str, Any]) -> Event:
    """The ``via`` of an event a trigger or automation caused."""
    return {"channel": "rule",
            "source": {"from": {"id": rule["id"], "title": rule["title"], "deleted": False},
                       "rel": kind}}


def record(db: sqlite3.Connection, *, ticket_id: int, author_id: int, channel: str,
           events: list[Event], now: datetime) -> dict[str, Any]:
    """Write one audit (its events numbered after it); return its row."""
    audit_id = sql.insert(db, "audits", {"ticket_id": ticket_id, "author_id": author_id,
                                         "channel": channel, "created_at": iso(now),
                                         "events": "[]"})
    numbered = [{"id": audit_id * 100 + i, **event} for i, event in enumerate(events, 1)]
    sql.update(db, "audits", audit_id, {"events": orjson.dumps(numbered).decode()})
    return sql.get_row(db, "audits", audit_id)
