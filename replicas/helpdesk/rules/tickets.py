"""Tickets as Zendesk keeps them: create (with the first comment, a requester by email, custom
fields, follow-ups of closed tickets), update (fields and a comment in one request), the
status rules, and after each change the triggers, an audit and the SLA's clock.

Status rules (Zendesk's): a ticket never returns to ``new``; assigning a new ticket opens
it; solving needs an assignee; an end user's comment on a pending, on-hold or solved ticket
reopens it; a closed ticket refuses every change ("Status: closed prevents ticket update").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row, one

from . import audits, triggers, uploads
from .common import ACTING_AGENT_ID, invalid, normal_tags, tags_of
from .fields import custom_columns, custom_values
from .sla import sync as sync_sla

Row = dict[str, Any]


@dataclass
class Change:
    """One create or update as the caller asked it: ticket columns (tags a list), a comment
    ({body, public, author_id}) and who asked, through which channel."""

    values: dict[str, Any] = field(default_factory=dict)
    comment: dict[str, Any] | None = None
    author_id: int = ACTING_AGENT_ID
    channel: str = "api"


def require_not_closed(ticket: Mapping[str, Any]) -> None:
    if ticket["status"] == "closed":
        raise invalid("status", "closed prevents ticket update", "ticket_closed")


def _staff(db: sqlite3.Connection, user_id: int, field: str) -> Row:
    user = one(db, "SELECT * FROM users WHERE id = ?", (user_id,))
    if user is None:
        raise invalid(field, f"user {user_id} does not exist", "user_not_found")
    if user["role"] == "end-user":
        raise invalid(field, f"user {user_id} ({user['name']}) is not an agent",
                      "assignee_not_agent")
    if not user["active"]:
        raise invalid(field, f"user {user_id} ({user['name']}) is deactivated and cannot be "
                      "assigned tickets", "assignee_inactive")
    return user


def _member(db: sqlite3.Connection, user_id: int, group_id: int) -> bool:
    return one(db, "SELECT 1 AS y FROM group_memberships WHERE user_id = ? AND group_id = ?",
               (user_id, group_id)) is not None


def _assignment(db: sqlite3.Connection, before: Mapping[str, Any],
                wanted: dict[str, Any]) -> None:
    """Check group and assignee; an assignee without a group brings their default group."""
    if wanted.get("group_id") is not None and get_row(
            db, "groups", wanted["group_id"], field="group_id")["deleted"]:
        raise invalid("group_id", f"group {wanted['group_id']} is deleted", "group_deleted")
    assignee = wanted.get("assignee_id", before.get("assignee_id"))
    if "assignee_id" in wanted and assignee is not None:
        user = _staff(db, assignee, "assignee_id")
        if "group_id" not in wanted and (
                before.get("group_id") is None or not _member(db, assignee, before["group_id"])):
            wanted["group_id"] = user["default_group_id"]
    group = wanted.get("group_id", before.get("group_id"))
    if assignee is not None and group is not None and not _member(db, assignee, group):
        name = get_row(db, "groups", group)["name"]
        field = "assignee_id" if "assignee_id" in wanted else "group_id"
        raise invalid(field, f"user {assignee} is not a member of group {group} ({name}); "
                      "choose a member of that group or no assignee", "assignee_not_in_group")


def _status(before: Mapping[str, Any], wanted: dict[str, Any], author: Row) -> None:
    current = before.get("status")
    if author["role"] == "end-user" and "status" not in wanted and current in (
            "pending", "hold", "solved"):
        wanted["status"] = "open"  # the requester answered
    status = wanted.get("status", current)
    if status == "new" and current not in (None, "new"):
        raise invalid("status", "a ticket cannot be set back to new", "status_not_new")
    if status == "new" and "status" not in wanted and wanted.get("assignee_id") is not None:
        wanted["status"] = status = "open"  # assigning a new ticket opens it
    if status == "solved" and wanted.get("assignee_id", before.get("assignee_id")) is None:
        raise invalid("assignee_id", "is required when solving a ticket", "solve_needs_assignee")


def _columns(db: sqlite3.Connection, before: Mapping[str, Any], change: Change,
             now: datetime) -> dict[str, Any]:
    """The columns to write: the asked values checked, with what follows from them."""
    wanted = dict(change.values)
    author = get_row(db, "users", change.author_id)
    _status(before, wanted, author)
    _assignment(db, before, wanted)
    if "tags" in wanted:
        wanted["tags"] = orjson.dumps(normal_tags(wanted["tags"])).decode()
    if "requester_id" in wanted:
        requester = get_row(db, "users", wanted["requester_id"], field="requester_id")
        if "organization_id" not in wanted:
            wanted["organization_id"] = requester["organization_id"]
    if wanted.get("status", before.get("status")) != before.get("status"):
        wanted["status_updated_at"] = iso(now)
        wanted["solved_at"] = iso(now) if wanted["status"] in ("solved", "closed") else None
        if before.get("solved_at") and wanted["status"] == "closed":
            wanted["solved_at"] = before["solved_at"]
    return {k: v for k, v in wanted.items() if before.get(k, object()) != v}


def _comment(db: sqlite3.Connection, ticket_id: int, comment: Mapping[str, Any] | None,
             now: datetime) -> Row | None:
    if comment is None:
        return None
    comment_id = sql.insert(db, "comments", {
        "ticket_id": ticket_id, "author_id": comment["author_id"], "body": comment["body"],
        "public": bool(comment.get("public", True)), "created_at": iso(now)})
    uploads.attach(db, comment_id, comment.get("uploads") or [])
    return get_row(db, "comments", comment_id)


def _finish(db: sqlite3.Connection, ticket_id: int, before: Row | None, change: Change,
            comment: Row | None, events: list[dict[str, Any]], now: datetime) -> tuple[Row, Row]:
    """Triggers, the audit and the SLA after a create or update; the ticket and its audit."""
    ticket = get_row(db, "tickets", ticket_id)
    author = get_row(db, "users", change.author_id)
    events += triggers.fire(db, ticket=ticket, previous=before, comment=comment,
                            author=author, now=now)
    audit = audits.record(db, ticket_id=ticket_id, author_id=change.author_id,
                          channel=change.channel, events=events, now=now)
    sync_sla(db, ticket_id, now)
    return get_row(db, "tickets", ticket_id), audit


def update(db: sqlite3.Connection, ticket_id: int, change: Change,
           now: datetime) -> tuple[Row, Row]:
    """Apply ``change`` to a ticket; return it and the audit of the change."""
    before = get_row(db, "tickets", ticket_id)
    require_not_closed(before)
    columns = _columns(db, before, change, now)
    comment = None
    if change.comment is not None:
        comment = _comment(db, ticket_id, {"author_id": change.author_id, **change.comment},
                           now)
    if columns or comment is not None:
        sql.update(db, "tickets", ticket_id, {**columns, "updated_at": iso(now)})
    events = audits.changes(before, columns, custom_columns())
    if comment is not None:
        events.insert(0, audits.comment_event(comment))
    return _finish(db, ticket_id, before, change, comment, events, now)


def create(db: sqlite3.Connection, change: Change, now: datetime) -> tuple[Row, Row]:
    """A new ticket from ``change`` (its comment is the description); the ticket and the
    audit of its creation. A follow-up (``via_followup_source_id`` of a closed ticket) keeps
    the source's requester and tags unless given."""
    values = dict(change.values)
    if change.comment is None or not change.comment.get("body", "").strip():
        raise invalid("description", "cannot be blank: give the ticket a comment",
                      "description_required")
    source_id = values.pop("via_followup_source_id", None)
    source = get_row(db, "tickets", source_id, field="via_followup_source_id") \
        if source_id is not None else None
    if source is not None and source["status"] == "closed":
        values.setdefault("requester_id", source["requester_id"])
        values.setdefault("tags", tags_of(source))
        values.setdefault("subject", source["subject"])
        values["via_followup_source_id"] = source_id
    values.setdefault("requester_id", change.author_id)
    body = change.comment["body"]
    stamp = iso(now)
    base: Row = {"subject": body.split("\n", 1)[0][:80], "description": body,
                 "priority": "normal", "type": "question", "channel": change.channel,
                 "tags": [], "submitter_id": change.author_id, "assignee_id": None,
                 "group_id": None, "organization_id": None, "schedule_id": None,
                 "order_number": None, "product": None, "contact_reason": None,
                 "merged_into_id": None, "via_followup_source_id": None, "due_at": None,
                 "created_at": stamp, "updated_at": stamp, "solved_at": None,
                 "legacy_id": None, "legacy_created": None}
    values = {**base, **values}
    wanted = _columns(db, {}, Change(values, None, change.author_id, change.channel), now)
    wanted.setdefault("status", "new")
    wanted.setdefault("status_updated_at", stamp)
    row = {**values, **wanted}
    row["tags"] = orjson.dumps(normal_tags(values["tags"])).decode() \
        if isinstance(values["tags"], list) else wanted["tags"]
    ticket_id = sql.insert(db, "tickets", row)
    comment = _comment(db, ticket_id, {"author_id": change.author_id,
                                       **{"public": True, **change.comment}}, now)
    assert comment is not None
    events = [audits.comment_event(comment), *audits.changes(None, {
        k: row[k] for k in ("subject", "requester_id", "priority", "type", "status",
                            "assignee_id", "group_id", "organization_id", "tags",
                            *custom_values(row))}, custom_columns())]
    return _finish(db, ticket_id, None, change, comment, events, now)
