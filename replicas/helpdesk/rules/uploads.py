"""Files attached to comments, as Zendesk takes them: upload each file first (``POST
/uploads``: a token, one per upload, several files may share it), then name the token in a
comment's ``uploads``; the comment takes the upload's attachments and the token is spent. An
upload no comment took can be deleted with its files."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row, one, rows
from workgym_core.errors import NotFound

from .common import invalid

Row = dict[str, Any]


def _token(db: sqlite3.Connection, table: str, seed: str, now: datetime) -> str:
    count = one(db, f"SELECT count(*) AS n FROM {table}")
    text = f"{table}:{(count or {}).get('n', 0)}:{iso(now)}:{seed}"
    return hashlib.sha1(text.encode()).hexdigest()[:24]


def upload(db: sqlite3.Connection, token: str | None) -> Row:
    found = one(db, "SELECT * FROM uploads WHERE token = ?", (token,))
    if found is None:
        raise NotFound(f"upload {token} does not exist", code="upload_not_found")
    return found


def add_file(db: sqlite3.Connection, token: str | None, file_name: str, content_type: str,
             content: bytes, now: datetime) -> tuple[Row, Row]:
    """Store a file under a new upload, or the upload ``token`` names; (upload, attachment)."""
    if not content:
        raise invalid("file", "is empty: send the file's bytes as the request body", "blank")
    if token is None:
        token = _token(db, "uploads", file_name, now)
        sql.insert(db, "uploads", {"token": token, "created_at": iso(now)})
    else:
        try:
            upload(db, token)
        except NotFound:
            raise invalid("token", f"no upload has the token {token}", "upload_not_found") \
                from None
    found = upload(db, token)
    attachment_id = sql.insert(db, "attachments", {
        "upload_id": found["id"], "comment_id": None, "file_name": file_name,
        "token": _token(db, "attachments", file_name, now), "content_type": content_type,
        "size": len(content), "content": content, "created_at": iso(now)})
    return found, get_row(db, "attachments", attachment_id)


def attachments_of(db: sqlite3.Connection, upload_id: int) -> list[Row]:
    return rows(db, "SELECT * FROM attachments WHERE upload_id = ? ORDER BY id", (upload_id,))


def attach(db: sqlite3.Connection, comment_id: int, tokens: Sequence[str]) -> None:
    """The uploads' files become the comment's; their tokens are spent."""
    for token in tokens:
        found = one(db, "SELECT * FROM uploads WHERE token = ?", (token,))
        if found is None:
            raise invalid("uploads", f"no upload has the token {token} (upload the file "
                          "first; a token is spent once a comment takes it)",
                          "upload_not_found")
        db.execute("UPDATE attachments SET comment_id = ?, upload_id = NULL "
                   "WHERE upload_id = ?", (comment_id, found["id"]))
        db.execute("DELETE FROM uploads WHERE id = ?", (found["id"],))


def delete(db: sqlite3.Connection, token: str) -> None:
    """Delete an upload no comment took, with its files."""
    found = upload(db, token)
    db.execute("DELETE FROM attachments WHERE upload_id = ?", (found["id"],))
    db.execute("DELETE FROM uploads WHERE id = ?", (found["id"],))


def by_comment(db: sqlite3.Connection, ticket_id: int) -> dict[int, list[Row]]:
    """The attachments of a ticket's comments, by comment id."""
    out: dict[int, list[Row]] = {}
    for row in rows(db, "SELECT a.* FROM attachments a JOIN comments c ON c.id = a.comment_id "
                    "WHERE c.ticket_id = ? ORDER BY a.id", (ticket_id,)):
        out.setdefault(row["comment_id"], []).append(row)
    return out
