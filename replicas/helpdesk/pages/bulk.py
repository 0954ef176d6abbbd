"""What an agent does to the tickets selected in a view at once (Zendesk's bulk actions)::

    GET  /agent/tickets/bulk?ids=1&ids=2        edit them alike: a status, an assignee (or "Assign
                                                to me"), tags to add (only what is chosen
                                                changes)
    POST /agent/tickets/bulk                    the API's ``update_many`` (``{ticket}`` with
                                                ``?ids=``): one job, each ticket on its own
    GET  /agent/jobs/{job_id}                   a job's results, ticket by ticket
    GET  /agent/tickets/bulk/merge?ids=1&ids=2  merge them into another ticket (?target=), as
    POST /agent/tickets/bulk/merge              the ticket page's merge does, all in one job

The edit is ``changes.update_many`` (the API route's: ``change_of``, ``tickets.update``,
triggers, SLA, the audits, via web); the merge is the ticket page's (``merges.merge_tickets``
and its job).
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends
from replicas.runtime.params import Id

from ..changes import update_many
from ..rules import jobs
from ..rules.common import invalid
from ..schemas import TicketIn
from .common import CALLER, PAGES, STATUS_NAMES, VIA, PageRoute, agents, form, validated
from .tickets import _id, merge_page, merged

router = APIRouter(route_class=PageRoute, include_in_schema=False)

MOST = 100  # tickets a bulk action takes, as update_many does
# The view's checkboxes (none checked: the page says to select some).
SelectedIds = Annotated[list[Id], Query(max_length=MOST)]
IDS = rf"^\d{{1,10}}(,\d{{1,10}}){{0,{MOST - 1}}}$"


class Selected(BaseModel):
    """The selected tickets' ids as a bulk form posts them back (``1,2,3``)."""

    ids: str = Field(pattern=IDS)

    @property
    def numbers(self) -> list[int]:
        return [int(i) for i in self.ids.split(",")]


def _tickets(episode: EpisodeDep, ids: list[int]) -> list[dict[str, Any]]:
    """The selected tickets (each once, in the order selected); an unknown id is a 404,
    none a 422 saying to select some."""
    if not ids:
        raise invalid("ids", "select the tickets first (the boxes in a view's first column)",
                      "ids_required")
    return [get_row(episode.db, "tickets", i, field="ids") for i in dict.fromkeys(ids)]


@router.get("/agent/tickets/bulk")
async def edit_page(request: Request, episode: EpisodeDep,
                    ids: SelectedIds = []) -> Response:  # noqa: B006 - FastAPI copies it
    return PAGES.page(request, "bulk.html", tickets=_tickets(episode, ids),
                      statuses=STATUS_NAMES, agents=agents(episode.db), me=CALLER)


@router.post("/agent/tickets/bulk")
@performs("update_many_tickets")
async def edit(request: Request, episode: EpisodeDep) -> Response:
    given = await form(request)
    ids = validated(Selected, {"ids": given.get("ids", "")}).numbers
    chosen: dict[str, Any] = {"status": given.get("status") or None,
                              "assignee_id": _id(given.get("assignee_id", ""), "assignee_id")}
    chosen = {key: value for key, value in chosen.items() if value is not None}
    if tags := given.get("additional_tags", "").split():
        chosen["additional_tags"] = tags
    sends(request, {"ticket": chosen})
    if not chosen:
        raise invalid("ticket", "choose a status, an assignee or tags to add",
                      "nothing_to_change")
    change = validated(TicketIn, chosen)
    job = update_many(episode.db, dict.fromkeys(ids, change), episode.now(), channel=VIA)
    return redirect(request, f"/agent/jobs/{job['id']}")


@router.get("/agent/jobs/{job_id}")
async def job_page(request: Request, episode: EpisodeDep,
                   job_id: Annotated[str, Path(max_length=64)]) -> Response:
    job = jobs.get(episode.db, job_id)
    return PAGES.page(request, "job.html", job=job, results=orjson.loads(job["results"]))


@router.get("/agent/tickets/bulk/merge")
async def merge_selected_page(request: Request, episode: EpisodeDep,
                              ids: SelectedIds = [],  # noqa: B006 - FastAPI copies it
                              target: Annotated[Id | None, Query()] = None
                              ) -> Response:
    return merge_page(request, episode.db, _tickets(episode, ids), target,
                      "/agent/tickets/bulk/merge")


@router.post("/agent/tickets/bulk/merge")
@performs("merge_tickets")  # the API's ticket is the target, picked in the form
async def merge_selected(request: Request, episode: EpisodeDep) -> Response:
    ids = validated(Selected, {"ids": (await form(request)).get("ids", "")}).numbers
    return await merged(request, episode, [t["id"] for t in _tickets(episode, ids)])
