"""The team's views in the workspace::

    GET  /agent/dashboard            the active views, each with how many tickets it shows
    GET  /agent/filters/{view_id}    a view's tickets (id, subject, requester, status,
                                     priority, assignee, updated), in the view's order or
                                     ?sort= / ?order= another, 30 a ?page=

A view's tickets are the API's (``rules.views.view_tickets``: the same conditions, the same
order), as ``GET /api/v2/views/{id}/tickets`` and ``/count`` give them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id

from ..rules.views import view_tickets
from .common import PAGES, STATUS_NAMES, PageRoute, names

router = APIRouter(route_class=PageRoute, include_in_schema=False)

PER_PAGE = 30
ViewId = Annotated[Id, Path()]
SortKey = Literal["id", "subject", "status", "priority", "updated_at", "created_at"]
# The columns a view's table shows: (sort key or None, heading).
COLUMNS = (("id", "ID"), ("subject", "Subject"), (None, "Requester"), ("status", "Status"),
           ("priority", "Priority"), (None, "Assignee"), ("updated_at", "Updated"))


@router.get("/agent/dashboard")
async def dashboard(request: Request, episode: EpisodeDep) -> Response:
    views = [{**v, "count": len(view_tickets(episode, v))}
             for v in rows(episode.db, "SELECT * FROM views WHERE active ORDER BY position, id")]
    return PAGES.page(request, "dashboard.html", views=views)


@router.get("/agent/filters/{view_id}")
async def view_page(request: Request, view_id: ViewId, episode: EpisodeDep,
                    sort: Annotated[SortKey | None, Query()] = None,
                    order: Annotated[Literal["asc", "desc"] | None, Query()] = None,
                    page: Annotated[int, Query(ge=1, le=10_000)] = 1) -> Response:
    view = get_row(episode.db, "views", view_id)
    shown = view_tickets(episode, view, sort, order)
    pages = max(1, -(-len(shown) // PER_PAGE))
    return PAGES.page(request, "view.html", view=view, tickets=shown[
        (page - 1) * PER_PAGE:page * PER_PAGE], total=len(shown), page=page, pages=pages,
        sort=sort, order=order, columns=COLUMNS, people=names(episode.db),
        status_names=STATUS_NAMES)
