"""Customers, their organizations and account actions (password, 2FA, email change)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules, schemas
from ..schemas import (
    AccountActionOut,
    ActionKind,
    ActionStatus,
    CustomerOut,
    CustomerUpdate,
    EmailChangeRequest,
    OrganizationOut,
    Tier,
    TwoFactorResetRequest,
    VerifyRequest,
)

router = APIRouter(tags=["customers"])

CustomerId = Annotated[Id, Path(description="Id of the customer.")]
OrganizationId = Annotated[Id, Path(description="Id of the organization.")]
ActionId = Annotated[Id, Path(description="Id of the account action.")]


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
    different people or duplicate records — compare email, phone and orders."""
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
            convert=schemas.customer,
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
    return ok(schemas.customer(get_row(episode.db, "customers", customer_id)))


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
    return ok(schemas.customer(row))


@router.post(
    "/customers/{customer_id}/password-reset",
    operation_id="request_password_reset",
    summary="Send a password reset link",
    status_code=201,
    response_model=AccountActionOut,
)
async def request_password_reset(customer_id: CustomerId, episode: EpisodeDep) -> Response:
    """Email a password reset link to the customer's verified email on file; recorded as a
    completed account action. Refused if that email is not verified."""
    row = rules.request_password_reset(episode.db, customer_id=customer_id, now=episode.now())
    return ok(schemas.account_action(row), 201)


@router.post(
    "/customers/{customer_id}/2fa-reset",
    operation_id="reset_two_factor",
    summary="Reset two-factor authentication",
    status_code=201,
    response_model=AccountActionOut,
)
async def reset_two_factor(
    customer_id: CustomerId, body: TwoFactorResetRequest, episode: EpisodeDep
) -> Response:
    """Turn off 2FA so the customer can enrol again. Only after verifying the customer's
    identity (security questions, ID document, call-back to the phone on file, or a link to
    the verified email): send identity_verified=true and the method used."""
    row = rules.reset_two_factor(
        episode.db,
        customer_id=customer_id,
        identity_verified=body.identity_verified,
        verification_method=body.verification_method,
        now=episode.now(),
    )
    return ok(schemas.account_action(row), 201)


@router.post(
    "/customers/{customer_id}/email-change",
    operation_id="request_email_change",
    summary="Start an email change",
    status_code=201,
    response_model=AccountActionOut,
)
async def request_email_change(
    customer_id: CustomerId, body: EmailChangeRequest, episode: EpisodeDep
) -> Response:
    """Set the customer's pending_email and send a 6-digit code to the new address. The email
    changes only when verify_account_action is called with that code (ask the customer for
    it). A newer request cancels an older pending one."""
    row = rules.request_email_change(
        episode.db, customer_id=customer_id, new_email=body.new_email, now=episode.now()
    )
    return ok(schemas.account_action(row), 201)


@router.get(
    "/account-actions",
    operation_id="list_account_actions",
    summary="List account actions",
    response_model=Page[AccountActionOut],
)
async def list_account_actions(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    customer_id: Annotated[Id | None, Query(description="Only this customer's.")] = None,
    kind: Annotated[ActionKind | None, Query(description="Only this kind.")] = None,
    status: Annotated[ActionStatus | None, Query(description="Only this status.")] = None,
) -> Response:
    """Password resets, 2FA resets and email changes, oldest first."""
    found = Filters()
    found.equal(customer_id=customer_id, kind=kind, status=status)
    return ok(
        page(
            episode.db,
            "account_actions",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
            convert=schemas.account_action,
        )
    )


@router.get(
    "/account-actions/{action_id}",
    operation_id="get_account_action",
    summary="Get an account action",
    response_model=AccountActionOut,
)
async def get_account_action(action_id: ActionId, episode: EpisodeDep) -> Response:
    """One account action and its status."""
    return ok(schemas.account_action(get_row(episode.db, "account_actions", action_id)))


@router.post(
    "/account-actions/{action_id}/verify",
    operation_id="verify_account_action",
    summary="Verify a pending email change",
    response_model=AccountActionOut,
)
async def verify_account_action(
    action_id: ActionId, body: VerifyRequest, episode: EpisodeDep
) -> Response:
    """Complete a pending email change with the 6-digit code the customer received at the new
    address: the customer's email becomes the new one (verified) and pending_email clears."""
    row = rules.verify_account_action(
        episode.db, action_id=action_id, code=body.code, now=episode.now(), secret=episode.secret
    )
    return ok(schemas.account_action(row))


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
