"""Stripe's state machines refuse what the state does not allow, in Stripe's error shape, and
change nothing: PaymentIntents (confirm, capture, cancel, update, 3-D Secure, authorizations
expiring on the episode's clock), refunds and disputes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def _paid(api: Api, **params: Any) -> dict[str, Any]:
    body = {"amount": 4200, "currency": "usd", "payment_method": "pm_card_visa",
            "confirm": True, **params}
    found: dict[str, Any] = await api.ok("POST", "/v1/payment_intents", json=body)
    return found


async def test_final_intents_refuse_every_transition(make_api: MakeApi) -> None:
    api = make_api()
    paid = await _paid(api)
    path = f"/v1/payment_intents/{paid['id']}"
    for action in ("confirm", "capture", "cancel"):
        error = await api.refused("POST", f"{path}/{action}", 400,
                                  "payment_intent_unexpected_state", json={})
        assert "status of succeeded" in error["message"]
        assert error["payment_intent"]["status"] == "succeeded"
    error = await api.refused("POST", path, 400, "payment_intent_unexpected_state",
                              json={"amount": 100})
    assert error["param"] == "amount"
    assert (await api.ok("POST", path, json={"metadata": {"note": "ok"}}))["metadata"] == {
        "note": "ok"}
    canceled = await api.ok("POST", "/v1/payment_intents", json={"amount": 900,
                                                                  "currency": "eur"})
    await api.ok("POST", f"/v1/payment_intents/{canceled['id']}/cancel",
                 json={"cancellation_reason": "abandoned"})
    await api.refused("POST", f"/v1/payment_intents/{canceled['id']}/confirm", 400,
                      "payment_intent_unexpected_state",
                      json={"payment_method": "pm_card_visa"})


async def test_the_lifecycle_through_confirmation(make_api: MakeApi) -> None:
    api = make_api()
    intent = await api.ok("POST", "/v1/payment_intents", json={"amount": 5000, "currency": "jpy"})
    assert intent["status"] == "requires_payment_method"
    path = f"/v1/payment_intents/{intent['id']}"
    await api.refused("POST", f"{path}/confirm", 400, "payment_intent_unexpected_state",
                      json={})  # no payment method yet
    updated = await api.ok("POST", path, json={"payment_method": "pm_card_jcb"})
    assert updated["status"] == "requires_confirmation"
    await api.refused("POST", f"{path}/capture", 400, "payment_intent_unexpected_state",
                      json={})
    assert (await api.ok("POST", f"{path}/confirm", json={}))["status"] == "succeeded"
    await api.refused("POST", "/v1/payment_intents", 400, "amount_too_small",
                      json={"amount": 10, "currency": "usd"})


async def test_a_failed_challenge_needs_a_new_payment_method(make_api: MakeApi) -> None:
    api = make_api()
    intent = await _paid(api, payment_method="pm_card_threeDSecure2Required")
    assert intent["status"] == "requires_action"
    assert intent["next_action"]["type"] == "use_stripe_sdk"
    await api.refused("POST", f"/3ds/{intent['id']}", 400,
                      "payment_intent_invalid_parameter",
                      json={"client_secret": "wrong", "outcome": "fail"})
    failed = await api.ok("POST", f"/3ds/{intent['id']}", json={
        "client_secret": intent["client_secret"], "outcome": "fail"})
    assert failed["status"] == "requires_payment_method"
    assert failed["last_payment_error"]["code"] == "payment_intent_authentication_failure"
    declined = await _paid(api, payment_method="pm_card_threeDSecureRequiredChargeDeclined")
    after = await api.ok("POST", f"/3ds/{declined['id']}", json={
        "client_secret": declined["client_secret"], "outcome": "authenticate"})
    assert after["last_payment_error"]["decline_code"] == "generic_decline"


async def test_an_authorization_expires_after_seven_days(make_api: MakeApi) -> None:
    api = make_api(setup=[
        {"factory": "payment_intent", "bind": "hold", "status": "requires_capture",
         "at": "@now-7d+1m"},
        {"factory": "payment_intent", "bind": "fresh", "status": "requires_capture"}])
    hold, fresh = api.vars["hold"]["stripe_id"], api.vars["fresh"]["stripe_id"]
    assert (await api.ok("GET", f"/v1/payment_intents/{hold}"))["status"] == "requires_capture"
    for _ in range(2):  # the clock moves a minute per request
        await api.ok("POST", f"/v1/payment_intents/{fresh}", json={})
    error = await api.refused("POST", f"/v1/payment_intents/{hold}/capture", 400,
                              "payment_intent_unexpected_state", json={})
    assert error["payment_intent"]["cancellation_reason"] == "automatic"
    charge = await api.ok("GET", f"/v1/charges/{error['payment_intent']['latest_charge']}")
    assert (charge["refunded"], charge["amount_refunded"]) == (True, charge["amount"])
    events = await api.ok("GET", "/v1/events", params={"type": "charge.expired"})
    assert [e["data"]["object"]["id"] for e in events["data"]] == [charge["id"]]


async def test_refunds_of_disputed_or_refunded_charges_are_refused(make_api: MakeApi) -> None:
    api = make_api()
    dispute = (await api.ok("GET", "/v1/disputes", params={"limit": 1}))["data"][0]
    await api.refused("POST", "/v1/refunds", 400, "charge_disputed",
                      json={"charge": dispute["charge"]})
    paid = await _paid(api)
    refund = await api.ok("POST", "/v1/refunds", json={"payment_intent": paid["id"]})
    await api.refused("POST", "/v1/refunds", 400, "charge_already_refunded",
                      json={"charge": paid["latest_charge"], "amount": 1})
    await api.refused("POST", f"/v1/refunds/{refund['id']}/cancel", 400,
                      "refund_unexpected_state", json={})
    await api.refused("GET", "/v1/refunds/re_nothing", 404, "resource_missing")


async def test_disputes_take_evidence_until_closed(make_api: MakeApi) -> None:
    api = make_api()
    found = await api.ok("GET", "/v1/disputes", params={"limit": 100})
    dispute = next(d for d in found["data"] if d["status"] == "needs_response"
                   and not d["evidence_details"]["past_due"])
    path = f"/v1/disputes/{dispute['id']}"
    staged = await api.ok("POST", path, json={"evidence": {"shipping_tracking_number": "1Z9"}})
    assert (staged["status"], staged["evidence_details"]["has_evidence"]) == (
        "needs_response", True)
    closed = await api.ok("POST", f"{path}/close", json={})
    assert closed["status"] == "lost"
    await api.refused("POST", f"{path}/close", 400, "dispute_unexpected_state", json={})
    await api.refused("POST", path, 400, "dispute_unexpected_state",
                      json={"evidence": {"uncategorized_text": "late"}})


async def test_form_bodies_in_bracket_notation(make_api: MakeApi) -> None:
    api = make_api()
    form = ("email=bo%40example.com&metadata[tier]=gold&metadata[source]=phone"
            "&preferred_locales[0]=de-DE")
    response = await api.request("POST", "/v1/customers", content=form,
                                 headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200, response.text
    customer = response.json()
    assert customer["metadata"] == {"tier": "gold", "source": "phone"}
    assert customer["preferred_locales"] == ["de-DE"]
    updated = await api.ok("POST", f"/v1/customers/{customer['id']}",
                           json={"metadata": {"tier": ""}})
    assert updated["metadata"] == {"source": "phone"}
    error = await api.refused("POST", "/v1/payment_intents", 400, "parameter_missing",
                              json={"currency": "usd"})
    assert error["param"] == "amount"
    error = await api.refused("POST", "/v1/payment_intents", 400, "parameter_unknown",
                              json={"amount": 100, "currency": "usd", "colour": "red"})
    assert error["param"] == "colour"


async def test_an_action_without_a_body_has_no_parameters(make_api: MakeApi) -> None:
    """As in Stripe's API: a POST with no body at all is one with no parameters."""
    api = make_api()
    authorized = await _paid(api, capture_method="manual")
    assert authorized["status"] == "requires_capture"
    captured = await api.ok("POST", f"/v1/payment_intents/{authorized['id']}/capture")
    assert captured["status"] == "succeeded" and captured["amount_received"] == 4200
