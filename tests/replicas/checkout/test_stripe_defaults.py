"""Stripe's defaults, its answer to a URL it does not serve, and its asynchronous refunds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def test_automatic_payment_methods_are_on_unless_types_are_given(
        make_api: MakeApi) -> None:
    """docs.stripe.com/api/payment_intents/create#create_payment_intent-automatic_payment_methods
    and the 2023-08-16 changelog ("PaymentIntents ... enable automatic_payment_methods by
    default"): on when payment_method_types is not given; off with payment_method_types; both
    at once refused."""
    api = make_api()
    base = {"amount": 2000, "currency": "usd"}
    on = await api.ok("POST", "/v1/payment_intents", json=base)
    assert on["automatic_payment_methods"] == {"allow_redirects": "always", "enabled": True}
    off = await api.ok("POST", "/v1/payment_intents",
                       json={**base, "payment_method_types": ["card"]})
    assert off["automatic_payment_methods"] is None
    chosen = await api.ok("POST", "/v1/payment_intents", data={
        "amount": "2000", "currency": "usd", "automatic_payment_methods[enabled]": "true",
        "automatic_payment_methods[allow_redirects]": "never"})
    assert chosen["automatic_payment_methods"] == {"allow_redirects": "never", "enabled": True}
    before = len((await api.ok("GET", "/v1/payment_intents", params={"limit": 100}))["data"])
    error = await api.refused("POST", "/v1/payment_intents", 400, "parameters_exclusive", json={
        **base, "payment_method_types": ["card"], "automatic_payment_methods": {"enabled": True}})
    assert error["param"] == "automatic_payment_methods"
    after = len((await api.ok("GET", "/v1/payment_intents", params={"limit": 100}))["data"])
    assert after == before


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/v1/nope"), ("POST", "/v1/customers/cus_x/nope"), ("DELETE", "/v1/charges")])
async def test_an_unknown_url_is_stripes_unrecognized_request_url(
        make_api: MakeApi, method: str, path: str) -> None:
    """Stripe answers a method and path it does not serve with a 404 invalid_request_error
    "Unrecognized request URL (GET: /v1/...). Please see https://stripe.com/docs or we can
    help at https://support.stripe.com/." and no code (docs.stripe.com/api/errors: type and
    message are the fields always present)."""
    response = await make_api().request(method, path)
    assert response.status_code == 404
    assert response.json() == {"error": {
        "type": "invalid_request_error",
        "message": f"Unrecognized request URL ({method}: {path}). Please see "
                   "https://stripe.com/docs or we can help at https://support.stripe.com/."}}


async def _refund_later(api: Api, card: str) -> tuple[dict[str, Any], str]:
    paid = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 3000, "currency": "usd", "payment_method": card, "confirm": True})
    refund = await api.ok("POST", "/v1/refunds", json={"payment_intent": paid["id"]})
    return refund, paid["latest_charge"]


async def _minutes_later(api: Api, minutes: int) -> None:
    """Virtual time passes (a minute a request), then a write arrives (settling what is due)."""
    for _ in range(minutes):
        await api.ok("GET", "/v1/customers", params={"limit": 1})
    await api.ok("POST", "/v1/customers", json={"email": "later@example.com"})


async def test_a_pending_refund_succeeds_later(make_api: MakeApi) -> None:
    """docs.stripe.com/testing#refunds: 4000000000007726 (pm_card_pendingRefund), the refund
    "begins as pending. Some time later, its status transitions to succeeded"."""
    api = make_api()
    refund, charge = await _refund_later(api, "pm_card_pendingRefund")
    assert refund["status"] == "pending"
    assert (await api.ok("GET", f"/v1/charges/{charge}"))["amount_refunded"] == 3000
    await _minutes_later(api, 6)
    settled = await api.ok("GET", f"/v1/refunds/{refund['id']}")
    assert settled["status"] == "succeeded" and "failure_reason" not in settled
    events = await api.ok("GET", "/v1/events", params={"type": "charge.refund.updated"})
    assert events["data"][0]["data"]["object"]["id"] == refund["id"]


async def test_a_refund_to_a_dead_card_fails_later(make_api: MakeApi) -> None:
    """docs.stripe.com/testing#refunds: 4000000000005126 (pm_card_refundFail), the refund
    "begins as succeeded. Some time later, its status transitions to failed"
    (failure_reason expired_or_canceled_card, api/refunds/object); the charge is no longer
    refunded and can be refunded again."""
    api = make_api()
    refund, charge = await _refund_later(api, "pm_card_refundFail")
    assert refund["status"] == "succeeded"
    assert (await api.ok("GET", f"/v1/charges/{charge}"))["refunded"] is True
    await _minutes_later(api, 6)
    failed = await api.ok("GET", f"/v1/refunds/{refund['id']}")
    assert failed["status"] == "failed"
    assert failed["failure_reason"] == "expired_or_canceled_card"
    shown = await api.ok("GET", f"/v1/charges/{charge}")
    assert shown["amount_refunded"] == 0 and shown["refunded"] is False
    kinds = [e["type"] for e in (await api.ok("GET", "/v1/events", params={"limit": 5}))["data"]]
    assert "refund.failed" in kinds


async def test_a_failed_refund_gives_its_amount_back_to_the_balance(make_api: MakeApi) -> None:
    """docs.stripe.com/refunds#failed-refunds and api/refunds/object: a refund that fails
    keeps the balance transaction that took its amount (balance_transaction) and has a
    failure_balance_transaction of type refund_failure giving it back; both expandable
    (docs.stripe.com/api/balance_transactions/object: type refund_failure)."""
    api = make_api()
    refund, _ = await _refund_later(api, "pm_card_refundFail")
    assert refund["balance_transaction"].startswith("txn_")
    assert "failure_balance_transaction" not in refund
    await _minutes_later(api, 6)
    failed = await api.ok("GET", f"/v1/refunds/{refund['id']}",
                          params={"expand[]": ["balance_transaction",
                                               "failure_balance_transaction"]})
    taken, given = failed["balance_transaction"], failed["failure_balance_transaction"]
    assert (taken["id"], taken["type"], taken["amount"]) == (
        refund["balance_transaction"], "refund", -3000)
    assert (given["type"], given["reporting_category"], given["amount"], given["source"]) == (
        "refund_failure", "refund_failure", 3000, refund["id"])

