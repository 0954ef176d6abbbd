"""Stripe's defaults and its answer to a URL it does not serve."""

from __future__ import annotations

from collections.abc import Callable

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
