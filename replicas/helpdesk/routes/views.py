"""Views: saved ticket lists (conditions and a sort), as agents work their queues."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..listing import PagingDep, page, sideloads, table_page
from ..rules.views import view_tickets
from ..schemas import (
    Tickets,
    ViewCount,
    ViewResult,
    ViewRows,
    Views,
)
from .common import Base, Include

router = APIRouter(tags=["views"])

ViewId = Annotated[Id, Path(description="Id of the view.")]


def _ticket(row: dict[str, Any], base: str) -> dict[str, Any]:
    return render.ticket({**row, "tags": orjson.dumps(row["tags"]).decode()}, base)


@router.get("/api/v2/views", operation_id="list_views", summary="List views", response_model=Views)
async def list_views(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The team's views (saved ticket lists), by position."""
    return ok(table_page(episode.db, paging, "views", [], [], "position, id",
                         lambda r: render.view(r, base)))


@router.get("/api/v2/views/active", operation_id="list_active_views",
            summary="List active views", response_model=Views)
async def active_views(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The active views, by position."""
    return ok(table_page(episode.db, paging, "views", ["active"], [], "position, id",
                         lambda r: render.view(r, base)))


@router.get("/api/v2/views/{view_id}", operation_id="show_view", summary="Show a view",
            response_model=ViewResult)
async def show_view(view_id: ViewId, episode: EpisodeDep, base: Base) -> Response:
    """A view: its conditions (all / any) and its sort."""
    return ok({"view": render.view(get_row(episode.db, "views", view_id), base)})


@router.get("/api/v2/views/{view_id}/count", operation_id="count_view",
            summary="Count a view's tickets", response_model=ViewCount)
async def count_view(view_id: ViewId, episode: EpisodeDep, base: Base) -> Response:
    """How many tickets the view shows now."""
    n = len(view_tickets(episode, get_row(episode.db, "views", view_id)))
    return ok({"view_count": {"view_id": view_id, "url": f"{base}/api/v2/views/{view_id}/"
                              "count.json", "value": n, "pretty": str(n), "fresh": True,
                              "channel": None, "poll_wait": 30, "refresh": "normal"}})


@router.get("/api/v2/views/{view_id}/tickets", operation_id="list_view_tickets",
            summary="List a view's tickets", response_model=Tickets)
async def list_view_tickets(view_id: ViewId, episode: EpisodeDep, paging: PagingDep,
                            base: Base, include: Include = None) -> Response:
    """The tickets the view shows, in its order, paged."""
    shown = view_tickets(episode, get_row(episode.db, "views", view_id))
    items = [_ticket(t, base) for t in shown[paging.offset:paging.offset + paging.size]]
    return ok({**page(paging, "tickets", items, len(shown)),
               **sideloads(episode.db, include, items, base)})


@router.get("/api/v2/views/{view_id}/execute", operation_id="execute_view",
            summary="Execute a view", response_model=ViewRows)
async def execute_view(view_id: ViewId, episode: EpisodeDep, paging: PagingDep,
                       base: Base, include: Include = None) -> Response:
    """The view as a table: one row per ticket with the view's columns, paged."""
    shown = view_tickets(episode, get_row(episode.db, "views", view_id))
    cut = shown[paging.offset:paging.offset + paging.size]
    columns = [{"id": c, "title": c.replace("_", " ").capitalize()}
               for c in ("subject", "requester", "status", "priority", "updated",
                         "sla_next_breach_at")]
    found = [{"ticket": {"id": t["id"], "subject": t["subject"], "status": t["status"],
                         "url": f"{base}/api/v2/tickets/{t['id']}.json"},
              "subject": t["subject"], "requester_id": t["requester_id"],
              "status": t["status"], "priority": t["priority"], "updated": t["updated_at"],
              "sla_next_breach_at": t["sla_next_breach_at"], "group_id": t["group_id"],
              "assignee_id": t["assignee_id"]} for t in cut]
    return ok({**page(paging, "rows", found, len(shown)), "columns": columns,
               **sideloads(episode.db, include, found, base)})
