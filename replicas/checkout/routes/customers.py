"""Customers (docs.stripe.com/api/customers)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import customers
from ..schemas.requests import CustomerCreate, CustomerUpdate
from ..schemas.stripe import Customer, DeletedCustomer, StripeList
from .common import CustomerId, answer, listing, retrieve

router = APIRouter(tags=["customers"])


@router.post("/v1/customers", operation_id="create_customer", summary="Create a customer",
             response_model=Customer)
async def create_customer(body: CustomerCreate, call: IdempotentDep) -> Response:
    """A new customer; payment_method attaches a PaymentMethod to them."""
    return call.run(body, lambda w: answer(w, "customers", customers.create(w, body),
                                           body.expand))


@router.get("/v1/customers/{customer}", operation_id="retrieve_customer",
            summary="Retrieve a customer", response_model=Customer | DeletedCustomer)
async def retrieve_customer(customer: CustomerId, w: WorldDep,
                            expand: Expand = None) -> Response:
    """One customer (a deleted one answers {id, object, deleted: true})."""
    return retrieve(w, "customers", customer, "customer", expand)


@router.post("/v1/customers/{customer}", operation_id="update_customer",
             summary="Update a customer", response_model=Customer)
async def update_customer(customer: CustomerId, body: CustomerUpdate,
                          call: IdempotentDep) -> Response:
    """Change the parameters given; metadata keys are merged."""
    return call.run(body, lambda w: answer(w, "customers", customers.update(
        w, customers.live(w, customer), body), body.expand))


@router.delete("/v1/customers/{customer}", operation_id="delete_customer",
               summary="Delete a customer", response_model=DeletedCustomer)
async def delete_customer(customer: CustomerId, w: WorldDep) -> Response:
    """Delete a customer: it answers as deleted from then on and leaves the list."""
    return answer(w, "customers", customers.delete(w, customers.live(w, customer)), None)


@router.get("/v1/customers", operation_id="list_customers", summary="List customers",
            response_model=StripeList[Customer])
async def list_customers(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    email: Annotated[str | None, Query(max_length=512, description=(
        "Only customers with this email address (exact, case-sensitive)."))] = None,
) -> Response:
    """Customers, newest first (deleted ones left out)."""
    return listing(w, "customers", "customer", url="/v1/customers", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   email=email, deleted=0)
