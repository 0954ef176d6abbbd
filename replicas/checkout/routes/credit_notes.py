"""Credit notes (docs.stripe.com/api/credit_notes)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import (
    DEFAULT_LIMIT,
    EndingBefore,
    Expand,
    Limit,
    StartingAfter,
    cursor_page,
    memory_page,
)
from ..render import Row, credit_note, credit_note_line
from ..rules import credit_notes
from ..rules.common import World
from ..schemas.billing import CreditNoteCreate, CreditNoteUpdate, InvoiceAction
from ..schemas.stripe import StripeList
from ..schemas.stripe_billing import CreditNote, CreditNoteLine
from .common import CreditNoteId, answer, from_query, listing, retrieve

router = APIRouter(tags=["credit_notes"])


@router.post("/v1/credit_notes", operation_id="create_credit_note",
             summary="Create a credit note", response_model=CreditNote)
async def create_credit_note(body: CreditNoteCreate, call: IdempotentDep) -> Response:
    """Credit an open invoice (less is due) or a paid one (refund_amount, credit_amount,
    out_of_band_amount adding up to the amount), by amount or line by line."""
    return call.run(body, lambda w: answer(w, "credit_notes", credit_notes.create(w, body),
                                           body.expand))


# create_credit_note's parameters, in the query of the previews (bracket notation:
# lines[0][invoice_line_item]=il_..., metadata[key]=value), described as create's are.
_PAGING = frozenset({"expand", "limit", "starting_after", "ending_before"})
_CREATE_IN_QUERY = {"parameters": [
    {"name": name, "in": "query", "required": field.is_required(),
     "description": f"{field.description} (As create_credit_note's.)",
     **({"style": "deepObject", "explode": True, "schema": {"type": "object"}}
        if name in ("lines", "metadata") else {"schema": {"type": "string"}})}
    for name, field in CreditNoteCreate.model_fields.items() if name not in _PAGING]}


def _previewed(w: World, request: Request) -> tuple[Row, list[Row]]:
    """The credit note and lines the request's query would create (paging and expand
    parameters left to the route)."""
    return credit_notes.preview(w, from_query(request, CreditNoteCreate, _PAGING))


@router.get("/v1/credit_notes/preview", operation_id="preview_credit_note",
            summary="Preview a credit note", response_model=CreditNote,
            openapi_extra=_CREATE_IN_QUERY)
async def preview_credit_note(request: Request, w: WorldDep, expand: Expand = None) -> Response:
    """The credit note create_credit_note would issue with these parameters (in the query),
    computed by the same rules and saved nowhere (its id: the one it would get now)."""
    row, lines = _previewed(w, request)
    return ok(w.objects.expand(credit_note(row, [credit_note_line(line) for line in lines],
                                           None), expand or []))


@router.get("/v1/credit_notes/preview/lines", operation_id="preview_credit_note_lines",
            summary="Preview a credit note's lines",
            response_model=StripeList[CreditNoteLine], openapi_extra=_CREATE_IN_QUERY)
async def preview_credit_note_lines(request: Request, w: WorldDep,
                                    limit: Limit = DEFAULT_LIMIT,
                                    starting_after: StartingAfter = None,
                                    ending_before: EndingBefore = None,
                                    expand: Expand = None) -> Response:
    """The lines the previewed credit note would have (create_credit_note's parameters in
    the query), paged."""
    _, lines = _previewed(w, request)
    return ok(memory_page(w.objects, [credit_note_line(line) for line in lines],
                          url="/v1/credit_notes/preview/lines", limit=limit,
                          starting_after=starting_after, ending_before=ending_before,
                          expand=expand or [], kind="credit_note_line_item"))


@router.get("/v1/credit_notes/{credit_note}", operation_id="retrieve_credit_note",
            summary="Retrieve a credit note", response_model=CreditNote)
async def retrieve_credit_note(credit_note: CreditNoteId, w: WorldDep,
                               expand: Expand = None) -> Response:
    """One credit note, with its lines."""
    return retrieve(w, "credit_notes", credit_note, "credit_note", expand)


@router.post("/v1/credit_notes/{credit_note}", operation_id="update_credit_note",
             summary="Update a credit note", response_model=CreditNote)
async def update_credit_note(credit_note: CreditNoteId, body: CreditNoteUpdate,
                             call: IdempotentDep) -> Response:
    """Its memo and metadata."""
    return call.run(body, lambda w: answer(w, "credit_notes", credit_notes.update(
        w, w.objects.row("credit_notes", credit_note, kind="credit_note"), body), body.expand))


@router.post("/v1/credit_notes/{credit_note}/void", operation_id="void_credit_note",
             summary="Void a credit note", response_model=CreditNote)
async def void_credit_note(credit_note: CreditNoteId, body: InvoiceAction,
                           call: IdempotentDep) -> Response:
    """Take it back (not one that refunded money)."""
    return call.run(body, lambda w: answer(w, "credit_notes", credit_notes.void(
        w, w.objects.row("credit_notes", credit_note, kind="credit_note")), body.expand))


@router.get("/v1/credit_notes/{credit_note}/lines", operation_id="list_credit_note_lines",
            summary="List a credit note's lines", response_model=StripeList[CreditNoteLine])
async def list_credit_note_lines(credit_note: CreditNoteId, w: WorldDep,
                                 limit: Limit = DEFAULT_LIMIT,
                                 starting_after: StartingAfter = None,
                                 ending_before: EndingBefore = None,
                                 expand: Expand = None) -> Response:
    """Its lines."""
    w.objects.row("credit_notes", credit_note, kind="credit_note")
    return ok(cursor_page(w.objects, "credit_note_lines", ["credit_note = ?"], [credit_note],
                          url=f"/v1/credit_notes/{credit_note}/lines", limit=limit,
                          starting_after=starting_after, ending_before=ending_before,
                          expand=expand or [], kind="credit_note_line_item"))


@router.get("/v1/credit_notes", operation_id="list_credit_notes", summary="List credit notes",
            response_model=StripeList[CreditNote])
async def list_credit_notes(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's credit notes."))] = None,
    invoice: Annotated[str | None, Query(max_length=255, description=(
        "Only this invoice's credit notes."))] = None,
) -> Response:
    """Credit notes, newest first."""
    return listing(w, "credit_notes", "credit_note", url="/v1/credit_notes", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   customer=customer, invoice=invoice)
