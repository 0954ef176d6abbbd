"""Versions and components, as Jira's project administrators keep them (Administer
projects): create, edit, delete. A version is released (dated today unless it has a date)
and its unresolved issues moved to another version (``moveUnfixedIssuesTo``); a deleted
version or component leaves its issues, or moves them to another of the project
(``moveFixIssuesTo``, ``moveIssuesTo``). Names are unique in a project."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.db import one

from ..errors import JiraError
from . import permissions
from .fields import parse_date
from .issues import replace_in_issues

Row = dict[str, Any]
NAME_MAX = 255
_ID_AT_END = re.compile(r"(?:^|/)([1-9][0-9]*)/?$")


def find(db: sqlite3.Connection, table: str, row_id: int, caller_id: int) -> Row:
    """The version or component ``row_id`` of a project the caller may browse, else Jira's
    404."""
    found = one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    what = table.removesuffix("s")
    if found is None or not permissions.has(db, found["project_id"], caller_id,
                                            "BROWSE_PROJECTS"):
        raise JiraError(404, [f"Could not find {what} for id '{row_id}'."],
                        code=f"{what}_not_found")
    return found


def _project(db: sqlite3.Connection, body: Row, caller_id: int) -> Row:
    """The project a new version or component names (``projectId`` or ``project``: key)."""
    ref = body.get("projectId", body.get("project"))
    found = one(db, "SELECT * FROM projects WHERE CAST(id AS TEXT) = ? OR key = ?",
                (str(ref), str(ref).upper())) if ref is not None else None
    if found is None:
        raise JiraError(400, [], {"project": "Project must be specified."},
                        code="project_required")
    if not permissions.has(db, found["id"], caller_id, "BROWSE_PROJECTS"):
        raise JiraError(404, [f"No project could be found with key '{ref}'."],
                        code="project_not_found")
    return found


def _name(db: sqlite3.Connection, table: str, project_id: int, value: Any, own_id: int | None,
          errors: dict[str, str]) -> str | None:
    name = value.strip() if isinstance(value, str) else ""
    what = table.removesuffix("s")
    if not name:
        errors["name"] = f"You must specify a valid {what} name"
    elif len(name) > NAME_MAX:
        errors["name"] = f"The {what} name must not be longer than {NAME_MAX} characters."
    elif one(db, f"SELECT id FROM {table} WHERE project_id = ? AND lower(name) = lower(?) "
             "AND id IS NOT ?", (project_id, name, own_id)) is not None:
        errors["name"] = f"A {what} with this name already exists in this project."
    return name


def _version_columns(db: sqlite3.Connection, body: Row, project_id: int,
                     current: Row | None) -> Row:
    """The version's columns the body gives, checked (every error at once)."""
    errors: dict[str, str] = {}
    columns: Row = {}
    if current is None or "name" in body:
        columns["name"] = _name(db, "versions", project_id, body.get("name"),
                                current["id"] if current else None, errors)
    if "description" in body:
        columns["description"] = str(body["description"] or "")
    for key, column in (("releaseDate", "release_date"), ("startDate", "start_date")):
        if key in body:
            try:
                columns[column] = parse_date(body[key])
            except ValueError:
                errors[key] = (f"Invalid date format for '{key}': {body[key]!r}. Use "
                               "yyyy-MM-dd.")
    for flag in ("released", "archived"):
        if flag in body:
            if not isinstance(body[flag], bool):
                errors[flag] = f"'{flag}' must be true or false."
            else:
                columns[flag] = int(body[flag])
    if errors:
        raise JiraError(400, [], errors, code="version_invalid")
    return columns


def create_version(db: sqlite3.Connection, body: Row, caller_id: int, now: datetime) -> Row:
    """A new version of ``projectId`` (or ``project``): name required and unique."""
    project = _project(db, body, caller_id)
    permissions.require(db, project["id"], caller_id, "version_create")
    columns = _version_columns(db, body, project["id"], None)
    if columns.get("released") and not columns.get("release_date"):
        columns["release_date"] = now.date().isoformat()
    version_id = sql.insert(db, "versions", {**columns, "project_id": project["id"]})
    return find(db, "versions", version_id, caller_id)


def _other(db: sqlite3.Connection, table: str, current: Row, ref: Any, field: str) -> int:
    """Another version or component of ``current``'s project: by id, or a ``self`` URL."""
    named = _ID_AT_END.search(str(ref).strip())
    found = one(db, f"SELECT id FROM {table} WHERE id = ? AND project_id = ? AND id != ?",
                (int(named.group(1)), current["project_id"], current["id"])) if named else None
    if found is None:
        what = table.removesuffix("s")
        raise JiraError(400, [], {field: f"The {what} to move issues to must be another "
                                         f"{what} of the same project."},
                        code=f"{what}_move_invalid")
    return int(found["id"])


def update_version(db: sqlite3.Connection, version_id: int, body: Row, caller_id: int,
                   now: datetime) -> Row:
    """Change what the body gives; released with ``moveUnfixedIssuesTo`` (the other
    version's id or self URL), its unresolved issues move there."""
    current = find(db, "versions", version_id, caller_id)
    permissions.require(db, current["project_id"], caller_id, "version")
    columns = _version_columns(db, body, current["project_id"], current)
    target = body.get("moveUnfixedIssuesTo")
    target_id = (_other(db, "versions", current, target, "moveUnfixedIssuesTo")
                 if target is not None else None)
    if columns.get("released") and not current["released"] and not (
            columns.get("release_date") or current["release_date"]):
        columns["release_date"] = now.date().isoformat()
    sql.update(db, "versions", version_id, columns)
    if target_id is not None:
        replace_in_issues(db, "fix_versions", version_id, target_id, caller_id, now,
                          unresolved=True)
    return find(db, "versions", version_id, caller_id)


def delete(db: sqlite3.Connection, table: str, row_id: int, move_to: str | None,
           caller_id: int, now: datetime) -> None:
    """Delete a version or component; its issues lose it, or get ``move_to`` instead."""
    current = find(db, table, row_id, caller_id)
    operation, column, field = {"versions": ("version", "fix_versions", "moveFixIssuesTo"),
                                "components": ("component", "components", "moveIssuesTo")}[table]
    permissions.require(db, current["project_id"], caller_id, operation)
    target = _other(db, table, current, move_to, field) if move_to else None
    replace_in_issues(db, column, row_id, target, caller_id, now)
    db.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))


def _lead(db: sqlite3.Connection, value: Any, errors: dict[str, str]) -> int | None:
    if value in (None, ""):  # "" removes the lead, as Jira reads it
        return None
    found = one(db, "SELECT id FROM users WHERE account_id = ? AND active", (str(value),))
    if found is None:
        errors["leadAccountId"] = f"The user with account ID '{value}' does not exist."
        return None
    return int(found["id"])


ASSIGNEE_TYPES = ("PROJECT_DEFAULT", "COMPONENT_LEAD", "PROJECT_LEAD", "UNASSIGNED")


def _component_columns(db: sqlite3.Connection, body: Row, project_id: int,
                       current: Row | None) -> Row:
    errors: dict[str, str] = {}
    columns: Row = {}
    if current is None or "name" in body:
        columns["name"] = _name(db, "components", project_id, body.get("name"),
                                current["id"] if current else None, errors)
    if "description" in body:
        columns["description"] = str(body["description"] or "")
    if "leadAccountId" in body:
        columns["lead_id"] = _lead(db, body["leadAccountId"], errors)
    if body.get("assigneeType", "PROJECT_DEFAULT") not in ASSIGNEE_TYPES:
        errors["assigneeType"] = ("The assignee type must be one of "
                                  f"{', '.join(ASSIGNEE_TYPES)}.")
    if errors:
        raise JiraError(400, [], errors, code="component_invalid")
    return columns


def create_component(db: sqlite3.Connection, body: Row, caller_id: int) -> Row:
    """A new component of ``project`` (key) or ``projectId``: name required and unique."""
    project = _project(db, body, caller_id)
    permissions.require(db, project["id"], caller_id, "component")
    columns = _component_columns(db, body, project["id"], None)
    component_id = sql.insert(db, "components", {**columns, "project_id": project["id"]})
    return find(db, "components", component_id, caller_id)


def update_component(db: sqlite3.Connection, component_id: int, body: Row,
                     caller_id: int) -> Row:
    current = find(db, "components", component_id, caller_id)
    permissions.require(db, current["project_id"], caller_id, "component")
    sql.update(db, "components", component_id,
               _component_columns(db, body, current["project_id"], current))
    return find(db, "components", component_id, caller_id)

