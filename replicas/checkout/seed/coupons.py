"""The shop's coupons and promotion codes (world.yaml): campaigns past and present, a code
for first orders, codes with a minimum purchase per currency, one-off apology codes for single
customers, and the mess: expired codes, used-up codes and coupons, and the old shop's loyalty
coupon imported long expired. Redemptions are counted by the orders that use them
(seed/orders.py), which switches off what they used up (:func:`settle`)."""

from __future__ import annotations

from typing import Any

from ..discounts import lapse
from ..rules.common import dumps
from ..world import data
from .common import DAY, Generation, Row

APOLOGY = "SORRY"


def _coupon(g: Generation, coupon_id: str, spec: dict[str, Any], *,
            amount: tuple[str, int] | None = None) -> Row:
    ends = spec.get("ends")
    created = g.unix_ago(spec["days"])
    return g.new("coupons", {
        "stripe_id": coupon_id, "name": spec["name"], "percent_off": spec.get("percent_off"),
        "amount_off": amount[1] if amount else None,
        "currency": amount[0] if amount else None,
        "duration": spec.get("duration", "once"), "duration_in_months": spec.get("months"),
        "max_redemptions": spec.get("max_redemptions"),
        "redeem_by": None if ends is None else g.unix + int(ends * DAY),
        "times_redeemed": 0, "deleted": 0,
        "metadata": dumps({"source": "old_shop"} if spec.get("legacy") else {}),
        "created": created})


def _code(g: Generation, code: str, coupon: Row, *, ends: float | None = None,
          customer: str | None = None, max_redemptions: int | None = None,
          first_time: bool = False, minimum: tuple[str, int] | None = None,
          created: int | None = None, meta: dict[str, str] | None = None) -> Row:
    return g.new("promotion_codes", {
        "code": code, "coupon": coupon["stripe_id"], "customer": customer, "active": 1,
        "expires_at": None if ends is None else g.unix + int(ends * DAY),
        "max_redemptions": max_redemptions, "times_redeemed": 0,
        "first_time_transaction": int(first_time),
        "minimum_amount": minimum[1] if minimum else None,
        "minimum_amount_currency": minimum[0] if minimum else None,
        "metadata": dumps(meta or {}), "created": created or coupon["created"]})


def build(g: Generation) -> None:
    r, spec = g.rng, data()
    coupons: dict[str, Row] = {}
    for coupon_id, about in spec["coupons"].items():
        if isinstance(about.get("amount_off"), dict):
            for money, amount in about["amount_off"].items():
                found = _coupon(g, f"{coupon_id}-{money.upper()}", about, amount=(money, amount))
                coupons[found["stripe_id"]] = found
        else:
            coupons[coupon_id] = _coupon(g, coupon_id, about)
    g.code_weight = {}
    for about in spec["codes"]:
        minimum = about.get("minimum")
        code = _code(g, about["code"], coupons[about["coupon"]], ends=about.get("ends"),
                     max_redemptions=about.get("max_redemptions"),
                     first_time=about.get("first_time_transaction", False),
                     minimum=(minimum[0], minimum[1]) if minimum else None,
                     meta={"source": "old_shop"} if about.get("legacy") else None)
        g.code_weight[code["stripe_id"]] = about.get("weight", 1)
    # One-off apology codes: one customer each, once, in their currency.
    for n, (_, customer) in enumerate(r.sample(g.people, spec["apology_codes"])):
        coupon = coupons[f"{APOLOGY}-{customer['currency'].upper()}"]
        made = g.unix_ago(r.uniform(20, 290))
        code = _code(g, f"{APOLOGY}-{customer['stripe_id'][-6:].upper()}{n}", coupon,
                     customer=customer["stripe_id"], max_redemptions=1, created=made,
                     meta={"reason": r.choice(["late delivery", "damaged parcel",
                                               "wrong item"])})
        g.code_weight[code["stripe_id"]] = 1


def settle(g: Generation) -> None:
    """Switch off the codes that can no longer be redeemed now (expired, used up, their
    coupon no longer valid), as the clock and the redemptions would have."""
    coupons = {c["stripe_id"]: c for c in g.tables["coupons"]}
    for code in g.tables["promotion_codes"]:
        if lapse(code, coupons[code["coupon"]], g.unix) is not None:
            code["active"] = 0
