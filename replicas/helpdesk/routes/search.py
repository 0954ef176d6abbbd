"""The search API: Zendesk's query language over the episode's tickets, users,
organizations and groups (``type:ticket status<solved tags:refund requester:x@y.com
created>2025-01-01 "phrase"``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok
from workgym_core.errors import InvalidRequest

from .. import render
from ..listing import PagingDep, page
from ..rules.search import find
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


FilterType = Annotated[Literal["ticket", "user", "organization", "group"] | None, Query(
    alias="filter[type]", description="Only this type of result.")]


@router.get("/api/v2/search", operation_id="search", summary="Search", response_model=SearchResults)
async def search(episode: EpisodeDep, query: SearchQuery, paging: PagingDep, base: Base,
                 sort_by: SortBy = None, sort_order: SortOrder = None,
                 filter_type: FilterType = None) -> Response:
    """Tickets, users, organizations and groups matching the query, each with its
    result_type; offset paging (page, per_page), at most 1,000 results."""
    found = find(episode.db, query, episode.now(), sort_by, sort_order,
                 filter_type)[:MAX_RESULTS]
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
    return ok({"count": len(find(episode.db, query, episode.now(), filter_type=filter_type))})
