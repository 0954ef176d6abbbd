"""Ticket rules: the status machine, assignment, tags, comments, merges and macros."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row
from workgym_core.errors import RuleViolation

from .common import ACTING_AGENT_ID

TRANSITIONS: dict[str, frozenset[str]] = {
    "new": frozenset({"open", "pending", "on-hold", "solved"}),
    "open": frozenset({"pending", "on-hold", "solved"}),
    "pending": frozenset({"open", "solved"}),
    "on-hold": frozenset({"open", "solved"}),
    "solved": frozenset({"open", "closed"}),
    "closed": frozenset(),
}


def _require_open_ticket(ticket: Mapping[str, Any], *, field: str | None = None) -> None:
    if ticket["status"] == "closed":
        merged = ticket["merged_into_id"]
        hint = f" (it was merged into ticket {merged})" if merged else ""
        raise RuleViolation(
            f"ticket {ticket['id']} is closed{hint}; closed tickets cannot be changed, commented "
            "on or merged — open a follow-up ticket instead",
            code="ticket_closed",
            field=field,
            rule="closed_ticket_is_immutable",
        )


def check_transition(current: str, target: str) -> None:
    if target == current:
        return
    if target not in TRANSITIONS[current]:
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none (terminal)"
        raise RuleViolation(
            f"ticket status cannot go from '{current}' to '{target}'; allowed from "
            f"'{current}': {allowed}",
            code="invalid_status_transition",
            field="status",
            rule="ticket_status_machine",
        )


def update_ticket(
    db: sqlite3.Connection, *, ticket_id: int, changes: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    """Apply ``changes`` (only the keys the caller set) to a ticket; return the new row.

    Keys: status, priority, type, assignee_id, group_id (None unassigns), add_tags,
    remove_tags. Tags match exactly (case-sensitive), as stored.
    """
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    wanted = {key: changes[key] for key in ("status", "priority", "type") if key in changes}
    if wanted.get("status", ticket["status"]) != ticket["status"]:
        check_transition(ticket["status"], wanted["status"])
        if wanted["status"] == "solved":
            wanted["solved_at"] = iso(now)
        elif wanted["status"] == "open":
            wanted["solved_at"] = None

    group_id = changes["group_id"] if "group_id" in changes else ticket["group_id"]
    assignee_id = changes["assignee_id"] if "assignee_id" in changes else ticket["assignee_id"]
    if "group_id" in changes and group_id is not None:
        get_row(db, "groups", group_id, field="group_id")
    if "assignee_id" in changes and assignee_id is not None:
        agent = get_row(db, "agents", assignee_id, field="assignee_id")
        if not agent["active"]:
            raise RuleViolation(
                f"agent {assignee_id} ({agent['name']}) is deactivated and cannot be assigned "
                "tickets",
                code="assignee_inactive",
                field="assignee_id",
                rule="assignee_active",
            )
    if assignee_id is not None and group_id is not None:
        agent = get_row(db, "agents", assignee_id, field="assignee_id")
        if agent["group_id"] != group_id:
            group = get_row(db, "groups", group_id)
            field = "assignee_id" if "assignee_id" in changes else "group_id"
            raise RuleViolation(
                f"agent {assignee_id} ({agent['name']}) is not a member of group {group_id} "
                f"({group['name']}); set assignee_id to a member of that group or to null",
                code="assignee_not_in_group",
                field=field,
                rule="assignee_in_group",
            )
    wanted.update(group_id=group_id, assignee_id=assignee_id)

    add, remove = changes.get("add_tags") or [], changes.get("remove_tags") or []
    if add or remove:
        tags: list[str] = orjson.loads(ticket["tags"])
        new_tags = [t for t in tags if t not in set(remove)]
        for tag in add:
            if tag not in new_tags:
                new_tags.append(tag)
        if new_tags != tags:  # compared as lists: the stored text may be spelled otherwise
            wanted["tags"] = orjson.dumps(new_tags).decode()

    sql.update_changed(db, "tickets", ticket, wanted, touch={"updated_at": iso(now)})
    return get_row(db, "tickets", ticket_id)


def add_comment(
    db: sqlite3.Connection,
    *,
    ticket_id: int,
    body: str,
    public: bool,
    now: datetime,
    author_type: str = "agent",
    author_id: int | None = ACTING_AGENT_ID,
) -> dict[str, Any]:
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    stamp = iso(now)
    comment_id = sql.insert(
        db,
        "comments",
        {
            "ticket_id": ticket_id,
            "author_type": author_type,
            "author_id": author_id,
            "body": body,
            "public": public,
            "created_at": stamp,
        },
    )
    sql.update(db, "tickets", ticket_id, {"updated_at": stamp})
    return get_row(db, "comments", comment_id)


def merge_tickets(
    db: sqlite3.Connection, *, source_id: int, target_id: int, now: datetime
) -> dict[str, Any]:
    """Close ``source_id`` into ``target_id``; return the (closed) source ticket."""
    source = get_row(db, "tickets", source_id)
    if target_id == source_id:
        raise RuleViolation(
            f"ticket {source_id} cannot be merged into itself",
            code="merge_into_self",
            field="target_ticket_id",
            rule="merge_target_differs",
        )
    target = get_row(db, "tickets", target_id, field="target_ticket_id")
    _require_open_ticket(source)
    _require_open_ticket(target, field="target_ticket_id")
    if source["requester_id"] != target["requester_id"]:
        raise RuleViolation(
            f"ticket {source_id} (requester {source['requester_id']}) and ticket {target_id} "
            f"(requester {target['requester_id']}) have different requesters; only tickets of "
            "the same requester can be merged",
            code="requester_mismatch",
            field="target_ticket_id",
            rule="merge_same_requester",
        )
    stamp = iso(now)
    sql.update(
        db,
        "tickets",
        source_id,
        {
            "status": "closed",
            "merged_into_id": target_id,
            "updated_at": stamp,
        },
    )
    sql.update(db, "tickets", target_id, {"updated_at": stamp})
    for ticket_id, text in (
        (source_id, f"This ticket was closed and merged into ticket #{target_id}."),
        (target_id, f"Ticket #{source_id} was merged into this ticket."),
    ):
        sql.insert(
            db,
            "comments",
            {
                "ticket_id": ticket_id,
                "author_type": "system",
                "author_id": None,
                "body": text,
                "public": False,
                "created_at": stamp,
            },
        )
    return get_row(db, "tickets", source_id)


def apply_macro(
    db: sqlite3.Connection, *, ticket_id: int, macro_id: int, now: datetime
) -> dict[str, Any]:
    """Run a macro's actions as one ticket update plus, if it has one, a comment."""
    macro = get_row(db, "macros", macro_id)
    if not macro["active"]:
        raise RuleViolation(
            f"macro {macro_id} ('{macro['title']}') is inactive",
            code="macro_inactive",
            field="macro_id",
            rule="macro_active",
        )
    ticket = get_row(db, "tickets", ticket_id)
    _require_open_ticket(ticket)
    actions: dict[str, Any] = orjson.loads(macro["actions"])
    changes = {k: v for k, v in actions.items() if k != "comment"}
    ticket = update_ticket(db, ticket_id=ticket_id, changes=changes, now=now)
    comment = actions.get("comment")
    if comment:
        requester = get_row(db, "customers", ticket["requester_id"])
        body = (
            comment["body"]
            .replace("{{requester.first_name}}", requester["name"].split(" ")[0])
            .replace("{{ticket.id}}", str(ticket_id))
        )
        add_comment(db, ticket_id=ticket_id, body=body, public=comment.get("public", True), now=now)
        ticket = get_row(db, "tickets", ticket_id)
    return ticket

