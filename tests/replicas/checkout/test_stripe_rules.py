"""Rules of Stripe's API an agent could otherwise get round: a saved card pays for its own
customer only, and integer parameters take Stripe's spellings only (form or JSON)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Annotated, Any, get_args, get_origin
from urllib.parse import urlencode

import pytest
from pydantic import BaseModel

from replicas.checkout.schemas import requests as schemas

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]
FORM = {"content-type": "application/x-www-form-urlencoded"}


async def _saved_card(api: Api) -> tuple[str, str]:
    """A customer and the card saved to them (a PaymentMethod attached)."""
    customer = await api.ok("POST", "/v1/customers", json={"email": "ann@example.com"})
    card = await api.ok("POST", "/v1/payment_methods", json={
        "type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                 "exp_year": 2099}})
    await api.ok("POST", f"/v1/payment_methods/{card['id']}/attach",
                 json={"customer": customer["id"]})
    return customer["id"], card["id"]


async def _charges(api: Api) -> int:
    return len((await api.ok("GET", "/v1/charges", params={"limit": 100}))["data"])


async def test_a_saved_card_pays_for_its_customer_only(make_api: MakeApi) -> None:
    api = make_api()
    owner, card = await _saved_card(api)
    other = (await api.ok("POST", "/v1/customers", json={"email": "bo@example.com"}))["id"]
    before = await _charges(api)
    pay = {"amount": 4200, "currency": "usd", "payment_method": card, "confirm": True}
    # Another customer's card: Stripe's words, no code of its own.
    error = await api.refused("POST", "/v1/payment_intents", 400, "invalid_request_error",
                              json={**pay, "customer": other})
    assert error["param"] == "payment_method" and error["message"] == (
        f"The PaymentMethod {card} does not belong to the Customer you supplied {other}. "
        "Please use this PaymentMethod with the Customer that it belongs to instead.")
    # No customer at all: Stripe's parameter_missing, on its legacy param "source".
    error = await api.refused("POST", "/v1/payment_intents", 400, "parameter_missing",
                              json=pay)
    assert error["param"] == "source" and error["message"] == (
        f"The `payment_method` parameter supplied {card} belongs to the Customer {owner}. "
        "Please include the Customer in the `customer` parameter on the PaymentIntent.")
    assert await _charges(api) == before
    # Set later: by update (the customer, or the card), or at confirm.
    intent = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 4200, "currency": "usd", "customer": other})
    path = f"/v1/payment_intents/{intent['id']}"
    error = await api.refused("POST", path, 400, "invalid_request_error",
                              json={"payment_method": card})
    assert error["payment_intent"]["payment_method"] is None
    await api.refused("POST", f"{path}/confirm", 400, "invalid_request_error",
                      json={"payment_method": card})
    mine = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 4200, "currency": "usd", "customer": owner, "payment_method": card})
    await api.refused("POST", f"/v1/payment_intents/{mine['id']}", 400,
                      "invalid_request_error", json={"customer": other})
    assert await _charges(api) == before
    # Its own customer's payment goes through.
    paid = await api.ok("POST", f"/v1/payment_intents/{mine['id']}/confirm", json={})
    assert paid["status"] == "succeeded" and paid["customer"] == owner


async def test_a_card_saved_after_it_was_given_is_checked_at_confirm(
        make_api: MakeApi) -> None:
    api = make_api()
    owner, _ = await _saved_card(api)
    card = await api.ok("POST", "/v1/payment_methods", json={
        "type": "card", "card": {"number": "4242424242424242", "exp_month": 12,
                                 "exp_year": 2099}})
    intent = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 4200, "currency": "usd", "payment_method": card["id"]})
    await api.ok("POST", f"/v1/payment_methods/{card['id']}/attach", json={"customer": owner})
    error = await api.refused("POST", f"/v1/payment_intents/{intent['id']}/confirm", 400,
                              "parameter_missing", json={})
    assert error["payment_intent"]["status"] == "requires_confirmation"


@pytest.mark.parametrize("value", ["  5", "5 ", "5.0", "1e3", "+5", "0x10", "5_000", "٥",
                                   "true", "", "99999999999999999999"])
async def test_integers_as_text_are_stripe_spellings_only(make_api: MakeApi, value: str) -> None:
    api = make_api()
    paid = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 4200, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True})
    form = urlencode({"payment_intent": paid["id"], "amount": value})
    for body in ({"content": form, "headers": FORM},
                 {"json": {"payment_intent": paid["id"], "amount": value}}):
        error = await api.refused("POST", "/v1/refunds", 400, "parameter_invalid_integer",
                                  **body)
        assert (error["param"], error["message"]) == ("amount", f"Invalid integer: {value}")
    assert (await api.ok("GET", f"/v1/charges/{paid['latest_charge']}"))[
        "amount_refunded"] == 0
    refund = await api.ok("POST", "/v1/refunds", content=f"payment_intent={paid['id']}"
                          "&amount=5", headers=FORM)
    assert refund["amount"] == 5


@pytest.mark.parametrize(("value", "shown"), [(True, "true"), (False, "false"), (5.0, "5.0"),
                                              (5.5, "5.5"), ([5], "[5]")])
async def test_json_integers_are_integers(make_api: MakeApi, value: Any, shown: str) -> None:
    api = make_api()
    error = await api.refused("POST", "/v1/payment_intents", 400, "parameter_invalid_integer",
                              json={"amount": value, "currency": "usd"})
    assert (error["param"], error["message"]) == ("amount", f"Invalid integer: {shown}")
    # Nested parameters too, named in bracket notation.
    error = await api.refused("POST", "/v1/payment_methods", 400, "parameter_invalid_integer",
                              json={"type": "card", "card": {
                                  "number": "4242424242424242", "exp_month": value,
                                  "exp_year": 2099}})
    assert error["param"] == "card[exp_month]"


def _integer_fields(annotation: Any, path: str, marked: bool = False
                    ) -> Iterator[tuple[str, bool]]:
    """Every integer in ``annotation`` (models, unions, lists walked): (path, marked INTEGER)."""
    if get_origin(annotation) is Annotated:
        base, *meta = get_args(annotation)
        yield from _integer_fields(base, path, marked or schemas.INTEGER in meta)
    elif inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            yield from _integer_fields(field.annotation, f"{path}.{name}",
                                       schemas.INTEGER in field.metadata)
    elif annotation is int:
        yield path, marked
    else:
        for member in get_args(annotation):
            yield from _integer_fields(member, path, marked)


def test_every_integer_parameter_takes_stripe_spellings() -> None:
    models = [m for m in vars(schemas).values() if inspect.isclass(m)
              and issubclass(m, BaseModel) and m.__module__ == schemas.__name__]
    fields = dict(kv for m in models for kv in _integer_fields(m, m.__name__))
    assert {"RefundCreate.amount", "PaymentMethodCreate.card.exp_month",
            "ReturnCreate.items.quantity", "SessionCreate.line_items.quantity"} <= set(fields)
    assert [name for name, marked in fields.items() if not marked] == []
