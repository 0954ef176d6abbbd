"""Files attached to issues (Jira's attachments): add (Create attachments), read, delete
(Delete own / Delete all attachments). Neither adding nor deleting is possible on an issue in
a status that is not editable (the workflow's ``locked``: Jira's ``jira.issue.editable``);
each file is at most :data:`UPLOAD_LIMIT` bytes; each addition and deletion is an
``Attachment`` item in the issue's changelog, as Jira records them."""

from __future__ import annotations

import base64
import mimetypes
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import one, rows

from ..errors import JiraError
from . import issues, permissions, workflows

Row = dict[str, Any]
# Bytes per file (GET /attachment/meta's uploadLimit): under the proxy's request body limit
# (256 kB by default), so a file too large meets Jira's 413, not the gateway's.
UPLOAD_LIMIT = 100_000
FILENAME_MAX = 255
OCTET_STREAM = "application/octet-stream"
# Python's own table of types by extension, never the host's mime.types: the same on every
# machine.
_TYPES = mimetypes.MimeTypes()


@dataclass(frozen=True)
class Upload:
    """One ``file`` part of the request: its filename, its declared content type (None: not
    given), its bytes."""

    filename: str
    content_type: str | None
    data: bytes


def mime_type(upload: Upload) -> str:
    """The type Jira records: the declared one, or where that says nothing (absent,
    ``application/octet-stream``: what the jira library sends) the filename's."""
    if upload.content_type and upload.content_type.split(";")[0].strip() != OCTET_STREAM:
        return upload.content_type.split(";")[0].strip()
    return _TYPES.guess_type(upload.filename, strict=False)[0] or OCTET_STREAM


def _refuse_locked(db: sqlite3.Connection, issue: Row, message: str) -> None:
    if not workflows.editable(issues.workflow_of(issue, db), issue["status"]):
        raise JiraError(403, [message], code="issue_not_editable")


def _history(db: sqlite3.Connection, issue: Row, items: list[Row], caller_id: int,
             stamp: str) -> None:
    sql.insert(db, "changelog", {"issue_id": issue["id"], "author_id": caller_id,
                                 "created": stamp, "items": orjson.dumps(items).decode()})
    sql.update(db, "issues", issue["id"], {"updated_at": stamp})


def add(db: sqlite3.Connection, issue: Row, uploads: list[Upload], caller_id: int,
        now: datetime) -> list[Row]:
    """Attach ``uploads`` to the issue (all or none); the new attachments, in order."""
    permissions.require(db, issue["project_id"], caller_id, "attach")
    _refuse_locked(db, issue, permissions.REFUSALS["attach"][2])
    if not uploads:
        raise JiraError(400, [], {"file": "No file was attached: send the files as "
                                          "multipart/form-data parts named 'file'."},
                        code="attachment_missing")
    for upload in uploads:
        if not upload.filename.strip() or len(upload.filename) > FILENAME_MAX:
            raise JiraError(400, [], {"file": f"Each file needs a filename of 1 to "
                                              f"{FILENAME_MAX} characters."},
                            code="attachment_filename")
        if len(upload.data) > UPLOAD_LIMIT:
            raise JiraError(413, [f"The file '{upload.filename}' is too large to attach "
                                  f"({len(upload.data)} bytes): the maximum attachment size "
                                  f"is {UPLOAD_LIMIT} bytes."], code="attachment_too_large")
    stamp = iso(now)
    made = [(sql.insert(db, "attachments", {
        "issue_id": issue["id"], "author_id": caller_id, "filename": upload.filename,
        "mime_type": mime_type(upload), "size": len(upload.data),
        "content": base64.b64encode(upload.data).decode(), "created": stamp}), upload.filename)
        for upload in uploads]
    _history(db, issue, [{"field": "Attachment", "fieldtype": "jira", "from": None,
                          "fromString": None, "to": str(attachment_id), "toString": name}
                         for attachment_id, name in made], caller_id, stamp)
    return rows(db, f"SELECT * FROM attachments WHERE id IN ({','.join('?' * len(made))}) "
                "ORDER BY id", [attachment_id for attachment_id, _ in made])


def find(db: sqlite3.Connection, attachment_id: str, caller_id: int) -> tuple[Row, Row]:
    """The attachment ``attachment_id`` and its issue, if the caller may browse the issue;
    else Jira's 404 (an id that is not a number too)."""
    found = one(db, "SELECT * FROM attachments WHERE CAST(id AS TEXT) = ?", (attachment_id,))
    issue = one(db, "SELECT * FROM issues WHERE id = ?", (found["issue_id"],)) if found else None
    if found is None or issue is None or not permissions.has(
            db, issue["project_id"], caller_id, "BROWSE_PROJECTS"):
        raise JiraError(404, [f"The attachment with id '{attachment_id}' does not exist"],
                        code="attachment_not_found")
    return found, issue


def content(attachment: Row) -> bytes:
    return base64.b64decode(attachment["content"])


def delete(db: sqlite3.Connection, attachment: Row, issue: Row, caller_id: int,
           now: datetime) -> None:
    """Delete the attachment: Delete own attachments for yours, Delete all attachments for
    anyone's; Jira answers each refusal with the same 403."""
    permissions.require_own(db, issue["project_id"], caller_id, "delete_attachment",
                            attachment["author_id"], attachment["id"])
    _refuse_locked(db, issue, permissions.OWN_OR_ALL["delete_attachment"][3].format(
        id=attachment["id"]))
    db.execute("DELETE FROM attachments WHERE id = ?", (attachment["id"],))
    _history(db, issue, [{"field": "Attachment", "fieldtype": "jira",
                          "from": str(attachment["id"]), "fromString": attachment["filename"],
                          "to": None, "toString": None}], caller_id, iso(now))
