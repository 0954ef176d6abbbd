"""The workspace's search page::

    GET /agent/search?q=...              every kind's first results, grouped: tickets, users,
                                         organizations (each kind's count, a link to the rest)
    GET /agent/search?q=...&type=user    one kind's results, paged (page=2, ...)

The query is the search API's (``rules/search.find``: Zendesk's language, ``order_number:A-123``,
``requester:x@y.com``, ``type:user``, free words), its results in the API's order; a malformed
query is refused as the API refuses it, saying why.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep

from ..rules.search import find
from .common import PAGES, PageRoute

router = APIRouter(route_class=PageRoute, include_in_schema=False)

PER_PAGE = 25
# Groups only when a query finds some (type:group): they have no page of their own.
KINDS = (("ticket", "Tickets"), ("user", "Users"), ("organization", "Organizations"),
         ("group", "Groups"))
Kind = Literal["ticket", "user", "organization", "group"]


def _names(episode: EpisodeDep, table: str, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {r["id"]: r["name"] for r in rows(
        episode.db, f"SELECT id, name FROM {table} WHERE id IN ({marks})", sorted(ids))}


@router.get("/agent/search")
async def search_page(
    request: Request, episode: EpisodeDep,
    q: Annotated[str, Query(max_length=1000)] = "",
    type: Annotated[Kind | None, Query()] = None,  # noqa: A002 - the page's own parameter
    page: Annotated[int, Query(ge=1, le=1000)] = 1,
) -> Response:
    query = q.strip()
    found = find(episode.db, query, episode.now(), filter_type=type) if query else []
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind, _ in KINDS}
    for kind, row in found:
        by_kind[kind].append(row)
    start = (page - 1) * PER_PAGE if type else 0
    shown = {kind: items[start:start + PER_PAGE] for kind, items in by_kind.items()}
    requesters = _names(episode, "users", {r["requester_id"] for r in shown["ticket"]})
    companies = _names(episode, "organizations",
                       {r["organization_id"] for r in shown["user"] if r["organization_id"]})
    groups = [{"kind": kind, "title": title, "count": len(by_kind[kind]),
               "items": shown[kind]} for kind, title in KINDS
              if kind == type or not type and (kind != "group" or by_kind[kind])]
    pages = -(-len(by_kind[type]) // PER_PAGE) if type else 1
    return PAGES.page(request, "search.html", title=f"Search results for {query}"
                      if query else "Search", q=query, type=type, page=page, pages=pages,
                      groups=groups, total=len(found), requesters=requesters,
                      companies=companies)
