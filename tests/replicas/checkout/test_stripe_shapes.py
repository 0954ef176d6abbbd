"""Members of Stripe's objects that the conformance run (tests/conformance/test_checkout.py)
found wrong, each held to Stripe's API reference here too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def test_customer_deleted_carries_the_customer_as_it_was(make_api: MakeApi) -> None:
    """docs.stripe.com/api/events/types#event_types-customer.deleted: "data.object is a
    customer" -- the whole customer, not the ``{id, object, deleted}`` the DELETE answers."""
    api = make_api()
    customer = await api.ok("POST", "/v1/customers", json={"email": "gone@example.com"})
    assert (await api.ok("DELETE", f"/v1/customers/{customer['id']}"))["deleted"] is True
    events = await api.ok("GET", "/v1/events", params={"type": "customer.deleted"})
    gone = events["data"][0]["data"]["object"]
    assert (gone["id"], gone["email"], gone["livemode"]) == (
        customer["id"], "gone@example.com", False)
    assert "deleted" not in gone


async def test_an_error_not_about_a_parameter_has_no_param(make_api: MakeApi) -> None:
    """docs.stripe.com/api/errors: ``param`` is there "if the error is parameter-specific"
    (stripe-node's StripeRawError: ``param?: string``, never null)."""
    api = make_api()
    intent = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 1000, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True})
    error = await api.refused("POST", f"/v1/payment_intents/{intent['id']}/cancel", 400,
                              "payment_intent_unexpected_state")
    assert "param" not in error


async def test_a_refund_has_no_livemode_and_a_failure_reason_only_once_failed(
        make_api: MakeApi) -> None:
    """docs.stripe.com/api/refunds/object: a Refund has no ``livemode``; ``failure_reason``
    is given "if the refund failed" (stripe-node: ``failure_reason?: string``)."""
    api = make_api()
    intent = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 1000, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True})
    refund = await api.ok("POST", "/v1/refunds", json={"payment_intent": intent["id"]})
    assert refund["status"] == "succeeded"
    assert "livemode" not in refund and "failure_reason" not in refund
    assert refund["balance_transaction"].startswith("txn_") and refund["receipt_number"] is None
    assert "failure_balance_transaction" not in refund
