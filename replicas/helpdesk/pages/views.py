"""The team's views in the workspace::

    GET  /agent/dashboard            the active views, each with how many tickets it shows
    GET  /agent/filters/{view_id}    a view's tickets (id, subject, requester, status,
                                     priority, assignee, updated), in the view's order or
                                     ?sort= / ?order= another, 30 a ?page=; filtered to an
                                     ?organization= and a ?group= (Zendesk's view filters)
    GET  /agent/filters/{view_id}/play   play mode: the view's (filtered) next ticket not
                                     yet ?played= (ids), opened to work; the view when none

A ticket played is opened with the play's context (``play``, the filters, ``played``): its
editor's submit (or "Skip") comes back here for the next one, as Zendesk's play mode does.
A view's tickets are the API's (``rules.views.view_tickets``: the same conditions, the same
order), as ``GET /api/v2/views/{id}/tickets`` and ``/count`` give them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, BeforeValidator, Field
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.episode import Episode
from replicas.runtime.pages import redirect
from replicas.runtime.params import Id

from ..rules.views import view_tickets
from .common import PAGES, STATUS_NAMES, PageRoute, groups, names

router = APIRouter(route_class=PageRoute, include_in_schema=False)

PER_PAGE = 30
ViewId = Annotated[Id, Path()]
# A filter's select sends "" for any.
Filter = Annotated[Id | None, BeforeValidator(lambda value: value or None), Query()]
PLAYED = r"^(\d{1,10}(,\d{1,10}){0,199})?$"  # the ids a play has been through
Played = Annotated[str, Query(pattern=PLAYED, max_length=2400)]


class PlayedIds(BaseModel):
    """The ids a play has been through, as the editor posts them back."""

    played: str = Field(pattern=PLAYED, max_length=2400)
SortKey = Literal["id", "subject", "status", "priority", "updated_at", "created_at"]
# The columns a view's table shows: (sort key or None, heading).
COLUMNS = (("id", "ID"), ("subject", "Subject"), (None, "Requester"), ("status", "Status"),
           ("priority", "Priority"), (None, "Assignee"), ("updated_at", "Updated"))


def shown(episode: Episode, view: dict[str, Any], organization: int | None,
          group: int | None, sort: str | None = None,
          order: str | None = None) -> list[dict[str, Any]]:
    """The view's tickets (the API's), those of the organization and group when given."""
    return [t for t in view_tickets(episode, view, sort, order)
            if organization in (None, t["organization_id"]) and group in (None, t["group_id"])]


@router.get("/agent/dashboard")
async def dashboard(request: Request, episode: EpisodeDep) -> Response:
    views = [{**v, "count": len(view_tickets(episode, v))}
             for v in rows(episode.db, "SELECT * FROM views WHERE active ORDER BY position, id")]
    return PAGES.page(request, "dashboard.html", views=views)


@router.get("/agent/filters/{view_id}")
async def view_page(request: Request, view_id: ViewId, episode: EpisodeDep,
                    sort: Annotated[SortKey | None, Query()] = None,
                    order: Annotated[Literal["asc", "desc"] | None, Query()] = None,
                    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
                    organization: Filter = None, group: Filter = None,
                    done: Annotated[Literal["played"] | None, Query()] = None) -> Response:
    db = episode.db
    view = get_row(db, "views", view_id)
    found = shown(episode, view, organization, group, sort, order)
    pages = max(1, -(-len(found) // PER_PAGE))
    return PAGES.page(request, "view.html", view=view, tickets=found[
        (page - 1) * PER_PAGE:page * PER_PAGE], total=len(found), page=page, pages=pages,
        sort=sort, order=order, columns=COLUMNS, people=names(db),
        status_names=STATUS_NAMES, organization=organization, group=group,
        organizations=rows(db, "SELECT id, name FROM organizations ORDER BY name, id"),
        groups=groups(db), notice="No more tickets to play in this view." if done else None)


@router.get("/agent/filters/{view_id}/play")
async def play(request: Request, view_id: ViewId, episode: EpisodeDep,
               organization: Filter = None, group: Filter = None,
               played: Played = "",
               done: Annotated[Literal["updated"] | None, Query()] = None) -> Response:
    """The next ticket to play (``done``: the last one was just updated, as it says)."""
    through = {int(i) for i in played.split(",") if i}
    left = [t for t in shown(episode, get_row(episode.db, "views", view_id), organization,
                             group) if t["id"] not in through]
    if not left:
        return redirect(request, f"/agent/filters/{view_id}", organization=organization,
                        group=group, done="played")
    return redirect(request, f"/agent/tickets/{left[0]['id']}", play=view_id,
                    organization=organization, group=group, played=played, done=done)
