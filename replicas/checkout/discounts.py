"""The arithmetic of coupons and promotion codes, shared by the rules, the objects'
rendering, the world generator and the factories: whether a coupon or a promotion code can be
redeemed for a purchase at a moment (and if not, Stripe's error code and why), what a coupon
takes off an amount, how a discount spreads over line items, and what was paid for some of a
line's units. Import-light: plain functions over rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from workgym_core.money import format_money

Row = Mapping[str, Any]
Refusal = tuple[str, str]  # (the error's code, why)
# Ours: Stripe leaves the code of a promotion code it refuses undocumented.
CODE_REFUSED = "promotion_code_invalid"


def coupon_valid(coupon: Row, now: int) -> bool:
    """Whether ``coupon`` can still be redeemed at ``now`` (Unix seconds): not deleted, not
    past ``redeem_by``, not redeemed ``max_redemptions`` times (Stripe's ``valid``)."""
    return (not coupon["deleted"]
            and (coupon["redeem_by"] is None or now < coupon["redeem_by"])
            and (coupon["max_redemptions"] is None
                 or coupon["times_redeemed"] < coupon["max_redemptions"]))


def coupon_refusal(coupon: Row, now: int, money: str | None = None) -> Refusal | None:
    """Why ``coupon`` cannot be redeemed at ``now`` (on an amount in ``money``), if it
    cannot."""
    if not coupon_valid(coupon, now):
        return "coupon_expired", (f"The coupon {coupon['stripe_id']} is no longer valid: it "
                                  "expired, was deleted or was redeemed as many times as it "
                                  "may be.")
    if money is not None and coupon["currency"] not in (None, money):
        return "parameter_invalid", (f"The coupon {coupon['stripe_id']} takes "
                                     f"{coupon['currency']} off; this purchase is in {money}.")
    return None


def lapse(code: Row, coupon: Row, now: int) -> Refusal | None:
    """Why promotion code ``code`` (of ``coupon``) can no longer be redeemed by anyone, if
    it cannot: expired, used up, or its coupon no longer valid."""
    typed = code["code"]
    if code["expires_at"] is not None and now >= code["expires_at"]:
        return CODE_REFUSED, f"The promotion code {typed} has expired."
    if code["max_redemptions"] is not None and code["times_redeemed"] >= code[
            "max_redemptions"]:
        return CODE_REFUSED, (f"The promotion code {typed} has been redeemed the maximum "
                              "number of times.")
    return coupon_refusal(coupon, now)


def code_refusal(code: Row, coupon: Row, *, now: int, customer: str | None, money: str,
                 subtotal: int, paid_before: bool) -> Refusal | None:
    """Why a purchase (by ``customer``, whose payments succeeded before if ``paid_before``;
    ``subtotal`` in ``money``) cannot redeem promotion code ``code`` at ``now``, if it
    cannot."""
    typed = code["code"]
    lapsed = lapse(code, coupon, now)
    if lapsed is not None:
        return lapsed
    if not code["active"]:
        return CODE_REFUSED, f"The promotion code {typed} is not active."
    if code["customer"] is not None and code["customer"] != customer:
        return CODE_REFUSED, (f"The promotion code {typed} can only be redeemed by another "
                              "customer.")
    if code["first_time_transaction"] and paid_before:
        return CODE_REFUSED, ("This promotion code cannot be redeemed because the associated "
                              "customer has prior transactions.")
    least, least_in = code["minimum_amount"], code["minimum_amount_currency"]
    if least is not None and (least_in != money or subtotal < least):
        return CODE_REFUSED, (f"The promotion code {typed} needs a purchase of at least "
                              f"{format_money(least, least_in)}.")
    return coupon_refusal(coupon, now, money)


def discount(coupon: Row, subtotal: int) -> int:
    """What ``coupon`` takes off ``subtotal`` (minor units of the coupon's currency for an
    ``amount_off`` one): ``percent_off`` of it rounded half up to the minor unit, or
    ``amount_off``, never more than the subtotal."""
    if coupon["percent_off"] is not None:
        off = (Decimal(subtotal) * Decimal(str(coupon["percent_off"])) / 100).quantize(
            Decimal(1), rounding=ROUND_HALF_UP)
        return min(subtotal, int(off))
    return min(subtotal, int(coupon["amount_off"]))


def allocate(total: int, amounts: Sequence[int]) -> list[int]:
    """``total`` spread over lines of ``amounts`` in proportion (each rounded down; the cents
    left over go to the first lines, one each): the parts add up to ``total``."""
    whole = sum(amounts)
    if not whole:
        return [0 for _ in amounts]
    parts = [total * amount // whole for amount in amounts]
    for i in range(total - sum(parts)):
        parts[i % len(parts)] += 1
    return parts


def paid_for(line: Row, units: int, *, before: int = 0) -> int:
    """What was paid for ``units`` units of an order line, after the ``before`` units of it
    already settled (cancelled or returned): its price after its share of the discount,
    spread so that every unit of the line together comes to exactly what the line cost."""
    paid: int = line["unit_amount"] * line["quantity"] - line["amount_discount"]
    quantity: int = line["quantity"]
    return paid * (before + units) // quantity - paid * before // quantity
