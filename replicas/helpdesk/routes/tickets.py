"""Tickets: list, show, show many, create (with the first comment), create many (a job),
update (fields and a comment in one request), update many (a job), and a ticket's comments,
audits, tags."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok
from workgym_core.errors import Conflict

from .. import render
from ..changes import change_of
from ..changes import update_many as update_many_tickets
from ..listing import PagingDep, sideloads, table_page
from ..rules import jobs, sla, tickets, uploads
from ..rules.common import invalid, tags_of
from ..schemas import (
    Audits,
    Comments,
    CreateManyBody,
    JobStatusResult,
    Tags,
    TagsBody,
    TicketAudit,
    TicketBody,
    TicketIn,
    TicketResult,
    Tickets,
    UpdateManyBody,
)
from .common import Base, Ids, Include, OrganizationId, TicketId, UserId, ids_param

router = APIRouter(tags=["tickets"])

# Zendesk's description of a safe update's 409 (ZD/ticketing/tickets/tickets/
# #protecting-against-ticket-update-collisions).
SAFE_UPDATE_CONFLICT = ("Safe Update prevented the update due to outdated ticket data. "
                        "Please fetch the latest ticket data and try again.")
SortBy = Annotated[Literal["id", "created_at", "updated_at", "status", "priority"], Query(
    description="Offset paging: the sort key.")]
SortOrder = Annotated[Literal["asc", "desc"], Query(description="asc or desc.")]


def ticket_json(db: sqlite3.Connection, row: dict[str, Any], base: str, include: str | None,
                now: datetime) -> dict[str, Any]:
    out = render.ticket(row, base)
    if include and "slas" in include.split(","):
        out["slas"] = {"policy_metrics": sla.policy_metrics(db, row["id"], now)}
    return out


def tickets_page(episode: EpisodeDep, paging: PagingDep, base: str, include: str | None,
                 where: list[str], params: list[Any], sort_by: str = "id",
                 sort_order: str = "asc") -> Response:
    db, now = episode.db, episode.now()
    order = f"{sort_by} {sort_order.upper()}, id {sort_order.upper()}"
    found = table_page(db, paging, "tickets", where, params, order,
                       lambda row: ticket_json(db, row, base, include, now))
    return ok({**found, **sideloads(db, include, found["tickets"], base)})


@router.get("/api/v2/tickets", operation_id="list_tickets", summary="List tickets",
            response_model=Tickets)
async def list_tickets(episode: EpisodeDep, paging: PagingDep, base: Base,
                       include: Include = None, sort_by: SortBy = "id",
                       sort_order: SortOrder = "asc") -> Response:
    """Every ticket, paged (offset: page/per_page; cursor: page[size]/page[after]). To find
    tickets by status, requester, tag, order number or text, use GET /api/v2/search."""
    return tickets_page(episode, paging, base, include, [], [], sort_by, sort_order)


@router.get("/api/v2/tickets/show_many", operation_id="show_many_tickets",
            summary="Show many tickets", response_model=Tickets)
async def show_many(episode: EpisodeDep, ids: Ids, base: Base,
                    include: Include = None) -> Response:
    """The tickets with these ids (unknown ids are left out)."""
    wanted = ids_param(ids)
    db, now = episode.db, episode.now()
    found = rows(db, f"SELECT * FROM tickets WHERE id IN ({','.join('?' * len(wanted))}) "
                 "ORDER BY id", wanted)
    items = [ticket_json(db, r, base, include, now) for r in found]
    return ok({"tickets": items, **sideloads(db, include, items, base)})


@router.get("/api/v2/tickets/{ticket_id}", operation_id="show_ticket", summary="Show a ticket",
            response_model=TicketResult)
async def show_ticket(ticket_id: TicketId, episode: EpisodeDep, base: Base,
                      include: Include = None) -> Response:
    """One ticket: status, assignment, tags, custom fields (order number, product, contact
    reason); include=slas adds its SLA metrics (stage and breach time)."""
    db = episode.db
    item = ticket_json(db, get_row(db, "tickets", ticket_id), base, include, episode.now())
    return ok({"ticket": item, **sideloads(db, include, [item], base)})


def _saved(db: sqlite3.Connection, ticket: dict[str, Any], audit: dict[str, Any], base: str,
           now: datetime) -> dict[str, Any]:
    return {"ticket": ticket_json(db, ticket, base, None, now), "audit": render.audit(audit)}


@router.post("/api/v2/tickets", operation_id="create_ticket", summary="Create a ticket",
             status_code=201, response_model=TicketAudit)
async def create_ticket(body: TicketBody, episode: EpisodeDep, base: Base) -> Response:
    """A new ticket: its comment is the description (required); the requester by
    requester_id or requester {email, name} (a new end user if the email is unknown);
    via_followup_source_id makes a follow-up of a closed ticket. Triggers run on it."""
    db, now = episode.db, episode.now()
    ticket, audit = tickets.create(db, change_of(db, body.ticket, None, now), now)
    return ok(_saved(db, ticket, audit, base, now), 201)


@router.post("/api/v2/tickets/create_many", operation_id="create_many_tickets",
             summary="Create many tickets", response_model=JobStatusResult)
async def create_many(body: CreateManyBody, episode: EpisodeDep, base: Base) -> Response:
    """Up to 100 tickets in one request, as a job: each is created as POST /tickets creates
    one (its comment the description; one refusal does not stop the others). The job's
    results give each one's index in the request and its new id."""
    db, now = episode.db, episode.now()

    def run(index: int) -> dict[str, Any]:
        ticket, _ = tickets.create(db, change_of(db, body.tickets[index], None, now), now)
        return {"id": ticket["id"]}

    results = jobs.each(db, range(len(body.tickets)), run, "create", "Created", key="index")
    return ok({"job_status": render.job_status(jobs.record(db, "create_many", results, now),
                                               base)})


@router.put("/api/v2/tickets/update_many", operation_id="update_many_tickets",
            summary="Update many tickets", response_model=JobStatusResult)
async def update_many(body: UpdateManyBody, episode: EpisodeDep, base: Base,
                      ids: Annotated[str | None, Query(max_length=1200, description=(
                          "With a {ticket} body: the tickets to change alike."))] = None
                      ) -> Response:
    """Bulk update as a job: ?ids=1,2 with {"ticket": {...}} changes them alike;
    {"tickets": [{id, ...}]} changes each its own way. Each ticket is updated on its own
    (one refusal does not stop the others): see the job's results."""
    db, now = episode.db, episode.now()
    changes: dict[int, TicketIn]
    if body.tickets is not None:
        changes = {t.id: t for t in body.tickets}
    elif body.ticket is not None and ids is not None:
        changes = dict.fromkeys(ids_param(ids), body.ticket)
    else:
        raise invalid("tickets", "send {tickets: [...]}, or {ticket: {...}} with ?ids=",
                      "update_many_body")
    return ok({"job_status": render.job_status(update_many_tickets(db, changes, now), base)})


@router.put("/api/v2/tickets/{ticket_id}", operation_id="update_ticket",
            summary="Update a ticket", response_model=TicketAudit)
async def update_ticket(ticket_id: TicketId, body: TicketBody, episode: EpisodeDep,
                        base: Base) -> Response:
    """Change fields and add a comment in one request ({"ticket": {"status": "solved",
    "comment": {"body": "...", "public": true}}}). A public comment is emailed to the
    requester; public false is an internal note. Only the attributes sent change; tags
    replaces all tags (additional_tags / remove_tags add and remove). Triggers run after."""
    db, now = episode.db, episode.now()
    current = get_row(db, "tickets", ticket_id)
    if body.ticket.safe_update and body.ticket.updated_stamp not in (None,
                                                                       current["updated_at"]):
        raise Conflict(SAFE_UPDATE_CONFLICT, code="UpdateConflict", field="updated_stamp")
    ticket, audit = tickets.update(db, ticket_id, change_of(db, body.ticket, current, now), now)
    return ok(_saved(db, ticket, audit, base, now))


@router.get("/api/v2/tickets/{ticket_id}/comments", operation_id="list_ticket_comments",
            summary="List a ticket's comments", response_model=Comments)
async def list_comments(ticket_id: TicketId, episode: EpisodeDep, paging: PagingDep,
                        base: Base, include: Include = None,
                        sort_order: SortOrder = "asc") -> Response:
    """The conversation, oldest first: the requester's messages, agents' public replies
    and internal notes (public false). Comments are added through an update."""
    db = episode.db
    ticket = get_row(db, "tickets", ticket_id)
    staff = {r["id"] for r in rows(db, "SELECT id FROM users WHERE role != 'end-user'")}
    files = uploads.by_comment(db, ticket_id)
    order = f"created_at {sort_order.upper()}, id {sort_order.upper()}"
    found = table_page(db, paging, "comments", ["ticket_id = ?"], [ticket_id], order,
                       lambda c: render.comment(c, "api" if c["author_id"] == 1 else (
                           "web" if c["author_id"] in staff else ticket["channel"]),
                           files.get(c["id"], []), base))
    return ok({**found, **sideloads(db, include, found["comments"], base)})


@router.get("/api/v2/tickets/{ticket_id}/audits", operation_id="list_ticket_audits",
            summary="List a ticket's audits", response_model=Audits)
async def list_audits(ticket_id: TicketId, episode: EpisodeDep, paging: PagingDep,
                      base: Base, include: Include = None) -> Response:
    """Who changed what on the ticket, when and through which channel (api, email, rule:
    a trigger or automation), oldest first: each audit's events (Create, Change, Comment,
    Notification)."""
    db = episode.db
    get_row(db, "tickets", ticket_id)
    found = table_page(db, paging, "audits", ["ticket_id = ?"], [ticket_id], "id",
                       render.audit)
    return ok({**found, **sideloads(db, include, found["audits"], base)})


@router.get("/api/v2/tickets/{ticket_id}/tags", operation_id="list_ticket_tags",
            summary="List a ticket's tags", response_model=Tags)
async def list_tags(ticket_id: TicketId, episode: EpisodeDep) -> Response:
    """The ticket's tags."""
    return ok({"tags": tags_of(get_row(episode.db, "tickets", ticket_id))})


def _tags(episode: EpisodeDep, ticket_id: int, tags: list[str]) -> Response:
    db, now = episode.db, episode.now()
    ticket, _ = tickets.update(db, ticket_id, tickets.Change(values={"tags": tags}), now)
    return ok({"tags": tags_of(ticket)})


@router.put("/api/v2/tickets/{ticket_id}/tags", operation_id="add_ticket_tags",
            summary="Add tags to a ticket", response_model=Tags)
async def add_tags(ticket_id: TicketId, body: TagsBody, episode: EpisodeDep) -> Response:
    """Adds the tags (lowercased, as stored); the ticket's tags after."""
    current = tags_of(get_row(episode.db, "tickets", ticket_id))
    return _tags(episode, ticket_id, [*current, *body.tags])


@router.post("/api/v2/tickets/{ticket_id}/tags", operation_id="set_ticket_tags",
             summary="Set a ticket's tags", response_model=Tags)
async def set_tags(ticket_id: TicketId, body: TagsBody, episode: EpisodeDep) -> Response:
    """Replaces all the ticket's tags."""
    return _tags(episode, ticket_id, list(body.tags))


@router.delete("/api/v2/tickets/{ticket_id}/tags", operation_id="remove_ticket_tags",
               summary="Remove tags from a ticket", response_model=Tags)
async def remove_tags(ticket_id: TicketId, body: TagsBody, episode: EpisodeDep) -> Response:
    """Removes the tags."""
    gone = {t.lower() for t in body.tags}
    current = tags_of(get_row(episode.db, "tickets", ticket_id))
    return _tags(episode, ticket_id, [t for t in current if t not in gone])


@router.get("/api/v2/users/{user_id}/tickets/requested", operation_id="list_requested_tickets",
            summary="List a user's requested tickets", response_model=Tickets)
async def requested(user_id: UserId, episode: EpisodeDep, paging: PagingDep, base: Base,
                    include: Include = None) -> Response:
    """The tickets the user asked for (their requester), any status."""
    get_row(episode.db, "users", user_id)
    return tickets_page(episode, paging, base, include, ["requester_id = ?"], [user_id])


@router.get("/api/v2/users/{user_id}/tickets/assigned", operation_id="list_assigned_tickets",
            summary="List an agent's assigned tickets", response_model=Tickets)
async def assigned(user_id: UserId, episode: EpisodeDep, paging: PagingDep, base: Base,
                   include: Include = None) -> Response:
    """The tickets assigned to the agent, any status."""
    get_row(episode.db, "users", user_id)
    return tickets_page(episode, paging, base, include, ["assignee_id = ?"], [user_id])


@router.get("/api/v2/organizations/{organization_id}/tickets",
            operation_id="list_organization_tickets", summary="List an organization's tickets",
            response_model=Tickets)
async def organization_tickets(organization_id: OrganizationId, episode: EpisodeDep,
                               paging: PagingDep, base: Base,
                               include: Include = None) -> Response:
    """The tickets of the organization's people."""
    get_row(episode.db, "organizations", organization_id)
    return tickets_page(episode, paging, base, include, ["organization_id = ?"],
                        [organization_id])


