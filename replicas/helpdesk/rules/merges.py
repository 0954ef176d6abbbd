"""Merging tickets (sources closed into a target, as Zendesk's merge) and end users (the
path user's tickets and identities move to the survivor)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row

from . import tickets
from .common import invalid, tags_of
from .tickets import Change

Row = dict[str, Any]


def merge_tickets(db: sqlite3.Connection, *, target_id: int, source_ids: Sequence[int],
                  target_comment: str | None, source_comment: str | None,
                  target_public: bool, source_public: bool, now: datetime,
                  channel: str = "api") -> list[Row]:
    """Close each source into the target: the source gets ``closed_by_merge`` and a comment
    saying where it went, the target a comment naming the sources (their audits through
    ``channel``). Sources must be less than solved and have the target's requester, else
    nothing is closed. The job's results."""
    target = get_row(db, "tickets", target_id)
    tickets.require_not_closed(target)
    if not source_ids:
        raise invalid("ids", "name at least one ticket to merge", "ids_required")
    sources = []
    for source_id in dict.fromkeys(source_ids):
        if source_id == target_id:
            raise invalid("ids", f"ticket {target_id} cannot be merged into itself",
                          "merge_into_self")
        source = get_row(db, "tickets", source_id, field="ids")
        if source["status"] in ("solved", "closed"):
            raise invalid("ids", f"ticket {source_id} is {source['status']}: only tickets "
                          "less than solved can be merged", "merge_source_solved")
        if source["requester_id"] != target["requester_id"]:
            raise invalid("ids", f"ticket {source_id} has another requester than ticket "
                          f"{target_id}", "merge_requester_mismatch")
        sources.append(source)
    default_target, default_source = default_comments(target, sources)
    tickets.update(db, target_id, Change(comment={
        "body": target_comment or default_target, "public": target_public}, channel=channel),
        now)
    for source in sources:
        tags = [*tags_of(source), "closed_by_merge"]
        tickets.update(db, source["id"], Change(
            values={"status": "closed", "tags": tags, "merged_into_id": target_id},
            comment={"body": source_comment or default_source, "public": source_public},
            channel=channel), now)
    return [{"action": "merge", "status": "Merged", "success": True, "id": s["id"]}
            for s in sources]


def default_comments(target: Row, sources: Sequence[Row]) -> tuple[str, str]:
    """The comments a merge leaves unless given: (on the target, on each source)."""
    names = ", ".join(f"#{s['id']} \"{s['subject']}\"" for s in sources)
    return (f"Requests {names} were closed and merged into this request.",
            f"This request was closed and merged into request #{target['id']} "
            f"\"{target['subject']}\".")


def merge_users(db: sqlite3.Connection, *, source_id: int, target_id: int,
                now: datetime) -> Row:
    """Merge end user ``source_id`` into ``target_id``: their tickets (any status) and
    identities move; the source is deleted (inactive). The survivor."""
    source = get_row(db, "users", source_id)
    target = get_row(db, "users", target_id, field="user.id")
    if source_id == target_id:
        raise invalid("user.id", "a user cannot be merged into themselves", "merge_into_self")
    for user, field in ((source, "id"), (target, "user.id")):
        if user["role"] != "end-user":
            raise invalid(field, f"user {user['id']} is an {user['role']}: only end users can "
                          "be merged", "merge_end_users_only")
        if not user["active"]:
            raise invalid(field, f"user {user['id']} is deleted", "user_deleted")
    stamp = iso(now)
    for column in ("requester_id", "submitter_id"):
        db.execute(f"UPDATE tickets SET {column} = ?, updated_at = ? WHERE {column} = ?",
                   (target_id, stamp, source_id))
    db.execute("UPDATE user_identities SET user_id = ?, is_primary = 0 WHERE user_id = ?",
               (target_id, source_id))
    db.execute("UPDATE satisfaction_ratings SET requester_id = ? WHERE requester_id = ?",
               (target_id, source_id))
    sql.update(db, "users", source_id, {"active": False, "email": None, "phone": None,
                                        "updated_at": stamp})
    sql.update(db, "users", target_id, {"updated_at": stamp})
    return get_row(db, "users", target_id)

