"""Issue search: a JQL query compiled for the issues the caller may browse, as the API's
search (``/search/jql``), the agile API's lists and the search page run it."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import budget

from .. import jql
from ..errors import JiraError
from ..world import data
from . import permissions


def compiled(text: str, *, now: datetime, caller_id: int, bounded: bool,
             unordered: str | None = None) -> tuple[str, list[Any], str]:
    """The JQL as SQL: the WHERE clause over issues, its parameters and its ORDER BY
    (``unordered``, if given, where the JQL has none); a 400 in Jira's words when it does
    not parse, has more terms than the request may (``budget.max_query_terms``) or, ``bounded``,
    restricts nothing."""
    try:
        query = jql.parse(text)
        if (most := budget.max_query_terms()) is not None:
            jql.check_terms(query, most)
        if bounded and not jql.is_bounded(query):
            raise jql.JqlError("Unbounded JQL queries are not allowed here. Please add a "
                               "search restriction to your query.")
        where, params = jql.compile(query, now=now, caller_id=caller_id, world=data())
        order = unordered if unordered and not query.order else jql.order_by(query,
                                                                             world=data())
        return where, list(params), order
    except jql.JqlError as error:
        raise JiraError(400, [str(error)], code="jql") from error


def visible(db: sqlite3.Connection, caller_id: int) -> str:
    """SQL: the projects whose issues the caller may browse."""
    ids = permissions.browsable(db, caller_id)
    return f"project_id IN ({','.join(str(i) for i in ids) or 'NULL'})"
