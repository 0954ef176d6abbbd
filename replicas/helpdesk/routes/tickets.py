"""Tickets: list/search, read, update, comments, merge, macros, satisfaction ratings."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.clock import iso
from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import (
    DEFAULT_LIMIT,
    Filters,
    IsoTime,
    Limit,
    Offset,
    Page,
    Q,
    page,
)
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules, schemas
from ..schemas import (
    Channel,
    CommentCreate,
    CommentOut,
    MergeRequest,
    Priority,
    SatisfactionRatingOut,
    TicketOut,
    TicketStatus,
    TicketType,
    TicketUpdate,
)

router = APIRouter(tags=["tickets"])

TicketId = Annotated[Id, Path(description="Id of the ticket.")]
MacroId = Annotated[Id, Path(description="Id of the macro.")]
_SORTS = {
    "id": "id",
    "-id": "id DESC",
    "created_at": "created_at, id",
    "-created_at": "created_at DESC, id DESC",
    "updated_at": "updated_at, id",
    "-updated_at": "updated_at DESC, id DESC",
    "sla_due_at": "sla_due_at IS NULL, sla_due_at, id",
}
_UNSOLVED = "status IN ('new', 'open', 'pending', 'on-hold')"


@router.get(
    "/tickets",
    operation_id="list_tickets",
    summary="List and search tickets",
    response_model=Page[TicketOut],
)
async def list_tickets(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    status: Annotated[
        TicketStatus | None, Query(description="Only tickets in this status.")
    ] = None,
    priority: Annotated[Priority | None, Query(description="Only this priority.")] = None,
    type: Annotated[TicketType | None, Query(description="Only this ticket type.")] = None,
    channel: Annotated[Channel | None, Query(description="Only this channel.")] = None,
    requester_id: Annotated[Id | None, Query(description="Only this requester's.")] = None,
    assignee_id: Annotated[
        Id | None, Query(description="Only assigned to this agent.")
    ] = None,
    group_id: Annotated[Id | None, Query(description="Only routed to this group.")] = None,
    organization_id: Annotated[
        Id | None, Query(description="Only this organization's.")
    ] = None,
    order_number: Annotated[str | None, Query(max_length=40, description=(
        "Only about this checkout order (its number, A-10423)."))] = None,
    tag: Annotated[
        str | None,
        Query(max_length=40, description="Only tickets with this exact tag (case-sensitive)."),
    ] = None,
    q: Q = None,
    sla_breached: Annotated[
        bool | None,
        Query(
            description="true: unsolved tickets whose SLA is past due at the current time; "
            "false: all others."
        ),
    ] = None,
    sla_due_before: IsoTime = None,
    created_after: IsoTime = None,
    created_before: IsoTime = None,
    sort: Annotated[
        Literal[
            "id", "-id", "created_at", "-created_at", "updated_at", "-updated_at", "sla_due_at"
        ],
        Query(description="Sort key; '-' means descending."),
    ] = "id",
) -> Response:
    """List tickets; filters combine with AND. `q` searches subject and description.
    `sla_due_before` keeps tickets whose SLA target is before that time (any status)."""
    found = Filters()
    found.equal(status=status, priority=priority, type=type, channel=channel,
                requester_id=requester_id, assignee_id=assignee_id, group_id=group_id,
                organization_id=organization_id, order_number=order_number)
    if tag is not None:
        found.add("EXISTS (SELECT 1 FROM json_each(tickets.tags) WHERE value = ?)", tag)
    found.search(q, "subject", "description")
    if sla_breached is not None:
        cond = f"({_UNSOLVED} AND sla_due_at IS NOT NULL AND sla_due_at < ?)"
        found.add(cond if sla_breached else f"NOT {cond}", iso(episode.now()))
    if sla_due_before is not None:
        found.add("sla_due_at < ?", sla_due_before)
    if created_after is not None:
        found.add("created_at >= ?", created_after)
    if created_before is not None:
        found.add("created_at < ?", created_before)
    return ok(
        page(
            episode.db,
            "tickets",
            found.where,
            found.params,
            order_by=_SORTS[sort],
            limit=limit,
            offset=offset,
            convert=schemas.ticket,
        )
    )


@router.get(
    "/tickets/{ticket_id}",
    operation_id="get_ticket",
    summary="Get a ticket",
    response_model=TicketOut,
)
async def get_ticket(ticket_id: TicketId, episode: EpisodeDep) -> Response:
    """One ticket with its status, assignment, tags, SLA and the order it is about."""
    return ok(schemas.ticket(get_row(episode.db, "tickets", ticket_id)))


@router.patch(
    "/tickets/{ticket_id}",
    operation_id="update_ticket",
    summary="Update a ticket",
    response_model=TicketOut,
)
async def update_ticket(ticket_id: TicketId, body: TicketUpdate, episode: EpisodeDep) -> Response:
    """Change status (state machine: new→open/pending/on-hold/solved, open→pending/on-hold/
    solved, pending→open/solved, on-hold→open/solved, solved→open/closed; closed is final),
    priority, type, assignee/group (the assignee must belong to the group) and tags.
    Only the fields you send change. Closed tickets cannot be updated."""
    changes = body.model_dump(exclude_unset=True)
    for key in ("status", "priority", "type", "add_tags", "remove_tags"):
        if changes.get(key, 0) is None:
            del changes[key]
    row = rules.update_ticket(episode.db, ticket_id=ticket_id, changes=changes, now=episode.now())
    return ok(schemas.ticket(row))


@router.get(
    "/tickets/{ticket_id}/comments",
    operation_id="list_comments",
    summary="List a ticket's comments",
    response_model=Page[CommentOut],
)
async def list_comments(
    ticket_id: TicketId,
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    public: Annotated[
        bool | None, Query(description="true: public replies only; false: internal notes only.")
    ] = None,
) -> Response:
    """The conversation on a ticket, oldest first: the requester's messages, agents' replies
    and internal notes, and system notes (e.g. merges)."""
    get_row(episode.db, "tickets", ticket_id)
    found = Filters()
    found.equal(ticket_id=ticket_id, public=public)
    return ok(
        page(
            episode.db,
            "comments",
            found.where,
            found.params,
            order_by="created_at, id",
            limit=limit,
            offset=offset,
            convert=schemas.comment,
        )
    )


@router.post(
    "/tickets/{ticket_id}/comments",
    operation_id="add_comment",
    summary="Reply or add an internal note",
    status_code=201,
    response_model=CommentOut,
)
async def add_comment(ticket_id: TicketId, body: CommentCreate, episode: EpisodeDep) -> Response:
    """Add a comment as agent 1 ('AI Agent'): public replies are emailed to the requester,
    internal notes (public=false) are visible to agents only. Closed tickets refuse comments."""
    row = rules.add_comment(
        episode.db, ticket_id=ticket_id, body=body.body, public=body.public, now=episode.now()
    )
    return ok(schemas.comment(row), 201)


@router.post(
    "/tickets/{ticket_id}/merge",
    operation_id="merge_tickets",
    summary="Merge a ticket into another",
    response_model=TicketOut,
)
async def merge_tickets(ticket_id: TicketId, body: MergeRequest, episode: EpisodeDep) -> Response:
    """Close this ticket and merge it into `target_ticket_id`: its comments stay, it gets
    merged_into_id, and both tickets receive an internal system note. Both tickets must have
    the same requester and be not closed. Returns the merged (closed) ticket."""
    row = rules.merge_tickets(
        episode.db, source_id=ticket_id, target_id=body.target_ticket_id, now=episode.now()
    )
    return ok(schemas.ticket(row))


@router.post(
    "/tickets/{ticket_id}/macros/{macro_id}/apply",
    operation_id="apply_macro",
    summary="Apply a macro to a ticket",
    response_model=TicketOut,
)
async def apply_macro(ticket_id: TicketId, macro_id: MacroId, episode: EpisodeDep) -> Response:
    """Run a macro's actions (field changes and an optional comment) on a ticket, with the
    same rules as update_ticket and add_comment. Returns the updated ticket."""
    row = rules.apply_macro(episode.db, ticket_id=ticket_id, macro_id=macro_id, now=episode.now())
    return ok(schemas.ticket(row))


@router.get(
    "/satisfaction-ratings",
    operation_id="list_satisfaction_ratings",
    summary="List satisfaction ratings",
    response_model=Page[SatisfactionRatingOut],
)
async def list_satisfaction_ratings(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    ticket_id: Annotated[Id | None, Query(description="Only this ticket's rating.")] = None,
    score: Annotated[Literal["good", "bad"] | None, Query(description="Only this score.")] = None,
) -> Response:
    """CSAT ratings requesters gave to solved tickets."""
    found = Filters()
    found.equal(ticket_id=ticket_id, score=score)
    return ok(
        page(
            episode.db,
            "satisfaction_ratings",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
        )
    )
