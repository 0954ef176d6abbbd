"""Running a search (the query language of ``search_query``) over the episode's records: what
the search API and the workspace's search page both answer with."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import budget
from replicas.runtime.db import rows
from replicas.runtime.paging import like_pattern
from workgym_core.errors import InvalidRequest

from .. import search_query
from .fields import custom_columns

Found = list[tuple[search_query.Kind, dict[str, Any]]]


def find(db: sqlite3.Connection, query: str, now: datetime, sort_by: str | None = None,
         sort_order: str | None = None, filter_type: str | None = None) -> Found:
    """Every record matching ``query`` (only ``filter_type``'s when given), kind by kind in
    the query's order; a malformed query, or one past the budget's terms, is a 400 naming
    ``query``."""
    try:
        parsed = search_query.parse(query if not filter_type or "type:" in query
                                    else f"{query} type:{filter_type}")
        most = budget.max_query_terms()
        if most is not None and (n := search_query.terms(parsed)) > most:
            raise InvalidRequest(f"the query has {n} terms (key:value terms and free words); "
                                 f"at most {most} are allowed", field="query",
                                 rule="too_many_terms")
        by_id = {fid: column for column, fid in custom_columns().items()}
        found: Found = []
        for kind in search_query.kinds(parsed):
            where, params = search_query.compile(parsed, kind, now=now, custom_fields=by_id)
            order = search_query.order_by(kind, sort_by or parsed.order_by,
                                          sort_order or parsed.sort_order)
            table = search_query.TABLES[kind]
            found += [(kind, r) for r in rows(
                db, f"SELECT * FROM {table} WHERE {where} ORDER BY {order}", params)]
    except search_query.SearchSyntaxError as error:
        raise InvalidRequest(str(error), field="query", rule="search_syntax") from error
    return found


def article_filter(query: str, locale: str | None = None) -> tuple[list[str], list[Any]]:
    """The WHERE terms of the help center's search: every word of ``query`` in the article's
    title or body (case-insensitive), in ``locale`` when given."""
    where: list[str] = []
    params: list[Any] = []
    for word in query.split() or [query]:
        where.append("(title LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')")
        params.extend([like_pattern(word)] * 2)
    if locale:
        where.append("lower(locale) = lower(?)")
        params.append(locale)
    return where, params
