"""Stripe's search (docs.stripe.com/search, "Search query language"; docs.stripe.com/api/
customers/search, charges/search, payment_intents/search)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def _people(api: Api) -> list[dict[str, Any]]:
    made = []
    for email, name, order in (("ann@findme.test", "Ann Lee", "A-1"),
                               ("bo@findme.org", "Bo Park", "A-2"),
                               ("cy@findme.test", None, "B-3")):
        made.append(await api.ok("POST", "/v1/customers", json={
            "email": email, **({"name": name} if name else {}),
            "metadata": {"order": order, **({"vip": "yes"} if name == "Bo Park" else {})}}))
    return made


async def _ids(api: Api, resource: str, query: str, **params: Any) -> list[str]:
    found = await api.ok("GET", f"/v1/{resource}/search", params={"query": query, **params})
    assert found["object"] == "search_result" and found["url"] == f"/v1/{resource}/search"
    return [o["id"] for o in found["data"]]


async def test_the_query_language_on_customers(make_api: MakeApi) -> None:
    """Search query language: `:` exact match (case-insensitive), `~` substring, `-`
    negation, AND/OR, metadata["key"], null, `>`/`<` on created."""
    api = make_api()
    ann, bo, cy = [c["id"] for c in await _people(api)]
    assert await _ids(api, "customers", 'email:"ANN@findme.test"') == [ann]
    assert await _ids(api, "customers", 'email~"findme.test"') == [cy, ann]
    assert await _ids(api, "customers", 'metadata["order"]:"A-2"') == [bo]
    assert await _ids(api, "customers", "metadata['order']:'A-2' OR name:\"ann lee\"") == [
        bo, ann]
    assert await _ids(api, "customers",
                      'email~"findme" AND -metadata["vip"]:"yes" AND name:null') == [cy]
    assert bo in await _ids(api, "customers", '-name:null', limit=100)
    assert cy not in await _ids(api, "customers", '-name:null', limit=100)
    created = (await api.ok("GET", f"/v1/customers/{ann}"))["created"]
    newer = await _ids(api, "customers", f"created>={created} AND email~\"findme\"")
    assert newer == [cy, bo, ann]
    assert await _ids(api, "customers", f"created<{created} AND email~\"findme.org\"") == []


async def test_pages_and_total_count(make_api: MakeApi) -> None:
    """Search results are paged with `page` = the previous answer's `next_page`;
    `total_count` comes with expand[]=total_count (docs.stripe.com/api/pagination/search)."""
    api = make_api()
    ann, bo, cy = [c["id"] for c in await _people(api)]
    query = {"query": 'email~"findme"', "limit": 2}
    first = await api.ok("GET", "/v1/customers/search",
                         params={**query, "expand[]": "total_count"})
    assert [o["id"] for o in first["data"]] == [cy, bo]
    assert first["has_more"] is True and first["total_count"] == 3
    second = await api.ok("GET", "/v1/customers/search",
                          params={**query, "page": first["next_page"]})
    assert [o["id"] for o in second["data"]] == [ann]
    assert second["has_more"] is False and second["next_page"] is None
    assert "total_count" not in second


async def test_charges_and_payment_intents(make_api: MakeApi) -> None:
    """Query fields for charges (amount, status, refunded, payment_method_details.card.last4,
    metadata) and PaymentIntents (amount, currency, status, customer)."""
    api = make_api()
    customer = (await api.ok("POST", "/v1/customers", json={"email": "d@example.com"}))["id"]
    paid = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 4321, "currency": "eur", "customer": customer,
        "payment_method": "pm_card_visa", "confirm": True})
    charge = paid["latest_charge"]
    assert await _ids(api, "payment_intents",
                      f'customer:"{customer}" AND amount:4321 AND currency:"eur"') == [paid["id"]]
    assert await _ids(api, "charges", f'payment_intent:"{paid["id"]}" AND status:"succeeded" '
                      'AND payment_method_details.card.last4:"4242" AND refunded:false') == [
        charge]
    assert await _ids(api, "charges", f'payment_intent:"{paid["id"]}" AND amount>4321') == []


@pytest.mark.parametrize(("query", "says"), [
    ('nope:"x"', "Field `nope` is an unsupported search field for resource `customers`"),
    ("email:ann", "must be in quotes"),
    ('email:"a" AND name:"b" OR phone:"c"', "cannot combine AND and OR"),
    ('email~"an"', "at least 3 characters"),
    ('created>"yesterday"', "is a number"),
    ('email>"a"', "compares numbers"),
    ("email", "unable to parse your search query"),
    (" AND ".join(['email:"a"'] * 11), "at most 10 clauses"),
])
async def test_a_bad_query_is_stripes_400_naming_the_query(
        make_api: MakeApi, query: str, says: str) -> None:
    """A query Stripe cannot run is a 400 invalid_request_error whose param is `query`."""
    error = await make_api().refused("GET", "/v1/customers/search", 400, "parameter_invalid",
                                     params={"query": query})
    assert error["param"] == "query" and says in error["message"], error


async def test_search_needs_a_query_and_a_page_it_gave(make_api: MakeApi) -> None:
    """`query` is required; `page` is a cursor search gave (docs.stripe.com/api/customers/
    search: Parameters)."""
    api = make_api()
    missing = await api.refused("GET", "/v1/charges/search", 400, "parameter_missing")
    assert missing["param"] == "query"
    error = await api.refused("GET", "/v1/charges/search", 400, "parameter_invalid",
                              params={"query": 'status:"failed"', "page": "!!"})
    assert error["param"] == "page"


async def test_invoices_subscriptions_prices_and_products_are_searchable(
        make_api: MakeApi) -> None:
    """docs.stripe.com/api/invoices/search, subscriptions/search, prices/search,
    products/search and their query fields (docs.stripe.com/search#query-fields-for-invoices,
    -subscriptions, -prices, -products); a boolean is matched quoted or not, as Stripe's own
    examples write it (`active:'true' AND metadata['order_id']:'6735'`, api/prices/search)."""
    api = make_api()
    customer = await api.ok("POST", "/v1/customers", json={"email": "sub@findme.test"})
    method = await api.ok("POST", "/v1/payment_methods/pm_card_visa/attach",
                          json={"customer": customer["id"]})
    prices = await api.ok("GET", "/v1/prices/search",
                          params={"query": "lookup_key:'cb-01m-usd' AND active:'true'"})
    [price] = prices["data"]
    assert prices["url"] == "/v1/prices/search"
    assert await _ids(api, "prices", "lookup_key:'cb-01m-usd' AND active:false") == []
    sub = await api.ok("POST", "/v1/subscriptions", json={
        "customer": customer["id"], "items": [{"price": price["id"]}],
        "default_payment_method": method["id"], "metadata": {"order_id": "6735"}})
    assert await _ids(api, "subscriptions",
                      "status:'active' AND metadata['order_id']:'6735'") == [sub["id"]]
    assert await _ids(api, "invoices",
                      f"subscription:'{sub['id']}' AND total>999 AND status:'paid'") == [
        sub["latest_invoice"]]
    assert await _ids(api, "invoices", f"subscription:'{sub['id']}' AND total<999") == []
    assert price["product"] in await _ids(api, "products", "name~'bean' AND active:true")
    await api.refused("GET", "/v1/subscriptions/search", 400, "parameter_invalid",
                      params={"query": "total>999"})
    await api.refused("GET", "/v1/products/search", 400, "parameter_invalid",
                      params={"query": "active:'yes'"})
