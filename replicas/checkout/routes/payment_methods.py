"""PaymentMethods (docs.stripe.com/api/payment_methods): cards, attached to customers."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import payment_methods
from ..schemas.requests import (
    PaymentMethodAttach,
    PaymentMethodCreate,
    PaymentMethodDetach,
    PaymentMethodUpdate,
)
from ..schemas.stripe import PaymentMethod, StripeList
from .common import CustomerId, PaymentMethodId, answer, listing, retrieve

router = APIRouter(tags=["payment_methods"])

CardType = Annotated[Literal["card"] | None, Query(alias="type", description=(
    "Only this kind: card."))]


@router.post("/v1/payment_methods", operation_id="create_payment_method",
             summary="Create a PaymentMethod", response_model=PaymentMethod)
async def create_payment_method(body: PaymentMethodCreate, call: IdempotentDep) -> Response:
    """A card PaymentMethod from its number (test cards: docs.stripe.com/testing)."""
    return call.run(body, lambda w: answer(w, "payment_methods", payment_methods.from_card(
        w, body.card, body.billing_details, body.metadata), body.expand))


@router.get("/v1/payment_methods/{payment_method}", operation_id="retrieve_payment_method",
            summary="Retrieve a PaymentMethod", response_model=PaymentMethod)
async def retrieve_payment_method(payment_method: PaymentMethodId, w: WorldDep,
                                  expand: Expand = None) -> Response:
    """One PaymentMethod."""
    return retrieve(w, "payment_methods", payment_method, "PaymentMethod", expand)


@router.post("/v1/payment_methods/{payment_method}", operation_id="update_payment_method",
             summary="Update a PaymentMethod", response_model=PaymentMethod)
async def update_payment_method(payment_method: PaymentMethodId, body: PaymentMethodUpdate,
                                call: IdempotentDep) -> Response:
    """Change its billing details or metadata."""
    return call.run(body, lambda w: answer(w, "payment_methods", payment_methods.update(
        w, w.objects.row("payment_methods", payment_method, kind="PaymentMethod"),
        body.billing_details, body.metadata), body.expand))


@router.post("/v1/payment_methods/{payment_method}/attach",
             operation_id="attach_payment_method", summary="Attach a PaymentMethod",
             response_model=PaymentMethod)
async def attach_payment_method(payment_method: PaymentMethodId, body: PaymentMethodAttach,
                                call: IdempotentDep) -> Response:
    """Attach it to a customer (once attached to one, never to another)."""
    return call.run(body, lambda w: answer(w, "payment_methods", payment_methods.attach(
        w, payment_methods.resolve(w, payment_method, param="payment_method"),
        body.customer), body.expand))


@router.post("/v1/payment_methods/{payment_method}/detach",
             operation_id="detach_payment_method", summary="Detach a PaymentMethod",
             response_model=PaymentMethod)
async def detach_payment_method(payment_method: PaymentMethodId, body: PaymentMethodDetach,
                                call: IdempotentDep) -> Response:
    """Detach it from its customer: it can no longer be used."""
    return call.run(body, lambda w: answer(w, "payment_methods", payment_methods.detach(
        w, w.objects.row("payment_methods", payment_method, kind="PaymentMethod")),
        body.expand))


@router.get("/v1/payment_methods", operation_id="list_payment_methods",
            summary="List PaymentMethods", response_model=StripeList[PaymentMethod])
async def list_payment_methods(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None, kind: CardType = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's."))] = None,
) -> Response:
    """PaymentMethods, newest first."""
    return listing(w, "payment_methods", "PaymentMethod", url="/v1/payment_methods",
                   limit=limit, starting_after=starting_after, ending_before=ending_before,
                   expand=expand, type=kind, customer=customer)


@router.get("/v1/customers/{customer}/payment_methods",
            operation_id="list_customer_payment_methods",
            summary="List a customer's PaymentMethods", response_model=StripeList[PaymentMethod])
async def list_customer_payment_methods(
    customer: CustomerId, w: WorldDep, limit: Limit = DEFAULT_LIMIT,
    starting_after: StartingAfter = None, ending_before: EndingBefore = None,
    expand: Expand = None, kind: CardType = None,
) -> Response:
    """The PaymentMethods attached to a customer, newest first."""
    w.objects.row("customers", customer, kind="customer")
    return listing(w, "payment_methods", "PaymentMethod",
                   url=f"/v1/customers/{customer}/payment_methods", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   type=kind, customer=customer)
