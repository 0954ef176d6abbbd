"""Checkout Sessions: open -> complete (a card, a declined one first, 3-D Secure, or nothing
to pay) or expired (expire, or 24 hours of the episode's clock); the rules the checkout page
calls (rules.sessions.apply_promotion_code, complete), redemptions counted on completion
only, refusals in Stripe's shape that change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replicas.checkout.errors import CardError, InvalidRequestError
from replicas.checkout.render import Row
from replicas.checkout.rules import sessions
from replicas.checkout.rules.common import World

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def _session(api: Api, currency: str = "usd", **extra: Any) -> dict[str, Any]:
    prices = await api.ok("GET", "/v1/prices", params={"currency": currency, "active": "true",
                                                       "limit": 100})
    cheap = sorted((p for p in prices["data"] if p["type"] == "one_time"),
                   key=lambda p: p["unit_amount"])
    found: dict[str, Any] = await api.ok("POST", "/v1/checkout/sessions", json={
        "mode": "payment", "line_items": [{"price": cheap[2]["id"], "quantity": 2},
                                          {"price": cheap[5]["id"], "quantity": 1}],
        **extra})
    return found


def _row(w: World, session: dict[str, Any]) -> Row:
    return w.objects.row("checkout_sessions", session["id"], kind="checkout.session")


def _applying(session: dict[str, Any], code: str) -> Callable[[World], Row]:
    """What the session's page does when the customer types ``code``."""
    return lambda w: sessions.apply_promotion_code(w, _row(w, session), code=code)


async def test_a_session_is_paid_once_with_the_code_the_customer_typed(
        make_api: MakeApi) -> None:
    api = make_api()
    customer = await api.ok("POST", "/v1/customers", json={"email": "first@example.com",
                                                           "name": "Ines Ruiz"})
    opened = await _session(api, customer=customer["id"], allow_promotion_codes=True,
                            success_url="https://shop.example/thanks")
    assert (opened["status"], opened["payment_status"], opened["payment_intent"]) == (
        "open", "unpaid", None)
    assert opened["url"] == f"/pay/{opened['id']}"
    welcome = (await api.ok("GET", "/v1/promotion_codes", params={"code": "WELCOME10"}))[
        "data"][0]
    applied = await api.world(lambda w: sessions.apply_promotion_code(
        w, _row(w, opened), code="welcome10"))
    assert applied["amount_total"] == opened["amount_subtotal"] - applied["amount_discount"]
    done, declined = await api.world(lambda w: sessions.complete(
        w, _row(w, opened), payment_method="pm_card_visa", name="Ines Ruiz"))
    assert declined is None
    session = await api.ok("GET", f"/v1/checkout/sessions/{opened['id']}",
                           params={"expand[]": "payment_intent"})
    assert (session["status"], session["payment_status"], session["url"]) == (
        "complete", "paid", None)
    details = session["customer_details"]
    assert (details["email"], details["name"]) == ("first@example.com", "Ines Ruiz")
    intent = session["payment_intent"]
    assert (intent["status"], intent["amount"], intent["customer"]) == (
        "succeeded", session["amount_total"], customer["id"])
    again = await api.ok("GET", f"/v1/promotion_codes/{welcome['id']}")
    assert again["times_redeemed"] == welcome["times_redeemed"] + 1
    assert again["coupon"]["times_redeemed"] == welcome["coupon"]["times_redeemed"] + 1
    for act in (lambda w: sessions.complete(w, _row(w, opened), payment_method="pm_card_visa"),
                lambda w: sessions.apply_promotion_code(w, _row(w, opened), code="SUMMER10")):
        with pytest.raises(InvalidRequestError) as refused:
            await api.world(act)
        assert refused.value.code == sessions.UNEXPECTED_STATE
    await api.refused("POST", f"/v1/checkout/sessions/{opened['id']}/expire", 400,
                      sessions.UNEXPECTED_STATE, json={})
    events = await api.ok("GET", "/v1/events", params={"type": "checkout.session.completed"})
    assert events["data"][0]["data"]["object"]["id"] == opened["id"]
    # A first-time code once the customer has paid: refused, as Stripe's message says.
    later = await _session(api, customer=customer["id"], allow_promotion_codes=True)
    with pytest.raises(InvalidRequestError, match="prior transactions"):
        await api.world(lambda w: sessions.apply_promotion_code(w, _row(w, later),
                                                                 code="WELCOME10"))


async def test_a_declined_card_leaves_the_session_open(make_api: MakeApi) -> None:
    api = make_api()
    opened = await _session(api, "jpy", customer_email="kenji@example.jp")
    after, declined = await api.world(lambda w: sessions.complete(
        w, _row(w, opened), payment_method="pm_card_chargeDeclinedInsufficientFunds"))
    assert isinstance(declined, CardError) and declined.extra["decline_code"] == (
        "insufficient_funds")
    assert (after["status"], after["payment_intent"]) == ("open", declined.extra[
        "payment_intent"]["id"])
    intent = await api.ok("GET", f"/v1/payment_intents/{after['payment_intent']}")
    assert (intent["status"], intent["receipt_email"]) == ("requires_payment_method",
                                                            "kenji@example.jp")
    done, _ = await api.world(lambda w: sessions.complete(w, _row(w, opened),
                                                          payment_method="pm_card_jcb"))
    assert (done["status"], done["payment_intent"]) == ("complete", intent["id"])
    charges = await api.ok("GET", "/v1/charges", params={"payment_intent": intent["id"]})
    assert [c["status"] for c in charges["data"]] == ["succeeded", "failed"]


async def test_three_d_secure_returns_to_the_page_which_completes_it(
        make_api: MakeApi) -> None:
    api = make_api()
    opened = await _session(api, "eur")
    waiting, _ = await api.world(lambda w: sessions.complete(
        w, _row(w, opened), payment_method="pm_card_threeDSecure2Required"))
    assert waiting["status"] == "open"
    intent = await api.ok("GET", f"/v1/payment_intents/{waiting['payment_intent']}")
    action = intent["next_action"]["redirect_to_url"]
    assert (intent["status"], action["return_url"]) == ("requires_action", opened["url"])
    with pytest.raises(InvalidRequestError):  # the amount cannot change mid-payment
        await api.world(lambda w: sessions.apply_promotion_code(w, _row(w, opened),
                                                                 code="SUMMER10"))
    await api.ok("POST", action["url"].split("?")[0], json={
        "client_secret": intent["client_secret"], "outcome": "authenticate"})
    done, _ = await api.world(lambda w: sessions.complete(w, _row(w, opened)))
    assert (done["status"], done["payment_status"]) == ("complete", "paid")


async def test_a_session_expires_after_a_day_of_the_episodes_clock(make_api: MakeApi) -> None:
    api = make_api()
    abandoned = await _session(api)
    await api.world(lambda w: sessions.complete(w, _row(w, abandoned),
                                                payment_method="pm_card_chargeDeclined"))
    expired = await api.ok("POST", f"/v1/checkout/sessions/{(await _session(api))['id']}/"
                           "expire", json={})
    assert (expired["status"], expired["url"]) == ("expired", None)
    api.step += 24 * 60  # a day later: the next write expires what is due
    await api.ok("POST", "/v1/customers", json={})
    session = await api.ok("GET", f"/v1/checkout/sessions/{abandoned['id']}")
    assert session["status"] == "expired"
    intent = await api.ok("GET", f"/v1/payment_intents/{session['payment_intent']}")
    assert (intent["status"], intent["cancellation_reason"]) == ("canceled", "abandoned")
    with pytest.raises(InvalidRequestError) as refused:
        await api.world(lambda w: sessions.complete(w, _row(w, abandoned),
                                                    payment_method="pm_card_visa"))
    assert refused.value.code == sessions.UNEXPECTED_STATE
    events = await api.ok("GET", "/v1/events", params={"type": "checkout.session.expired"})
    assert {e["data"]["object"]["id"] for e in events["data"]} >= {abandoned["id"],
                                                                  expired["id"]}


async def test_a_free_order_needs_no_payment_and_uses_up_its_code(make_api: MakeApi) -> None:
    api = make_api()
    await api.ok("POST", "/v1/coupons", json={"id": "ALLFREE", "percent_off": 100})
    code = await api.ok("POST", "/v1/promotion_codes", json={
        "coupon": "ALLFREE", "code": "ONCE", "max_redemptions": 1})
    first = await _session(api, allow_promotion_codes=True)
    second = await _session(api, allow_promotion_codes=True)
    for session in (first, second):
        await api.world(_applying(session, "once"))
    done, _ = await api.world(lambda w: sessions.complete(w, _row(w, first)))
    assert (done["status"], done["payment_status"], done["payment_intent"]) == (
        "complete", "no_payment_required", None)
    used = await api.ok("GET", f"/v1/promotion_codes/{code['id']}")
    assert (used["active"], used["times_redeemed"]) == (False, 1)
    # The other session took the code when it still could: completing it now is refused.
    with pytest.raises(InvalidRequestError, match="maximum number of times"):
        await api.world(lambda w: sessions.complete(w, _row(w, second)))
    assert (await api.ok("GET", f"/v1/checkout/sessions/{second['id']}"))["status"] == "open"


async def test_promotion_codes_only_where_the_session_allows_them(make_api: MakeApi) -> None:
    api = make_api()
    closed = await _session(api)
    allowing = await _session(api, allow_promotion_codes=True)
    for session, code, why in ((closed, "SUMMER10", "does not accept"),
                               (allowing, "NO-SUCH-CODE", "No such promotion code"),
                               (allowing, "SPRING15", "expired")):
        with pytest.raises(InvalidRequestError, match=why):
            await api.world(_applying(session, code))
    assert (await api.ok("GET", f"/v1/checkout/sessions/{allowing['id']}"))[
        "discounts"] == []
    line_items = await api.ok("GET", f"/v1/checkout/sessions/{allowing['id']}/line_items")
    assert [i["quantity"] for i in line_items["data"]] == [1, 2]
    assert line_items["data"][0]["price"]["object"] == "price"
