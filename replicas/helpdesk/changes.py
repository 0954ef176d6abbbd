"""A request's ticket attributes (the API's ``TicketIn``, as the API and the workspace's
editor send them) as the change ``rules.tickets`` applies: ids resolved, tags computed; and a
bulk update of many tickets as one job (the API's ``update_many``, the workspace's bulk
edit)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime.db import get_row

from .rules import fields, jobs, tickets, users
from .rules.common import invalid, tags_of
from .schemas import TicketIn


def change_of(db: sqlite3.Connection, ticket: TicketIn, current: dict[str, Any] | None,
              now: datetime) -> tickets.Change:
    """A request's ticket attributes as a change to apply (ids resolved, tags computed)."""
    values = ticket.model_dump(exclude_unset=True, exclude={
        "comment", "requester", "custom_fields", "fields", "additional_tags", "remove_tags",
        "assignee_email", "safe_update", "updated_stamp", "description"})
    if ticket.custom_fields or ticket.fields:
        values.update(fields.columns_of(
            [f.model_dump() for f in (ticket.custom_fields or ticket.fields or [])]))
    if ticket.requester is not None:
        values["requester_id"] = users.find_or_create(
            db, ticket.requester.model_dump(), now)["id"]
    if ticket.assignee_email is not None:
        found = users.owner_of(db, "email", ticket.assignee_email)
        if found is None:
            raise invalid("assignee_email", f"no user has the email {ticket.assignee_email}",
                          "user_not_found")
        values["assignee_id"] = found["id"]
    if ticket.additional_tags or ticket.remove_tags:
        tags = values.get("tags", tags_of(current) if current else [])
        gone = {t.lower() for t in ticket.remove_tags or []}
        values["tags"] = [t for t in [*tags, *(ticket.additional_tags or [])]
                          if t.lower() not in gone]
    change = tickets.Change(values=values)
    if current is None and ticket.comment is None and ticket.description:
        change.comment = {"body": ticket.description, "public": True}
    if ticket.comment is not None:
        comment = ticket.comment
        change.comment = {"body": comment.body, "public": comment.public,
                          "uploads": comment.uploads or []}
        if comment.author_id is not None:
            get_row(db, "users", comment.author_id, field="comment.author_id")
            change.author_id = comment.author_id
    return change


def update_many(db: sqlite3.Connection, changes: dict[int, TicketIn], now: datetime,
                channel: str = "api") -> dict[str, Any]:
    """Each ticket changed its own way, on its own (one refusal does not stop the others),
    as one job: the job recorded, with each ticket's result."""

    def run(ticket_id: int) -> None:
        current = get_row(db, "tickets", ticket_id)
        change = change_of(db, changes[ticket_id], current, now)
        change.channel = channel
        tickets.update(db, ticket_id, change, now)

    return jobs.record(db, "update_many", jobs.each(db, changes, run, "update", "Updated"), now)
