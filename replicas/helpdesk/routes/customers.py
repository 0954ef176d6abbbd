"""Customers and their organizations. The accounts they sign in with (password, 2FA, email
changes) are the checkout's store accounts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules
from ..schemas import CustomerOut, CustomerUpdate, OrganizationOut, Tier

router = APIRouter(tags=["customers"])

CustomerId = Annotated[Id, Path(description="Id of the customer.")]
OrganizationId = Annotated[Id, Path(description="Id of the organization.")]


@router.get(
    "/customers",
    operation_id="list_customers",
    summary="List and search customers",
    response_model=Page[CustomerOut],
)
async def list_customers(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    email: Annotated[
        str | None, Query(max_length=254, description="Exact email (case-insensitive).")
    ] = None,
    tier: Annotated[Tier | None, Query(description="Only this loyalty tier.")] = None,
    organization_id: Annotated[
        Id | None, Query(description="Only this organization's.")
    ] = None,
    phone: Annotated[str | None, Query(max_length=32, description="Exact phone number.")] = None,
    q: Q = None,
) -> Response:
    """Customers (requesters), by id. `q` searches name and email; similar names may be
    different people or duplicate records — compare email and phone."""
    found = Filters()
    if email is not None:
        found.add("lower(email) = lower(?)", email)
    found.equal(tier=tier, organization_id=organization_id, phone=phone)
    found.search(q, "name", "email")
    return ok(
        page(
            episode.db,
            "customers",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
        )
    )


@router.get(
    "/customers/{customer_id}",
    operation_id="get_customer",
    summary="Get a customer",
    response_model=CustomerOut,
)
async def get_customer(customer_id: CustomerId, episode: EpisodeDep) -> Response:
    """One customer's profile: contact data, loyalty tier, verification and 2FA state, notes."""
    return ok(get_row(episode.db, "customers", customer_id))


@router.patch(
    "/customers/{customer_id}",
    operation_id="update_customer",
    summary="Update a customer's contact fields",
    response_model=CustomerOut,
)
async def update_customer(
    customer_id: CustomerId, body: CustomerUpdate, episode: EpisodeDep
) -> Response:
    """Change name, phone, locale, notes or organization. The email cannot be set here: use
    request_email_change, which the customer must verify."""
    changes = {
        k: v
        for k, v in body.model_dump(exclude_unset=True).items()
        if v is not None or k == "organization_id"
    }
    row = rules.update_customer(
        episode.db, customer_id=customer_id, changes=changes, now=episode.now()
    )
    return ok(row)


@router.get(
    "/organizations",
    operation_id="list_organizations",
    summary="List organizations",
    response_model=Page[OrganizationOut],
)
async def list_organizations(
    episode: EpisodeDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0, q: Q = None
) -> Response:
    """Customer organizations (companies). `q` searches the name and domain."""
    found = Filters()
    found.search(q, "name", "coalesce(domain, '')")
    return ok(
        page(episode.db, "organizations", found.where, found.params, order_by="id", limit=limit,
             offset=offset)
    )


@router.get(
    "/organizations/{organization_id}",
    operation_id="get_organization",
    summary="Get an organization",
    response_model=OrganizationOut,
)
async def get_organization(organization_id: OrganizationId, episode: EpisodeDep) -> Response:
    """One organization."""
    return ok(get_row(episode.db, "organizations", organization_id))
