"""The search API: Zendesk's query language over the episode's tickets, users,
organizations and groups (``type:ticket status<solved tags:refund requester:x@y.com
created>2025-01-01 "phrase"``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime import budget
from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok
from workgym_core.errors import InvalidRequest

from .. import render, search_query
from ..listing import PagingDep, page
from ..rules.fields import custom_columns
from ..schemas import (
    Count,
    SearchResults,
)
from .common import Base

router = APIRouter(tags=["search"])

MAX_RESULTS = 1000  # Zendesk returns at most 1,000 results per query
SearchQuery = Annotated[str, Query(min_length=1, max_length=1000, description=(
    "Zendesk's query: key:value terms (status, priority, ticket_type, tags, via, requester, "
    "assignee, group, organization, subject, description, comment, created, updated, "
    "solved, due_date, order_number / custom_field_<id>, type:ticket|user|organization|"
    "group; for users role, email, name, phone), key<value / key>value for ordered keys "
    "and dates (YYYY-MM-DD, or 2days / 4hours ago), -key:value to exclude, free words or "
    "\"quoted phrases\"."))]
SortBy = Annotated[Literal["created_at", "updated_at", "priority", "status", "ticket_type"]
                   | None, Query(description="Sort key (default: relevance).")]
SortOrder = Annotated[Literal["asc", "desc"] | None, Query(description="asc or desc "
                                                           "(default desc).")]
_RENDER = {"ticket": render.ticket, "user": render.user, "organization": render.organization,
           "group": render.group}


def _found(episode: EpisodeDep, query: str, sort_by: str | None, sort_order: str | None,
           filter_type: str | None) -> list[tuple[str, dict[str, Any]]]:
    try:
        parsed = search_query.parse(query if not filter_type or "type:" in query
                                    else f"{query} type:{filter_type}")
        most = budget.max_query_terms()
        if most is not None and (n := search_query.terms(parsed)) > most:
            raise InvalidRequest(f"the query has {n} terms (key:value terms and free words); "
                                 f"at most {most} are allowed", field="query",
                                 rule="too_many_terms")
        by_id = {fid: column for column, fid in custom_columns().items()}
        found: list[tuple[str, dict[str, Any]]] = []
        for kind in search_query.kinds(parsed):
            where, params = search_query.compile(parsed, kind, now=episode.now(),
                                                 custom_fields=by_id)
            order = search_query.order_by(kind, sort_by or parsed.order_by,
                                          sort_order or parsed.sort_order)
            table = search_query.TABLES[kind]
            found += [(kind, r) for r in rows(
                episode.db, f"SELECT * FROM {table} WHERE {where} ORDER BY {order}", params)]
    except search_query.SearchSyntaxError as error:
        raise InvalidRequest(str(error), field="query", rule="search_syntax") from error
    return found


FilterType = Annotated[Literal["ticket", "user", "organization", "group"] | None, Query(
    alias="filter[type]", description="Only this type of result.")]


@router.get("/api/v2/search", operation_id="search", summary="Search", response_model=SearchResults)
async def search(episode: EpisodeDep, query: SearchQuery, paging: PagingDep, base: Base,
                 sort_by: SortBy = None, sort_order: SortOrder = None,
                 filter_type: FilterType = None) -> Response:
    """Tickets, users, organizations and groups matching the query, each with its
    result_type; offset paging (page, per_page), at most 1,000 results."""
    found = _found(episode, query, sort_by, sort_order, filter_type)[:MAX_RESULTS]
    if paging.offset >= MAX_RESULTS:
        raise InvalidRequest("search results stop at 1,000: narrow the query",
                             field="page", rule="search_limit")
    items = [{**_RENDER[kind](r, base), "result_type": kind}
             for kind, r in found[paging.offset:paging.offset + paging.size]]
    # Search pages by offset only.
    return ok(page(replace(paging, cursor=False), "results", items, len(found)))


@router.get("/api/v2/search/count", operation_id="search_count", summary="Count search "
            "results", response_model=Count)
async def count(episode: EpisodeDep, query: SearchQuery,
                filter_type: FilterType = None) -> Response:
    """How many results the query has."""
    return ok({"count": len(_found(episode, query, None, None, filter_type))})
