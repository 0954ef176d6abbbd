"""Sprints as Jira Software runs them: created future; future -> active needs a start and an
end date; active -> closed only (its unfinished issues go to the backlog); closed sprints
are final; issues move into future or active sprints, at most 50 at a time. Sprints need
the Manage sprints permission on the board's project, moving issues Schedule issues."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import one

from ..errors import JiraError
from ..formats import FormatError, parse_jira_time
from ..world import status_category
from . import permissions
from .boards import NO_SPRINTS
from .issues import get, log

Row = dict[str, Any]
MAX_MOVE = 50


def sprint(db: sqlite3.Connection, sprint_id: int) -> Row:
    found = one(db, "SELECT * FROM sprints WHERE id = ?", (sprint_id,))
    if found is None:
        raise JiraError(404, [f"Sprint with id {sprint_id} does not exist."],
                        code="sprint_not_found")
    return found


def _project(db: sqlite3.Connection, board_id: int) -> int:
    found = one(db, "SELECT project_id, type FROM boards WHERE id = ?", (board_id,))
    if found is None:
        raise JiraError(404, [f"Board with id {board_id} does not exist."],
                        code="board_not_found")
    if found["type"] != "scrum":
        raise JiraError(400, [NO_SPRINTS], code="board_kanban")
    return int(found["project_id"])


def _date(value: Any, name: str) -> str:
    try:
        return parse_jira_time(str(value))
    except FormatError as error:
        raise JiraError(400, [], {name: str(error)}, code="sprint_date") from error


def create(db: sqlite3.Connection, body: Mapping[str, Any], caller_id: int) -> Row:
    board = body.get("originBoardId")
    if not isinstance(board, int) or not str(body.get("name") or "").strip():
        raise JiraError(400, [], {"name": "Sprint name and originBoardId are required."},
                        code="sprint_invalid")
    permissions.require(db, _project(db, board), caller_id, "sprint")
    sprint_id = sql.insert(db, "sprints", {
        "board_id": board, "name": str(body["name"]).strip(), "state": "future",
        "goal": body.get("goal") or "",
        "start_date": _date(body["startDate"], "startDate") if body.get("startDate") else None,
        "end_date": _date(body["endDate"], "endDate") if body.get("endDate") else None,
        "complete_date": None})
    return sprint(db, sprint_id)


def update(db: sqlite3.Connection, sprint_id: int, body: Mapping[str, Any], caller_id: int,
           now: datetime, *, partial: bool) -> Row:
    """POST (partial: absent fields stay) or PUT (full) a sprint, by Jira's state rules."""
    current = sprint(db, sprint_id)
    permissions.require(db, _project(db, current["board_id"]), caller_id, "sprint")
    if current["state"] == "closed":
        raise JiraError(400, ["A closed sprint cannot be updated."], code="sprint_closed")
    values: Row = {} if partial else {"goal": "", "start_date": None, "end_date": None}
    for key, column in (("name", "name"), ("goal", "goal")):
        if key in body:
            values[column] = str(body[key] or "")
    for key, column in (("startDate", "start_date"), ("endDate", "end_date")):
        if body.get(key):
            values[column] = _date(body[key], key)
    state = body.get("state", current["state"])
    after = {**current, **values}
    if state != current["state"]:
        if (current["state"], state) == ("future", "active"):
            if not (after["start_date"] and after["end_date"]):
                raise JiraError(400, ["A sprint needs a start and an end date to be "
                                      "started."], code="sprint_dates")
        elif (current["state"], state) == ("active", "closed"):
            _completable(db, sprint_id)
            values["complete_date"] = iso(now)
            _to_backlog(db, sprint_id, caller_id, now)
        else:
            raise JiraError(400, [f"A sprint cannot go from {current['state']} to {state}."],
                            code="sprint_state")
        values["state"] = state
    sql.update(db, "sprints", sprint_id, values)
    return sprint(db, sprint_id)


def _completable(db: sqlite3.Connection, sprint_id: int) -> None:
    """A sprint completes only if no finished issue in it has unfinished sub-tasks (Jira
    names the offending parents)."""
    offending = [r["key"] for r in db.execute(
        "SELECT DISTINCT p.key, p.status, c.status AS child FROM issues p JOIN issues c ON "
        "c.parent_id = p.id AND c.issue_type = 'Sub-task' WHERE p.sprint_id = ? ORDER BY p.id",
        (sprint_id,)) if status_category(r["status"]) == "done"
        and status_category(r["child"]) != "done"]
    if offending:
        raise JiraError(400, ["Sprint cannot be completed as there are incomplete subtasks on "
                              f"the following issues: {', '.join(dict.fromkeys(offending))}"],
                        code="sprint_incomplete_subtasks")


def _to_backlog(db: sqlite3.Connection, sprint_id: int, caller_id: int, now: datetime) -> None:
    """A closing sprint's unfinished issues go to the backlog."""
    for issue in db.execute("SELECT * FROM issues WHERE sprint_id = ?", (sprint_id,)):
        if status_category(issue["status"]) != "done":
            log(db, issue, {"sprint_id": None}, caller_id, now)
            sql.update(db, "issues", issue["id"], {"sprint_id": None, "updated_at": iso(now)})


def move(db: sqlite3.Connection, sprint_id: int | None, refs: Any, caller_id: int,
         now: datetime) -> None:
    """Move issues into a future or active sprint (None: the backlog), at most 50."""
    if not isinstance(refs, list) or not refs or len(refs) > MAX_MOVE:
        raise JiraError(400, [f"Between 1 and {MAX_MOVE} issues can be moved at once."],
                        code="sprint_move_count")
    if sprint_id is not None:
        target = sprint(db, sprint_id)
        if target["state"] == "closed":
            raise JiraError(400, ["Issues can only be moved to open or active sprints."],
                            code="sprint_closed")
    for ref in refs:
        issue = get(db, str(ref), caller_id)
        permissions.require(db, issue["project_id"], caller_id, "schedule")
        if issue["sprint_id"] != sprint_id:
            log(db, issue, {"sprint_id": sprint_id}, caller_id, now)
            sql.update(db, "issues", issue["id"], {"sprint_id": sprint_id, "updated_at": iso(now)})
