"""Coupons and promotion codes: Stripe's parameters and refusals, the codes' limits and
restrictions, and the world's expired and used-up codes; a coupon is redeemed only by a
completed Checkout Session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]
DAY = 86400


async def _now(api: Api) -> int:
    """The episode's clock (Unix seconds), as the last object made says it."""
    made = await api.ok("POST", "/v1/coupons", json={"percent_off": 1})
    created: int = made["created"]
    return created


async def test_a_coupon_takes_percent_off_or_amount_off(make_api: MakeApi) -> None:
    api = make_api()
    await api.refused("POST", "/v1/coupons", 400, "parameters_exclusive",
                      json={"percent_off": 10, "amount_off": 500, "currency": "usd"})
    await api.refused("POST", "/v1/coupons", 400, "parameter_missing", json={})
    error = await api.refused("POST", "/v1/coupons", 400, "parameter_missing",
                              json={"amount_off": 500})
    assert error["param"] == "currency"
    error = await api.refused("POST", "/v1/coupons", 400, "parameter_missing",
                              json={"percent_off": 10, "duration": "repeating"})
    assert error["param"] == "duration_in_months"
    await api.refused("POST", "/v1/coupons", 400, "parameter_invalid",
                      json={"percent_off": 10, "duration_in_months": 3})
    await api.refused("POST", "/v1/coupons", 400, "parameter_invalid",
                      json={"percent_off": 10, "redeem_by": 1_000_000})
    await api.refused("POST", "/v1/coupons", 400, "parameter_invalid_integer",
                      json={"percent_off": 120})
    coupon = await api.ok("POST", "/v1/coupons", json={
        "id": "AUTUMN15", "percent_off": "15", "duration": "repeating",
        "duration_in_months": 3, "max_redemptions": 2})
    assert (coupon["id"], coupon["percent_off"], coupon["valid"], coupon["times_redeemed"]) == (
        "AUTUMN15", 15, True, 0)
    await api.refused("POST", "/v1/coupons", 400, "resource_already_exists",
                      json={"id": "AUTUMN15", "percent_off": 5})
    await api.refused("POST", "/v1/coupons/AUTUMN15", 400, "parameter_unknown",
                      json={"percent_off": 20})
    renamed = await api.ok("POST", "/v1/coupons/AUTUMN15", json={"name": "Autumn"})
    assert (renamed["name"], renamed["percent_off"]) == ("Autumn", 15)
    deleted = await api.ok("DELETE", "/v1/coupons/AUTUMN15")
    assert deleted == {"id": "AUTUMN15", "object": "coupon", "deleted": True}
    await api.refused("GET", "/v1/coupons/AUTUMN15", 404, "resource_missing")
    listed = await api.ok("GET", "/v1/coupons", params={"limit": 100})
    assert "AUTUMN15" not in {c["id"] for c in listed["data"]}


async def test_promotion_codes_keep_within_their_coupon(make_api: MakeApi) -> None:
    api = make_api()
    now = await _now(api)
    await api.ok("POST", "/v1/coupons", json={"id": "TEN", "percent_off": 10,
                                              "max_redemptions": 5,
                                              "redeem_by": now + 10 * DAY})
    code = await api.ok("POST", "/v1/promotion_codes", json={
        "coupon": "TEN", "code": "Brew-10", "restrictions": {
            "minimum_amount": 5000, "minimum_amount_currency": "USD"}})
    assert code["id"].startswith("promo_") and code["active"] is True
    assert code["coupon"]["id"] == "TEN"
    assert code["restrictions"] == {"first_time_transaction": False, "minimum_amount": 5000,
                                    "minimum_amount_currency": "usd"}
    # Unique among active codes whatever the case; free again once it is switched off.
    await api.refused("POST", "/v1/promotion_codes", 400, "resource_already_exists",
                      json={"coupon": "TEN", "code": "BREW-10"})
    off = await api.ok("POST", f"/v1/promotion_codes/{code['id']}", json={"active": False})
    assert off["active"] is False
    await api.ok("POST", "/v1/promotion_codes", json={"coupon": "TEN", "code": "BREW-10"})
    await api.refused("POST", f"/v1/promotion_codes/{code['id']}", 400,
                      "resource_already_exists", json={"active": True})
    for body, param in (({"expires_at": now + 20 * DAY}, "expires_at"),
                        ({"max_redemptions": 6}, "max_redemptions"),
                        ({"expires_at": now - DAY}, "expires_at")):
        error = await api.refused("POST", "/v1/promotion_codes", 400, "parameter_invalid",
                                  json={"coupon": "TEN", **body})
        assert error["param"] == param
    error = await api.refused("POST", "/v1/promotion_codes", 400, "parameter_missing",
                              json={"coupon": "TEN", "restrictions": {"minimum_amount": 10}})
    assert error["param"] == "restrictions[minimum_amount_currency]"
    await api.refused("POST", "/v1/promotion_codes", 400, "resource_missing",
                      json={"coupon": "NOPE"})
    generated = await api.ok("POST", "/v1/promotion_codes", json={"coupon": "TEN"})
    assert generated["code"].isalnum() and generated["code"].isupper()
    found = await api.ok("GET", "/v1/promotion_codes", params={"code": "BREW-10"})
    assert [c["active"] for c in found["data"]] == [True]


async def test_the_worlds_expired_and_used_up_codes_are_inactive(make_api: MakeApi) -> None:
    api = make_api()
    inactive = await api.ok("GET", "/v1/promotion_codes", params={"active": "false",
                                                                  "limit": 100})
    by_code = {c["code"]: c for c in inactive["data"]}
    spring, early = by_code["SPRING15"], by_code["EARLYSPRING"]
    now = await _now(api)
    assert spring["expires_at"] < now and spring["coupon"]["valid"] is False
    assert early["times_redeemed"] == early["max_redemptions"]
    assert by_code["LAUNCH25"]["coupon"]["times_redeemed"] == by_code["LAUNCH25"]["coupon"][
        "max_redemptions"]
    await api.refused("POST", f"/v1/promotion_codes/{early['id']}", 400,
                      "promotion_code_invalid", json={"active": True})
    await api.refused("POST", f"/v1/promotion_codes/{spring['id']}", 400,
                      "promotion_code_invalid", json={"active": True})
    active = await api.ok("GET", "/v1/promotion_codes", params={"active": "true",
                                                                "limit": 100})
    assert {"WELCOME10", "SUMMER10", "BIGBREW"} <= {c["code"] for c in active["data"]}


async def test_a_code_expires_on_the_episodes_clock(make_api: MakeApi) -> None:
    api = make_api(setup=[
        {"factory": "coupon", "bind": "coupon", "percent_off": 10},
        {"factory": "promotion_code", "bind": "code", "coupon": "$coupon.stripe_id",
         "code": "SOON10", "expires": "@now+2m"}])
    code = api.vars["code"]["stripe_id"]
    assert (await api.ok("GET", f"/v1/promotion_codes/{code}"))["active"] is True
    for _ in range(3):  # the clock moves a minute per request; a write applies what is due
        await api.ok("POST", "/v1/coupons", json={"percent_off": 1})
    assert (await api.ok("GET", f"/v1/promotion_codes/{code}"))["active"] is False
    events = await api.ok("GET", "/v1/events", params={"type": "promotion_code.updated"})
    assert [e["data"]["object"]["code"] for e in events["data"]] == ["SOON10"]


def _body(price: str, **extra: Any) -> dict[str, Any]:
    return {"mode": "payment", "line_items": [{"price": price, "quantity": 2}], **extra}


async def _prices(api: Api, currency: str) -> list[str]:
    """The catalogue's one-time prices in ``currency``, cheapest first."""
    found = await api.ok("GET", "/v1/prices", params={"currency": currency, "active": "true",
                                                      "limit": 100})
    return [p["id"] for p in sorted(found["data"], key=lambda p: p["unit_amount"])
            if p["type"] == "one_time"]


async def test_a_session_refuses_what_stripe_refuses(make_api: MakeApi) -> None:
    api = make_api()
    usd, eur = (await _prices(api, "usd"))[0], (await _prices(api, "eur"))[0]
    recurring = (await api.ok("GET", "/v1/prices", params={"limit": 100, "currency": "usd"}))
    monthly = next(p["id"] for p in recurring["data"] if p["type"] == "recurring")
    customer = (await api.ok("GET", "/v1/customers", params={"limit": 1}))["data"][0]["id"]
    cases = [
        ({"mode": "payment"}, "parameter_missing", "line_items"),
        ({"mode": "payment", "line_items": [{"price": usd}]}, "parameter_missing",
         "line_items[0][quantity]"),
        (_body(monthly), "parameter_invalid", "line_items[0][price]"),
        ({"mode": "payment", "line_items": [{"price": usd, "quantity": 1},
                                            {"price": eur, "quantity": 1}]},
         "parameter_invalid", "line_items[1][price]"),
        (_body(usd, customer=customer, customer_email="a@example.com"),
         "parameters_exclusive", "customer"),
        (_body(usd, allow_promotion_codes=True, discounts=[{"coupon": "WELCOME10"}]),
         "parameters_exclusive", "allow_promotion_codes"),
        (_body(usd, expires_at=1), "parameter_invalid", "expires_at"),
        (_body("price_nothing"), "resource_missing", "line_items[0][price]"),
        (_body(usd, discounts=[{"coupon": "SPRING15"}]), "coupon_expired",
         "discounts[0][coupon]"),
        (_body(usd, mode="subscription"), "parameter_invalid", "mode"),
    ]
    for body, code, param in cases:
        error = await api.refused("POST", "/v1/checkout/sessions", 400, code, json=body)
        assert error["param"] == param, (body, error)
    assert (await api.ok("GET", "/v1/checkout/sessions", params={"status": "open"}))["data"]


async def test_a_promotion_code_is_held_to_its_restrictions(make_api: MakeApi) -> None:
    api = make_api()
    usd = await _prices(api, "usd")
    codes = (await api.ok("GET", "/v1/promotion_codes", params={"limit": 100}))["data"]
    by_code = {c["code"]: c for c in codes}
    paid = (await api.ok("GET", "/v1/payment_intents", params={"limit": 100}))["data"]
    regular = next(p["customer"] for p in paid if p["status"] == "succeeded"
                   and p["currency"] == "usd" and p["customer"])
    apology = next(c for c in codes if c["customer"] and c["active"])

    async def refused(code: dict[str, Any], **extra: Any) -> str:
        error = await api.refused("POST", "/v1/checkout/sessions", 400,
                                  "promotion_code_invalid", json=_body(usd[0], discounts=[
                                      {"promotion_code": code["id"]}], **extra))
        assert error["param"] == "discounts[0][promotion_code]"
        message: str = error["message"]
        return message

    assert "prior transactions" in await refused(by_code["WELCOME10"], customer=regular)
    assert "at least" in await refused(by_code["BIGBREW"])  # two of one item: below $150
    assert "at least" in await refused(by_code["GROSSERBREW"])  # its minimum is in euros
    assert "another customer" in await refused(apology, customer=regular)
    assert "expired" in await refused(by_code["SPRING15"])
    # A first order: a new customer's may redeem it.
    newcomer = await api.ok("POST", "/v1/customers", json={"email": "new@example.com"})
    session = await api.ok("POST", "/v1/checkout/sessions", json={
        "mode": "payment", "customer": newcomer["id"],
        "line_items": [{"price": usd[0], "quantity": 3}, {"price": usd[1], "quantity": 1}],
        "discounts": [{"promotion_code": by_code["WELCOME10"]["id"]}],
        "expand": ["line_items"]})
    items = session["line_items"]["data"]
    subtotal = sum(i["amount_subtotal"] for i in items)
    assert session["amount_subtotal"] == subtotal
    assert session["total_details"]["amount_discount"] == (subtotal + 5) // 10
    assert sum(i["amount_discount"] for i in items) == (subtotal + 5) // 10
    assert session["amount_total"] == subtotal - (subtotal + 5) // 10
    assert session["discounts"] == [{"coupon": "WELCOME10",
                                     "promotion_code": by_code["WELCOME10"]["id"]}]


async def test_an_amount_off_coupon_is_in_one_currency(make_api: MakeApi) -> None:
    api = make_api()
    eur = await _prices(api, "eur")
    error = await api.refused("POST", "/v1/checkout/sessions", 400, "parameter_invalid",
                              json=_body(eur[0], discounts=[{"coupon": "SORRY-USD"}]))
    assert "usd" in error["message"] and error["param"] == "discounts[0][coupon]"
    session = await api.ok("POST", "/v1/checkout/sessions",
                           json=_body(eur[0], discounts=[{"coupon": "SORRY-EUR"}]))
    assert session["total_details"]["amount_discount"] == min(900, session["amount_subtotal"])
