"""Invoices (docs.stripe.com/api/invoices): drafts and their lines, finalize, pay, void, mark
uncollectible."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..errors import render
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter, cursor_page
from ..render import Row
from ..rules import invoices
from ..rules.common import World
from ..schemas.billing import (
    InvoiceAction,
    InvoiceAddLines,
    InvoiceCreate,
    InvoiceFinalize,
    InvoicePay,
    InvoiceUpdate,
)
from ..schemas.stripe import StripeList
from ..schemas.stripe_billing import DeletedInvoice, Invoice, InvoiceLine
from .common import InvoiceId, answer, listing, retrieve

router = APIRouter(tags=["invoices"])


def _invoice(w: World, invoice: str) -> Row:
    return w.objects.row("invoices", invoice, kind="invoice")


@router.post("/v1/invoices", operation_id="create_invoice", summary="Create an invoice",
             response_model=Invoice)
async def create_invoice(body: InvoiceCreate, call: IdempotentDep) -> Response:
    """A one-off draft invoice for a customer; add its lines (add_lines), then finalize it."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.create(w, body),
                                           body.expand))


@router.get("/v1/invoices/{invoice}", operation_id="retrieve_invoice",
            summary="Retrieve an invoice", response_model=Invoice)
async def retrieve_invoice(invoice: InvoiceId, w: WorldDep, expand: Expand = None) -> Response:
    """One invoice, with its lines."""
    return retrieve(w, "invoices", invoice, "invoice", expand)


@router.post("/v1/invoices/{invoice}", operation_id="update_invoice",
             summary="Update an invoice", response_model=Invoice)
async def update_invoice(invoice: InvoiceId, body: InvoiceUpdate,
                         call: IdempotentDep) -> Response:
    """A draft's due date and payment method; any invoice's description and metadata."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.update(
        w, _invoice(w, invoice), body), body.expand))


@router.delete("/v1/invoices/{invoice}", operation_id="delete_invoice",
               summary="Delete a draft invoice", response_model=DeletedInvoice)
async def delete_invoice(invoice: InvoiceId, call: IdempotentDep) -> Response:
    """A one-off draft, deleted (finalized invoices are voided instead)."""
    return call.run(InvoiceAction(), lambda w: ok(invoices.delete(w, _invoice(w, invoice))))


@router.post("/v1/invoices/{invoice}/add_lines", operation_id="add_invoice_lines",
             summary="Add lines to a draft invoice", response_model=Invoice)
async def add_invoice_lines(invoice: InvoiceId, body: InvoiceAddLines,
                            call: IdempotentDep) -> Response:
    """Lines of a price (pricing[price], quantity) or of an amount, on a draft."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.add_lines(
        w, _invoice(w, invoice), body), body.expand))


@router.post("/v1/invoices/{invoice}/finalize", operation_id="finalize_invoice",
             summary="Finalize a draft invoice", response_model=Invoice)
async def finalize_invoice(invoice: InvoiceId, body: InvoiceFinalize,
                           call: IdempotentDep) -> Response:
    """Open it: numbered, the customer's balance applied (paid at once if nothing is due)."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.finalize(
        w, _invoice(w, invoice), body.auto_advance), body.expand))


@router.post("/v1/invoices/{invoice}/pay", operation_id="pay_invoice",
             summary="Pay an invoice", response_model=Invoice)
async def pay_invoice(invoice: InvoiceId, body: InvoicePay, call: IdempotentDep) -> Response:
    """Charge what is left to a card (a decline answers 402 card_error, the attempt
    counted), or record it paid_out_of_band."""
    def run(w: World) -> Response:
        row, declined = invoices.pay(w, _invoice(w, invoice), body)
        return render(declined) if declined else answer(w, "invoices", row, body.expand)
    return call.run(body, run)


@router.post("/v1/invoices/{invoice}/void", operation_id="void_invoice",
             summary="Void an invoice", response_model=Invoice)
async def void_invoice(invoice: InvoiceId, body: InvoiceAction,
                       call: IdempotentDep) -> Response:
    """An open or uncollectible invoice, void (the customer's balance it took comes back)."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.void(
        w, _invoice(w, invoice)), body.expand))


@router.post("/v1/invoices/{invoice}/mark_uncollectible",
             operation_id="mark_invoice_uncollectible", summary="Mark an invoice uncollectible",
             response_model=Invoice)
async def mark_invoice_uncollectible(invoice: InvoiceId, body: InvoiceAction,
                                     call: IdempotentDep) -> Response:
    """An open invoice written off as bad debt (it may still be paid or voided)."""
    return call.run(body, lambda w: answer(w, "invoices", invoices.mark_uncollectible(
        w, _invoice(w, invoice)), body.expand))


@router.get("/v1/invoices/{invoice}/lines", operation_id="list_invoice_lines",
            summary="List an invoice's lines", response_model=StripeList[InvoiceLine])
async def list_invoice_lines(invoice: InvoiceId, w: WorldDep, limit: Limit = DEFAULT_LIMIT,
                             starting_after: StartingAfter = None,
                             ending_before: EndingBefore = None,
                             expand: Expand = None) -> Response:
    """Its lines."""
    _invoice(w, invoice)
    return ok(cursor_page(w.objects, "invoice_lines", ["invoice = ?"], [invoice],
                          url=f"/v1/invoices/{invoice}/lines", limit=limit,
                          starting_after=starting_after, ending_before=ending_before,
                          expand=expand or [], kind="line_item"))


@router.get("/v1/invoices", operation_id="list_invoices", summary="List invoices",
            response_model=StripeList[Invoice])
async def list_invoices(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's invoices."))] = None,
    subscription: Annotated[str | None, Query(max_length=255, description=(
        "Only this subscription's invoices."))] = None,
    status: Annotated[Literal["draft", "open", "paid", "uncollectible", "void"] | None, Query(
        description="Only those in this status.")] = None,
    collection_method: Annotated[Literal["charge_automatically", "send_invoice"] | None, Query(
        description="Only those collected so.")] = None,
) -> Response:
    """Invoices, newest first."""
    return listing(w, "invoices", "invoice", url="/v1/invoices", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   customer=customer, subscription=subscription, status=status,
                   collection_method=collection_method)
