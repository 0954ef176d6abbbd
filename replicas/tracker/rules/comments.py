"""Comments by id: read one, edit it (Edit own comments for the caller's, Edit all comments
for anyone's), delete it (Delete own / Delete all comments), as Jira's comment resource."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import one

from ..errors import JiraError
from . import permissions
from .issues import comment_body

Row = dict[str, Any]


def find(db: sqlite3.Connection, issue: Row, comment_id: int) -> Row:
    """The issue's comment ``comment_id``, else Jira's 404."""
    found = one(db, "SELECT * FROM comments WHERE id = ? AND issue_id = ?",
                (comment_id, issue["id"]))
    if found is None:
        raise JiraError(404, [f"Can not find a comment for id: {comment_id}."],
                        code="comment_not_found")
    return found


def edit(db: sqlite3.Connection, issue: Row, comment_id: int, body: Any, caller_id: int,
         now: datetime, *, adf: bool) -> Row:
    """Replace the comment's body; it keeps its author, the caller becomes its update
    author."""
    found = find(db, issue, comment_id)
    permissions.require_own(db, issue["project_id"], caller_id, "edit_comment",
                            found["author_id"])
    stamp = iso(now)
    sql.update(db, "comments", comment_id, {"body": comment_body(body, adf=adf),
                                            "updated_at": stamp,
                                            "update_author_id": caller_id})
    sql.update(db, "issues", issue["id"], {"updated_at": stamp})
    return find(db, issue, comment_id)


def delete(db: sqlite3.Connection, issue: Row, comment_id: int, caller_id: int,
           now: datetime) -> None:
    found = find(db, issue, comment_id)
    permissions.require_own(db, issue["project_id"], caller_id, "delete_comment",
                            found["author_id"])
    db.execute("DELETE FROM comments WHERE id = ?", (comment_id,))
    sql.update(db, "issues", issue["id"], {"updated_at": iso(now)})
