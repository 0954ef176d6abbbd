"""Work logged on an issue (Jira's worklogs): log (Work on issues), edit (Edit own / Edit all
worklogs), delete (Delete own / Delete all worklogs). Each keeps the issue's time spent the
sum of its worklogs and moves its remaining estimate as ``adjustEstimate`` says: ``auto`` by
the time logged (less when logging, more when a worklog shrinks or goes), ``leave`` not at
all, ``new`` to ``newEstimate``, ``manual`` by ``reduceBy`` (log) or ``increaseBy``
(delete)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import one

from ..errors import JiraError
from ..formats import FormatError, parse_duration, parse_jira_time
from . import fields, permissions

Row = dict[str, Any]


@dataclass(frozen=True)
class Estimate:
    """How the remaining estimate follows a worklog change (the query's ``adjustEstimate``,
    ``newEstimate``, and ``reduceBy`` or ``increaseBy``)."""

    adjust: str = "auto"
    new: str | None = None
    by: str | None = None


def _by_name(delete: bool) -> str:
    return "increaseBy" if delete else "reduceBy"


def _estimate_errors(estimate: Estimate, *, delete: bool = False) -> dict[str, str]:
    for value, name, needed, message in (
            (estimate.new, "newEstimate", "new", "You must supply a valid new estimate."),
            (estimate.by, _by_name(delete), "manual",
             "You must supply a valid amount of time to adjust the estimate by.")):
        if estimate.adjust == needed:
            try:
                parse_duration(str(value or ""))
            except FormatError:
                return {name: message}
    return {}


def _remaining(issue: Row, spent: int, estimate: Estimate, *, delete: bool = False) -> Any:
    """The remaining estimate after ``spent`` more seconds were logged (less: negative)."""
    remaining = issue["remaining_estimate_s"]
    if estimate.adjust == "auto":
        return None if remaining is None else max(0, remaining - spent)
    if estimate.adjust == "new":
        return parse_duration(str(estimate.new))
    if estimate.adjust == "manual":
        by = parse_duration(str(estimate.by))
        return max(0, (remaining or 0) + (by if delete else -by))
    return remaining


def _values(body: Any, adf: bool, now: datetime, current: Row | None) -> tuple[Row, dict[str,
                                                                                   str]]:
    """The worklog's columns a body gives (all of them when logging, the ones given when
    editing), and the errors by field."""
    if not isinstance(body, dict):
        return {}, {"worklog": "The request body must be a worklog object."}
    values: Row = {}
    errors: dict[str, str] = {}
    if current is None or "comment" in body:
        try:
            values["comment"] = fields.setters(adf)["description"][1](body.get("comment"))
        except ValueError as error:
            errors["comment"] = str(error)
    if current is None or {"timeSpent", "timeSpentSeconds"} & set(body):
        seconds = body.get("timeSpentSeconds")
        if seconds is None:
            try:
                seconds = parse_duration(str(body.get("timeSpent", "")))
            except FormatError as error:
                errors["timeLogged"] = str(error)
        if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds <= 0:
            errors.setdefault("timeLogged", "You must indicate the time spent working.")
        values["time_spent_s"] = seconds
    if body.get("started"):
        try:
            values["started"] = parse_jira_time(str(body["started"]))
        except FormatError as error:
            errors["started"] = str(error)
    elif current is None:  # now when not given (as the jira library leaves it out)
        values["started"] = iso(now)
    return values, errors


def log_work(db: sqlite3.Connection, issue: Row, body: Any, caller_id: int, now: datetime,
             *, adf: bool, estimate: Estimate = Estimate()) -> Row:
    """A worklog: ``timeSpent`` ("2h 30m") or ``timeSpentSeconds``, ``started`` and a
    ``comment`` (v2 text, v3 document)."""
    permissions.require(db, issue["project_id"], caller_id, "worklog")
    values, errors = _values(body, adf, now, None)
    errors.update(_estimate_errors(estimate))
    if errors:
        raise JiraError(400, [], errors, code="worklog_invalid")
    worklog_id = sql.insert(db, "worklogs", {**values, "issue_id": issue["id"],
                                             "author_id": caller_id, "created": iso(now)})
    _account(db, issue, values["time_spent_s"], estimate, now)
    return find(db, issue, worklog_id)


def find(db: sqlite3.Connection, issue: Row, worklog_id: int) -> Row:
    """The issue's worklog ``worklog_id``, else Jira's 404."""
    found = one(db, "SELECT * FROM worklogs WHERE id = ? AND issue_id = ?",
                (worklog_id, issue["id"]))
    if found is None:
        raise JiraError(404, [f"Cannot find worklog with id: '{worklog_id}'."],
                        code="worklog_not_found")
    return found


def edit(db: sqlite3.Connection, issue: Row, worklog_id: int, body: Any, caller_id: int,
         now: datetime, *, adf: bool, estimate: Estimate = Estimate()) -> Row:
    """Change a worklog's time, start or comment (what the body gives)."""
    found = find(db, issue, worklog_id)
    permissions.require_own(db, issue["project_id"], caller_id, "edit_worklog",
                            found["author_id"])
    values, errors = _values(body, adf, now, found)
    errors.update(_estimate_errors(estimate))
    if errors:
        raise JiraError(400, [], errors, code="worklog_invalid")
    sql.update(db, "worklogs", worklog_id, {**values, "updated_at": iso(now),
                                            "update_author_id": caller_id})
    _account(db, issue, values.get("time_spent_s", found["time_spent_s"])
             - found["time_spent_s"], estimate, now)
    return find(db, issue, worklog_id)


def delete(db: sqlite3.Connection, issue: Row, worklog_id: int, caller_id: int,
           now: datetime, *, estimate: Estimate = Estimate()) -> None:
    found = find(db, issue, worklog_id)
    permissions.require_own(db, issue["project_id"], caller_id, "delete_worklog",
                            found["author_id"])
    errors = _estimate_errors(estimate, delete=True)
    if errors:
        raise JiraError(400, [], errors, code="worklog_invalid")
    db.execute("DELETE FROM worklogs WHERE id = ?", (worklog_id,))
    _account(db, issue, -found["time_spent_s"], estimate, now, delete=True)


def _account(db: sqlite3.Connection, issue: Row, spent: int, estimate: Estimate,
             now: datetime, *, delete: bool = False) -> None:
    """The issue's time spent and remaining estimate after ``spent`` more seconds."""
    current = one(db, "SELECT * FROM issues WHERE id = ?", (issue["id"],))
    assert current is not None
    sql.update(db, "issues", issue["id"], {
        "time_spent_s": max(0, current["time_spent_s"] + spent),
        "remaining_estimate_s": _remaining(current, spent, estimate, delete=delete),
        "updated_at": iso(now)})
