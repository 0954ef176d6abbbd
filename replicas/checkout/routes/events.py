"""Events (docs.stripe.com/api/events): what changed, newest first, each with the object as it
was then."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Limit, StartingAfter
from ..schemas.stripe import Event, StripeList
from .common import EventId, listing, retrieve

router = APIRouter(tags=["events"])


@router.get("/v1/events/{event}", operation_id="retrieve_event", summary="Retrieve an event",
            response_model=Event)
async def retrieve_event(event: EventId, w: WorldDep) -> Response:
    """One event."""
    return retrieve(w, "events", event, "event", None)


@router.get("/v1/events", operation_id="list_events", summary="List events",
            response_model=StripeList[Event])
async def list_events(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None,
    kind: Annotated[str | None, Query(alias="type", max_length=100, description=(
        "Only events of this type, e.g. 'charge.refunded'."))] = None,
) -> Response:
    """Events, newest first."""
    return listing(w, "events", "event", url="/v1/events", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=None,
                   type=kind)
