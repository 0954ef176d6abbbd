"""Notes: who they are about, and that a pinned note is kept until it is unpinned."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from workgym_core.errors import Conflict


def create_note(db: sqlite3.Connection, *, person_id: int, title: str, body: str,
                pinned: bool, now: datetime) -> dict[str, Any]:
    sql.get_row(db, "people", person_id, field="person_id", noun="person")
    stamp = iso(now)
    note_id = sql.insert(db, "notes", {"person_id": person_id, "title": title, "body": body,
                                       "pinned": pinned, "created_at": stamp,
                                       "updated_at": stamp})
    return sql.get_row(db, "notes", note_id)


def update_note(db: sqlite3.Connection, *, note_id: int, changes: dict[str, Any],
                now: datetime) -> dict[str, Any]:
    note = sql.get_row(db, "notes", note_id)
    sql.update_changed(db, "notes", note, changes, touch={"updated_at": iso(now)})
    return sql.get_row(db, "notes", note_id)


def delete_note(db: sqlite3.Connection, *, note_id: int) -> None:
    note = sql.get_row(db, "notes", note_id)
    if note["pinned"]:
        raise Conflict(f"note {note_id} is pinned: unpin it first (pinned: false)",
                       code="note_pinned", field="note_id", rule="pinned_notes_are_kept")
    db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
