"""Subscriptions (docs.stripe.com/api/subscriptions) and their items
(docs.stripe.com/api/subscription_items, read here)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from ..deps import WorldDep
from ..errors import InvalidRequestError
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..render import Row
from ..rules import subscriptions
from ..rules.common import World
from ..schemas.billing import SubscriptionCancel, SubscriptionCreate, SubscriptionUpdate
from ..schemas.stripe import StripeList
from ..schemas.stripe_billing import Subscription, SubscriptionItem
from .common import (
    SubscriptionId,
    SubscriptionItemId,
    answer,
    from_query,
    listing,
    retrieve,
)

router = APIRouter(tags=["subscriptions"])

Status = Literal["incomplete", "incomplete_expired", "trialing", "active", "past_due",
                 "unpaid", "canceled", "ended", "all"]


def _sub(w: World, subscription: str) -> Row:
    return w.objects.row("subscriptions", subscription, kind="subscription")


@router.post("/v1/subscriptions", operation_id="create_subscription",
             summary="Create a subscription", response_model=Subscription)
async def create_subscription(body: SubscriptionCreate, call: IdempotentDep) -> Response:
    """Bill a customer for recurring prices every period: the first invoice is charged at
    once (declined: the subscription is incomplete, and the answer is the subscription as
    Stripe's allow_incomplete gives it); a trial bills nothing until it ends."""
    def run(w: World) -> Response:
        row, _ = subscriptions.create(w, body)
        return answer(w, "subscriptions", row, body.expand)
    return call.run(body, run)


@router.get("/v1/subscriptions/{subscription}", operation_id="retrieve_subscription",
            summary="Retrieve a subscription", response_model=Subscription)
async def retrieve_subscription(subscription: SubscriptionId, w: WorldDep,
                                expand: Expand = None) -> Response:
    """One subscription, with its items."""
    return retrieve(w, "subscriptions", subscription, "subscription", expand)


@router.post("/v1/subscriptions/{subscription}", operation_id="update_subscription",
             summary="Update a subscription", response_model=Subscription)
async def update_subscription(subscription: SubscriptionId, body: SubscriptionUpdate,
                              call: IdempotentDep) -> Response:
    """Cancel it at the period's end (cancel_at_period_end) or at a time (cancel_at), or
    undo that; its payment method, description, metadata, cancellation_details."""
    return call.run(body, lambda w: answer(w, "subscriptions", subscriptions.update(
        w, _sub(w, subscription), body), body.expand))


@router.delete("/v1/subscriptions/{subscription}", operation_id="cancel_subscription",
               summary="Cancel a subscription", response_model=Subscription)
async def cancel_subscription(subscription: SubscriptionId, call: IdempotentDep,
                              request: Request,
                              body: SubscriptionCancel | None = None) -> Response:
    """End it now: canceled, its open invoices no longer collected. Its parameters in a body
    or in the query (where Stripe's libraries send a DELETE's)."""
    given = body or from_query(request, SubscriptionCancel)
    return call.run(given, lambda w: answer(w, "subscriptions", subscriptions.cancel(
        w, _sub(w, subscription), given), given.expand))


@router.get("/v1/subscriptions", operation_id="list_subscriptions",
            summary="List subscriptions", response_model=StripeList[Subscription])
async def list_subscriptions(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's subscriptions."))] = None,
    status: Annotated[Status | None, Query(description=(
        "Only those in this status; 'ended': canceled or incomplete_expired; 'all': every "
        "one (default: all but canceled and incomplete_expired)."))] = None,
    price: Annotated[str | None, Query(max_length=255, description=(
        "Only those billing this price."))] = None,
) -> Response:
    """Subscriptions, newest first."""
    where = {"all": "1 = 1", None: "status NOT IN ('canceled', 'incomplete_expired')",
             "ended": "status IN ('canceled', 'incomplete_expired')"}.get(status, "status = ?")
    extra = [where] + (["stripe_id IN (SELECT subscription FROM subscription_items WHERE "
                        "price = ?)"] if price else [])
    params = ([status] if where == "status = ?" else []) + ([price] if price else [])
    return listing(w, "subscriptions", "subscription", url="/v1/subscriptions", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   where=extra, params=params, customer=customer)


@router.get("/v1/subscription_items/{item}", operation_id="retrieve_subscription_item",
            summary="Retrieve a subscription item", response_model=SubscriptionItem)
async def retrieve_subscription_item(item: SubscriptionItemId, w: WorldDep,
                                     expand: Expand = None) -> Response:
    """One item of a subscription."""
    return retrieve(w, "subscription_items", item, "subscription_item", expand)


@router.get("/v1/subscription_items", operation_id="list_subscription_items",
            summary="List a subscription's items", response_model=StripeList[SubscriptionItem])
async def list_subscription_items(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    subscription: Annotated[str | None, Query(max_length=255, description=(
        "The subscription (required)."))] = None,
) -> Response:
    """The items of a subscription."""
    if subscription is None:
        raise InvalidRequestError("Missing required param: subscription.",
                                  code="parameter_missing", param="subscription")
    w.objects.row("subscriptions", subscription, kind="subscription", param="subscription")
    return listing(w, "subscription_items", "subscription_item",
                   url="/v1/subscription_items", limit=limit, starting_after=starting_after,
                   ending_before=ending_before, expand=expand, subscription=subscription)
