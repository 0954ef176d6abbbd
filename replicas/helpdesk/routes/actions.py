"""What an agent does to tickets beyond an update: merge them (a job), preview a macro's
effect to save with an update, poll a job, read a ticket's SLA metric events."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import orjson
from annotated_types import Interval
from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.clock import iso
from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import CANONICAL, MAX_ID, Id
from replicas.runtime.responses import ok

from .. import render
from ..listing import PagingDep, table_page
from ..rules import jobs, macros, merges
from ..schemas import (
    JobStatusResult,
    MacroPreview,
    MergeBody,
    MetricEvents,
)
from .common import Base, TicketId

router = APIRouter(tags=["tickets"])

MacroId = Annotated[Id, Path(description="Id of the macro.")]
JobId = Annotated[str, Path(max_length=64, description="Id of the job status.")]


@router.post("/api/v2/tickets/{ticket_id}/merge", operation_id="merge_tickets",
             summary="Merge tickets into this one", response_model=JobStatusResult)
async def merge(ticket_id: TicketId, body: MergeBody, episode: EpisodeDep,
                base: Base) -> Response:
    """Merge the tickets in `ids` into this (target) ticket, as a job: each source is closed
    (tagged closed_by_merge) with a comment naming the target, and the target gets a comment
    naming the sources (comments private unless *_is_public). Sources must be less than
    solved and have the target's requester."""
    db, now = episode.db, episode.now()
    results = merges.merge_tickets(
        db, target_id=ticket_id, source_ids=body.ids, target_comment=body.target_comment,
        source_comment=body.source_comment, target_public=body.target_comment_is_public,
        source_public=body.source_comment_is_public, now=now)
    return ok({"job_status": render.job_status(jobs.record(db, "merge", results, now), base)})


@router.get("/api/v2/job_statuses/{job_id}", operation_id="show_job_status",
            summary="Show a job status", response_model=JobStatusResult)
async def job_status(job_id: JobId, episode: EpisodeDep, base: Base) -> Response:
    """A bulk job's status and per-item results."""
    return ok({"job_status": render.job_status(jobs.get(episode.db, job_id), base)})


def _result(ticket: dict[str, Any], comment: dict[str, Any] | None) -> dict[str, Any]:
    if comment is not None:
        ticket["comment"] = {**comment, "scoped_body": [["channel:all", comment["body"]]]}
    return {"result": {"ticket": ticket}}


@router.get("/api/v2/tickets/{ticket_id}/macros/{macro_id}/apply",
            operation_id="show_ticket_after_macro", summary="Preview a macro on a ticket",
            response_model=MacroPreview)
async def apply_to_ticket(ticket_id: TicketId, macro_id: MacroId, episode: EpisodeDep,
                          base: Base) -> Response:
    """What the ticket would be after the macro: all its attributes with the macro's changes,
    and the comment it would add. Nothing is saved: review it, then save it with
    PUT /api/v2/tickets/{id} (fields and comment)."""
    db = episode.db
    after, _, comment = macros.effect(db, macro_id, ticket_id, episode.now())
    ticket = render.ticket({**after, "tags": orjson.dumps(after["tags"]).decode()}, base)
    return ok(_result(ticket, comment))


@router.get("/api/v2/macros/{macro_id}/apply", operation_id="show_macro_changes",
            summary="Show the changes a macro makes", response_model=MacroPreview)
async def apply_macro(macro_id: MacroId, episode: EpisodeDep) -> Response:
    """The ticket attributes the macro sets and the comment it adds, on no ticket."""
    _, changes, comment = macros.effect(episode.db, macro_id, None, episode.now())
    return ok(_result(dict(changes), comment))


@router.get("/api/v2/incremental/ticket_metric_events",
            operation_id="list_ticket_metric_events", summary="Ticket metric events since",
            response_model=MetricEvents)
async def incremental_metric_events(
        episode: EpisodeDep, paging: PagingDep,
        start_time: Annotated[int, Interval(ge=0, le=MAX_ID), CANONICAL, Query(
            description="Unix time: events at or after it.")]) -> Response:
    """Every ticket's SLA metric events at or after start_time (Zendesk's incremental
    export), oldest first: apply_sla, activate, pause, fulfill, breach."""
    since = iso(datetime.fromtimestamp(start_time, UTC))
    return ok(table_page(episode.db, paging, "ticket_metric_events", ["time >= ?"], [since],
                         "time, id", render.metric_event))


@router.get("/api/v2/tickets/{ticket_id}/metric_events", operation_id="list_metric_events",
            summary="List a ticket's SLA metric events", response_model=MetricEvents)
async def metric_events(ticket_id: TicketId, episode: EpisodeDep,
                        paging: PagingDep) -> Response:
    """The ticket's SLA clock (Zendesk's ticket metric events): per metric (reply_time,
    requester_wait_time) and instance, apply_sla (the policy and target), activate, pause,
    fulfill, and breach (recorded ahead at the moment the target runs out; deleted when
    met in time)."""
    get_row(episode.db, "tickets", ticket_id)
    return ok(table_page(episode.db, paging, "ticket_metric_events", ["ticket_id = ?"],
                         [ticket_id], "id", render.metric_event))
