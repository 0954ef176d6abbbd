"""Boards as a caller sees them: only those of projects they may browse (the Agile API and
the board pages alike)."""

from __future__ import annotations

import sqlite3
from typing import Any

from replicas.runtime.db import one, rows

from ..errors import JiraError
from . import permissions

Row = dict[str, Any]
NO_SPRINTS = "The board does not support sprints"  # Jira's words, no full stop
# A board with its project's key and name.
_BOARDS = ("SELECT b.*, p.key, p.name AS project_name FROM boards b JOIN projects p ON "
           "p.id = b.project_id")


def board(db: sqlite3.Connection, board_id: int, caller_id: int) -> Row:
    """The board, or Jira's 404 when it does not exist or its project is hidden."""
    found = one(db, f"{_BOARDS} WHERE b.id = ?", (board_id,))
    if found is None or not permissions.has(db, found["project_id"], caller_id,
                                            "BROWSE_PROJECTS"):
        raise JiraError(404, ["Board does not exist or you do not have permission to see "
                              "it."], code="board_not_found")
    return found


def scrum(db: sqlite3.Connection, board_id: int, caller_id: int) -> Row:
    """The board if it runs sprints (scrum); a kanban board is Jira's 400."""
    found = board(db, board_id, caller_id)
    if found["type"] != "scrum":
        raise JiraError(400, [NO_SPRINTS], code="board_kanban")
    return found


def visible(db: sqlite3.Connection, caller_id: int) -> list[Row]:
    """The boards of the projects the caller may browse, by id."""
    shown = set(permissions.browsable(db, caller_id))
    return [b for b in rows(db, f"{_BOARDS} ORDER BY b.id") if b["project_id"] in shown]
