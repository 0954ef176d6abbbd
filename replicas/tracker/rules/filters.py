"""Filters: saved JQL searches, each its owner's (no share permissions: a filter is seen by
its owner only, as a private filter is). Name required, unique among the owner's filters;
the JQL must be a query the search accepts (parsed and compiled by ``jql``); ids from
10000, as Jira's."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.db import one

from .. import jql
from ..errors import JiraError
from ..world import data

Row = dict[str, Any]
NAME_MAX = 255
FIRST_ID = 10000
NOT_AVAILABLE = ("The selected filter is not available to you, perhaps it has been deleted "
                 "or had its permissions changed.")


def find(db: sqlite3.Connection, filter_id: int, caller_id: int) -> Row:
    """The caller's filter ``filter_id``, else Jira's 400 (a filter one may not see is one
    that is not there)."""
    found = one(db, "SELECT * FROM filters WHERE id = ? AND owner_id = ?",
                (filter_id, caller_id))
    if found is None:
        raise JiraError(400, [NOT_AVAILABLE], code="filter_not_found")
    return found


def _columns(db: sqlite3.Connection, body: Any, caller_id: int, now: datetime,
             current: Row | None) -> Row:
    """The filter's columns the body gives, checked (every error at once)."""
    if not isinstance(body, dict):
        raise JiraError(400, ["The request body must be a filter object."],
                        code="filter_invalid")
    errors: dict[str, str] = {}
    columns: Row = {}
    if current is None or "name" in body:
        given = body.get("name")
        name = given.strip() if isinstance(given, str) else ""
        if not name:
            errors["filterName"] = "You must specify a name to save this filter as."
        elif len(name) > NAME_MAX:
            errors["filterName"] = f"The filter name must not exceed {NAME_MAX} characters."
        elif one(db, "SELECT id FROM filters WHERE owner_id = ? AND lower(name) = lower(?) "
                 "AND id IS NOT ?", (caller_id, name, current and current["id"])):
            errors["filterName"] = "Filter with same name already exists."
        columns["name"] = name
    if current is None or "jql" in body:
        text = str(body["jql"]) if isinstance(body.get("jql"), str) else ""
        try:
            query = jql.parse(text)
            jql.compile(query, now=now, caller_id=caller_id, world=data())
            jql.order_by(query, world=data())
        except jql.JqlError as error:
            errors["jql"] = str(error)
        columns["jql"] = text.strip()
    if "description" in body:
        columns["description"] = str(body["description"] or "")
    if "favourite" in body:
        if not isinstance(body["favourite"], bool):
            errors["favourite"] = "'favourite' must be true or false."
        columns["favourite"] = int(bool(body["favourite"]))
    if errors:
        raise JiraError(400, [], errors, code="filter_invalid")
    return columns


def create(db: sqlite3.Connection, body: Any, caller_id: int, now: datetime) -> Row:
    """A new filter of the caller's: ``{name, jql, description?, favourite?}``."""
    columns = _columns(db, body, caller_id, now, None)
    last = one(db, "SELECT max(id) AS n FROM filters")
    filter_id = max(FIRST_ID - 1, (last or {}).get("n") or 0) + 1
    sql.insert(db, "filters", {**columns, "id": filter_id, "owner_id": caller_id})
    return find(db, filter_id, caller_id)


def update(db: sqlite3.Connection, filter_id: int, body: Any, caller_id: int,
           now: datetime) -> Row:
    """Change the caller's filter: what the body gives."""
    current = find(db, filter_id, caller_id)
    sql.update(db, "filters", filter_id, _columns(db, body, caller_id, now, current))
    return find(db, filter_id, caller_id)


def delete(db: sqlite3.Connection, filter_id: int, caller_id: int) -> None:
    find(db, filter_id, caller_id)
    db.execute("DELETE FROM filters WHERE id = ?", (filter_id,))


def favourite(db: sqlite3.Connection, filter_id: int, caller_id: int, on: bool) -> Row:
    """Add the filter to the caller's favourites, or take it out."""
    find(db, filter_id, caller_id)
    sql.update(db, "filters", filter_id, {"favourite": int(on)})
    return find(db, filter_id, caller_id)
