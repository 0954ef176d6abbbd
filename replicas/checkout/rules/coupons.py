"""Coupons and promotion codes (docs.stripe.com/api/coupons, /api/promotion_codes).

A coupon takes ``percent_off`` or ``amount_off`` (in its ``currency``) off a subtotal; it is
``valid`` until ``redeem_by`` or until redeemed ``max_redemptions`` times, and only its name
and metadata change after it is made. A promotion code is a code customers type for a
coupon, with limits of its own (``expires_at``, ``max_redemptions``, a ``customer``) and
restrictions (``first_time_transaction``, ``minimum_amount``); it can be switched off and on.
Redeeming (a Checkout Session completing) counts on both. A code is switched off when it can
no longer be redeemed: used up (at its last redemption, or its coupon's), its coupon deleted,
or past ``expires_at`` or the coupon's ``redeem_by`` (on the episode's clock, applied when the
next write arrives, as Stripe's expiries). Discounts are arithmetic in ``discounts.py``.
"""

from __future__ import annotations

import random
from typing import Any

from ..discounts import (
    CODE_REFUSED,
    Refusal,
    code_refusal,
    coupon_refusal,
    coupon_valid,
    lapse,
)
from ..errors import InvalidRequestError, ResourceMissing
from ..ids import token
from ..render import Row
from ..schemas.requests import CouponCreate, CouponUpdate, PromotionCodeCreate, PromotionCodeUpdate
from .common import World, currency, exclusive, given, metadata, text


def _missing(message: str, param: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="parameter_missing", param=param)


def _invalid(message: str, param: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="parameter_invalid", param=param)


def create_coupon(w: World, body: CouponCreate) -> Row:
    if body.percent_off is not None and body.amount_off is not None:
        raise exclusive("amount_off", "percent_off")
    if body.percent_off is None and body.amount_off is None:
        raise _missing("Missing required param: percent_off or amount_off.", "percent_off")
    if body.amount_off is not None and body.currency is None:
        raise _missing("You must pass currency when passing amount_off.", "currency")
    if body.amount_off is None and body.currency is not None:
        raise _invalid("currency is only used with amount_off.", "currency")
    duration = body.duration or "once"
    if duration == "repeating" and body.duration_in_months is None:
        raise _missing("Missing required param: duration_in_months.", "duration_in_months")
    if duration != "repeating" and body.duration_in_months is not None:
        raise _invalid("duration_in_months can only be given with duration=repeating.",
                       "duration_in_months")
    if body.redeem_by is not None and body.redeem_by <= w.now:
        raise _invalid("redeem_by must be in the future.", "redeem_by")
    if body.id is not None and w.db.execute("SELECT 1 FROM coupons WHERE stripe_id = ?",
                                            (body.id,)).fetchone():
        raise InvalidRequestError("Coupon already exists.", code="resource_already_exists",
                                  param="id")
    values = {
        "name": text(body.name), "percent_off": body.percent_off,
        "amount_off": body.amount_off,
        "currency": currency(body.currency) if body.currency else None,
        "duration": duration, "duration_in_months": body.duration_in_months,
        "max_redemptions": body.max_redemptions, "redeem_by": body.redeem_by,
        "times_redeemed": 0, "deleted": 0, "metadata": metadata("{}", body.metadata)}
    row = w.create("coupons", values if body.id is None else {**values, "stripe_id": body.id})
    w.emit("coupon.created", "coupons", row)
    return row


def live_coupon(w: World, coupon_id: str, *, param: str = "id") -> Row:
    """A coupon that was not deleted (Stripe forgets deleted coupons: resource_missing)."""
    row = w.objects.row("coupons", coupon_id, kind="coupon", param=param)
    if row["deleted"]:
        raise ResourceMissing("coupon", coupon_id, param=param)
    return row


def update_coupon(w: World, row: Row, body: CouponUpdate) -> Row:
    values = {k: text(v) for k, v in given(body, "name").items()}
    row = w.update("coupons", row, {**values,
                                    "metadata": metadata(row["metadata"], body.metadata)})
    w.emit("coupon.updated", "coupons", row)
    return row


def delete_coupon(w: World, row: Row) -> Row:
    """Deleted: it cannot be redeemed any more, nor its promotion codes (what was already
    paid with it stays as it was)."""
    w.emit("coupon.deleted", "coupons", row)
    row = w.update("coupons", row, {"deleted": 1})
    _switch_off(w, "coupon = ?", (row["stripe_id"],))
    return row


def _switch_off(w: World, where: str, params: tuple[object, ...]) -> None:
    """Switch off the active promotion codes ``where`` selects (SQL in code)."""
    for code in w.db.execute(f"SELECT * FROM promotion_codes WHERE active AND ({where}) "
                             "ORDER BY id", params).fetchall():
        w.emit("promotion_code.updated", "promotion_codes",
               w.update("promotion_codes", code, {"active": 0}))


def expire_due(w: World) -> None:
    """Promotion codes past their ``expires_at``, or whose coupon is past its ``redeem_by``,
    are switched off. Run before every write."""
    _switch_off(w, "expires_at <= ? OR coupon IN (SELECT stripe_id FROM coupons WHERE "
                "redeem_by <= ?)", (w.now, w.now))


def _unique(w: World, code: str, customer: str | None, *, but: int = 0) -> None:
    """Stripe's rule: a code is unique, whatever its case, among the active codes (of a
    customer)."""
    clash = w.db.execute(
        "SELECT 1 FROM promotion_codes WHERE lower(code) = lower(?) AND active AND id != ? "
        "AND (customer IS ? OR customer IS NULL OR ? IS NULL)",
        (code, but, customer, customer)).fetchone()
    if clash:
        raise InvalidRequestError(f"An active promotion code with `code: {code}` already "
                                  "exists.", code="resource_already_exists", param="code")


def create_code(w: World, body: PromotionCodeCreate) -> Row:
    coupon = live_coupon(w, body.coupon, param="coupon")
    _raise(coupon_refusal(coupon, w.now), "coupon")
    if body.customer:
        w.objects.row("customers", body.customer, kind="customer", param="customer")
    if body.expires_at is not None:
        if body.expires_at <= w.now:
            raise _invalid("expires_at must be in the future.", "expires_at")
        if coupon["redeem_by"] is not None and body.expires_at > coupon["redeem_by"]:
            raise _invalid("expires_at cannot be later than the coupon's redeem_by "
                           f"({coupon['redeem_by']}).", "expires_at")
    if (body.max_redemptions is not None and coupon["max_redemptions"] is not None
            and body.max_redemptions > coupon["max_redemptions"]):
        raise _invalid("max_redemptions cannot be greater than the coupon's max_redemptions "
                       f"({coupon['max_redemptions']}).", "max_redemptions")
    limits = body.restrictions
    if limits and (limits.minimum_amount is None) != (limits.minimum_amount_currency is None):
        raise _missing("minimum_amount and minimum_amount_currency go together.",
                       "restrictions[minimum_amount_currency]")
    row_id = w.db.execute("SELECT coalesce(max(id), 0) + 1 AS n FROM promotion_codes"
                          ).fetchone()["n"]
    code = body.code or token(random.Random(f"code:{w.seed}:{row_id}"), 8).upper()
    active = body.active if body.active is not None else True
    if active:
        _unique(w, code, body.customer)
    row = w.create("promotion_codes", {
        "code": code, "coupon": coupon["stripe_id"], "customer": body.customer,
        "active": int(active), "expires_at": body.expires_at,
        "max_redemptions": body.max_redemptions, "times_redeemed": 0,
        "first_time_transaction": int(bool(limits and limits.first_time_transaction)),
        "minimum_amount": limits.minimum_amount if limits else None,
        "minimum_amount_currency": currency(
            limits.minimum_amount_currency, param="restrictions[minimum_amount_currency]")
        if limits and limits.minimum_amount_currency else None,
        "metadata": metadata("{}", body.metadata)})
    w.emit("promotion_code.created", "promotion_codes", row)
    return row


def update_code(w: World, row: Row, body: PromotionCodeUpdate) -> Row:
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    if body.active is not None:
        if body.active and not row["active"]:
            _raise(lapse(row, w.objects.row("coupons", row["coupon"], kind="coupon"), w.now),
                   "active")
            _unique(w, row["code"], row["customer"], but=row["id"])
        values["active"] = int(body.active)
    row = w.update("promotion_codes", row, values)
    w.emit("promotion_code.updated", "promotion_codes", row)
    return row


def by_code(w: World, code: str, *, param: str = "promotion_code") -> Row:
    """The promotion code customers type as ``code`` (any case): the active one if there is
    one, else the latest."""
    found = w.db.execute(
        "SELECT * FROM promotion_codes WHERE lower(code) = lower(?) ORDER BY active DESC, "
        "id DESC LIMIT 1", (code,)).fetchone()
    if found is None:
        raise InvalidRequestError(f"No such promotion code: '{code}'", code=CODE_REFUSED,
                                  param=param)
    row: Row = found
    return row


def _paid_before(w: World, customer: str | None, email: str | None) -> bool:
    """Whether the customer (or, for a guest, any customer with the email) has a successful
    payment: Stripe's test of a first-time transaction."""
    found = w.db.execute(
        "SELECT 1 FROM charges c JOIN customers k ON k.stripe_id = c.customer "
        "WHERE c.status = 'succeeded' AND c.captured AND (k.stripe_id = ? OR "
        "(? IS NULL AND lower(k.email) = lower(?))) LIMIT 1",
        (customer, customer, email)).fetchone()
    return found is not None


def _raise(refusal: Refusal | None, param: str) -> None:
    if refusal is not None:
        code, why = refusal
        raise InvalidRequestError(why, code=code, param=param)


def redeemable_coupon(w: World, coupon: Row, *, money: str, param: str) -> None:
    """Refuse a coupon that cannot be redeemed now, or not on an amount in ``money``."""
    _raise(coupon_refusal(coupon, w.now, money), param)


def redeemable_code(w: World, code: Row, *, customer: str | None, email: str | None,
                    money: str, subtotal: int, param: str) -> Row:
    """The coupon of promotion code ``code`` if the purchase (``customer`` or ``email``,
    ``subtotal`` in ``money``) may redeem it now; refused, saying why, otherwise."""
    coupon = w.objects.row("coupons", code["coupon"], kind="coupon")
    _raise(code_refusal(code, coupon, now=w.now, customer=customer, money=money,
                        subtotal=subtotal, paid_before=bool(code["first_time_transaction"])
                        and _paid_before(w, customer, email)), param)
    return coupon


def redeem(w: World, coupon: Row, code: Row | None) -> None:
    """Count a redemption of ``coupon`` (through ``code``); what it used up is switched
    off."""
    coupon = w.update("coupons", coupon, {"times_redeemed": coupon["times_redeemed"] + 1})
    w.emit("coupon.updated", "coupons", coupon)
    if code is not None:
        code = w.update("promotion_codes", code, {"times_redeemed": code["times_redeemed"] + 1})
        w.emit("promotion_code.updated", "promotion_codes", code)
        if code["max_redemptions"] is not None and code["times_redeemed"] >= code[
                "max_redemptions"]:
            _switch_off(w, "id = ?", (code["id"],))
    if not coupon_valid(coupon, w.now):
        _switch_off(w, "coupon = ?", (coupon["stripe_id"],))
