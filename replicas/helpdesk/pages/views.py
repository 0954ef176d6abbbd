"""The team's views in the workspace::

    GET  /agent/dashboard            the active views, each with how many tickets it shows
    GET  /agent/filters/{view_id}    a view's tickets (id, subject, requester, status,
                                     priority, assignee (a deactivated one said so),
                                     updated), in the view's order or ?sort= / ?order=
                                     another, 30 a ?page=; filtered to an
                                     ?organization=, a ?group= and a ?requester= (email):
                                     Zendesk's view filters
    GET  /agent/filters/{view_id}/play   play mode: the view's (filtered) next ticket not
                                     yet ?played= (ids), opened to work; the view when none

A ticket played is opened with the play's context (``play``, the filters, ``played``): its
editor's submit (or "Skip") comes back here for the next one, as Zendesk's play mode does.
A view's tickets are the API's (``rules.views.view_tickets``: the same conditions, the same
order), as ``GET /api/v2/views/{id}/tickets`` and ``/count`` give them.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, BeforeValidator, Field
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import redirect
from replicas.runtime.params import Id

from ..rules import users
from ..rules.common import invalid
from ..rules.views import view_tickets
from .common import PAGES, STATUS_NAMES, PageRoute, assignees, groups, names

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


@dataclass(frozen=True)
class Filters:
    """A view's filters: its tickets of an organization, in a group, of a requester (by
    email); None or '' is any."""

    organization: int | None = None
    group: int | None = None
    requester: str = ""

    def query(self) -> dict[str, Any]:
        """The filters as a link's query."""
        return {"organization": self.organization, "group": self.group,
                "requester": self.requester}

    def keep(self, db: sqlite3.Connection,
             tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        requester = None
        if self.requester:
            user = users.owner_of(db, "email", self.requester)
            if user is None:
                raise invalid("requester", f"no user has the email {self.requester}",
                              "user_not_found")
            requester = user["id"]
        return [t for t in tickets if self.organization in (None, t["organization_id"])
                and self.group in (None, t["group_id"])
                and requester in (None, t["requester_id"])]


def filters(organization: Filter = None, group: Filter = None,
            requester: Annotated[str, Query(max_length=254)] = "") -> Filters:
    return Filters(organization, group, requester.strip())


FiltersDep = Annotated[Filters, Depends(filters)]
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
async def view_page(request: Request, view_id: ViewId, episode: EpisodeDep, given: FiltersDep,
                    sort: Annotated[SortKey | None, Query()] = None,
                    order: Annotated[Literal["asc", "desc"] | None, Query()] = None,
                    page: Annotated[int, Query(ge=1, le=10_000)] = 1,
                    done: Annotated[Literal["played"] | None, Query()] = None) -> Response:
    db = episode.db
    view = get_row(db, "views", view_id)
    found = given.keep(db, view_tickets(episode, view, sort, order))
    pages = max(1, -(-len(found) // PER_PAGE))
    return PAGES.page(request, "view.html", view=view, tickets=found[
        (page - 1) * PER_PAGE:page * PER_PAGE], total=len(found), page=page, pages=pages,
        sort=sort, order=order, columns=COLUMNS, people=names(db), assignees=assignees(db),
        status_names=STATUS_NAMES, filters=given,
        organizations=rows(db, "SELECT id, name FROM organizations ORDER BY name, id"),
        groups=groups(db), notice="No more tickets to play in this view." if done else None)


@router.get("/agent/filters/{view_id}/play")
async def play(request: Request, view_id: ViewId, episode: EpisodeDep,
               given: FiltersDep, played: Played = "",
               done: Annotated[Literal["updated"] | None, Query()] = None) -> Response:
    """The next ticket to play (``done``: the last one was just updated, as it says)."""
    through = {int(i) for i in played.split(",") if i}
    view = get_row(episode.db, "views", view_id)
    left = [t for t in given.keep(episode.db, view_tickets(episode, view))
            if t["id"] not in through]
    if not left:
        return redirect(request, f"/agent/filters/{view_id}", **given.query(), done="played")
    return redirect(request, f"/agent/tickets/{left[0]['id']}", play=view_id,
                    **given.query(), played=played, done=done)
