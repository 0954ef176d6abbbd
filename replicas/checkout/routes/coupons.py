"""Coupons and promotion codes (docs.stripe.com/api/coupons, /api/promotion_codes)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import coupons
from ..schemas.requests import CouponCreate, CouponUpdate, PromotionCodeCreate, PromotionCodeUpdate
from ..schemas.stripe import Coupon, DeletedCoupon, PromotionCode, StripeList
from .common import CouponId, PromotionCodeId, answer, listing, retrieve

router = APIRouter(tags=["coupons"])


@router.post("/v1/coupons", operation_id="create_coupon", summary="Create a coupon",
             response_model=Coupon)
async def create_coupon(body: CouponCreate, call: IdempotentDep) -> Response:
    """A coupon: percent_off, or amount_off with currency; duration once (default),
    repeating (duration_in_months) or forever; max_redemptions and redeem_by limit it."""
    return call.run(body, lambda w: answer(w, "coupons", coupons.create_coupon(w, body),
                                           body.expand))


@router.get("/v1/coupons/{coupon}", operation_id="retrieve_coupon",
            summary="Retrieve a coupon", response_model=Coupon)
async def retrieve_coupon(coupon: CouponId, w: WorldDep, expand: Expand = None) -> Response:
    """One coupon: valid says whether it can still be redeemed."""
    return answer(w, "coupons", coupons.live_coupon(w, coupon), expand)


@router.post("/v1/coupons/{coupon}", operation_id="update_coupon", summary="Update a coupon",
             response_model=Coupon)
async def update_coupon(coupon: CouponId, body: CouponUpdate, call: IdempotentDep) -> Response:
    """Change its name or metadata (nothing else of a coupon changes)."""
    return call.run(body, lambda w: answer(w, "coupons", coupons.update_coupon(
        w, coupons.live_coupon(w, coupon), body), body.expand))


@router.delete("/v1/coupons/{coupon}", operation_id="delete_coupon",
               summary="Delete a coupon", response_model=DeletedCoupon)
async def delete_coupon(coupon: CouponId, w: WorldDep) -> Response:
    """Delete it: it and its promotion codes can no longer be redeemed (discounts already
    given stay)."""
    return answer(w, "coupons", coupons.delete_coupon(w, coupons.live_coupon(w, coupon)),
                  None)


@router.get("/v1/coupons", operation_id="list_coupons", summary="List coupons",
            response_model=StripeList[Coupon])
async def list_coupons(w: WorldDep, limit: Limit = DEFAULT_LIMIT,
                       starting_after: StartingAfter = None,
                       ending_before: EndingBefore = None, expand: Expand = None) -> Response:
    """Coupons, newest first (deleted ones left out)."""
    return listing(w, "coupons", "coupon", url="/v1/coupons", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   deleted=0)


@router.post("/v1/promotion_codes", operation_id="create_promotion_code",
             summary="Create a promotion code", response_model=PromotionCode)
async def create_promotion_code(body: PromotionCodeCreate, call: IdempotentDep) -> Response:
    """A code customers type for a coupon (unique, whatever its case, among active codes),
    with its own limits (expires_at, max_redemptions, customer) and restrictions
    (first_time_transaction, minimum_amount)."""
    return call.run(body, lambda w: answer(w, "promotion_codes", coupons.create_code(w, body),
                                           body.expand))


@router.get("/v1/promotion_codes/{promotion_code}", operation_id="retrieve_promotion_code",
            summary="Retrieve a promotion code", response_model=PromotionCode)
async def retrieve_promotion_code(promotion_code: PromotionCodeId, w: WorldDep,
                                  expand: Expand = None) -> Response:
    """One promotion code, with its coupon."""
    return retrieve(w, "promotion_codes", promotion_code, "promotion code", expand)


@router.post("/v1/promotion_codes/{promotion_code}", operation_id="update_promotion_code",
             summary="Update a promotion code", response_model=PromotionCode)
async def update_promotion_code(promotion_code: PromotionCodeId, body: PromotionCodeUpdate,
                                call: IdempotentDep) -> Response:
    """Switch it off or on again (not once it expired or was used up), or change its
    metadata."""
    return call.run(body, lambda w: answer(w, "promotion_codes", coupons.update_code(
        w, w.objects.row("promotion_codes", promotion_code, kind="promotion code"), body),
        body.expand))


@router.get("/v1/promotion_codes", operation_id="list_promotion_codes",
            summary="List promotion codes", response_model=StripeList[PromotionCode])
async def list_promotion_codes(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    active: Annotated[bool | None, Query(description="Only active (true) or inactive "
                                         "(false) codes.")] = None,
    code: Annotated[str | None, Query(max_length=500, description=(
        "Only codes with this text (exact: case matters)."))] = None,
    coupon: Annotated[str | None, Query(max_length=200, description=(
        "Only this coupon's codes."))] = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only codes restricted to this customer."))] = None,
) -> Response:
    """Promotion codes, newest first."""
    return listing(w, "promotion_codes", "promotion code", url="/v1/promotion_codes",
                   limit=limit, starting_after=starting_after, ending_before=ending_before,
                   expand=expand, active=None if active is None else int(active), code=code,
                   coupon=coupon, customer=customer)
