"""The store's own API: cancelling an order's unshipped units refunds what was paid for them
through the payments rules (all of it, with shipping, when the whole order goes; an
authorization released instead; Stripe's refusals stand), returns restock and refund, and
what cannot be done is refused in the store's codes and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replicas.checkout.discounts import paid_for

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def _order(api: Api, order_id: int) -> dict[str, Any]:
    found: dict[str, Any] = await api.ok("GET", f"/store/orders/{order_id}")
    return found


async def _returned(api: Api, order_id: int, body: dict[str, Any]) -> dict[str, Any]:
    """A return, made (201: the store's convention for what it creates)."""
    response = await api.request("POST", f"/store/orders/{order_id}/returns", json=body)
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()
    return found


async def _stock(api: Api, sku: str) -> dict[str, Any]:
    found: dict[str, Any] = (await api.ok("GET", "/store/inventory",
                                          params={"sku": sku}))["data"][0]
    return found


async def test_cancelling_the_unshipped_items_refunds_what_was_paid_for_them(
        make_api: MakeApi) -> None:
    api = make_api(setup=[
        {"factory": "customer", "bind": "customer"},
        {"factory": "coupon", "bind": "coupon", "percent_off": 15},
        {"factory": "promotion_code", "bind": "code", "coupon": "$coupon.stripe_id"},
        {"factory": "order", "bind": "order", "customer": "$customer.stripe_id", "lines": 3,
         "shipped": 1, "code": "$code.stripe_id"}])
    order = await _order(api, api.vars["order"]["id"])
    assert (order["status"], order["fulfillment_status"]) == ("open", "partially_fulfilled")
    assert order["discount"] == sum(i["amount_discount"] for i in order["items"]) > 0
    shipped, *open_ = order["items"]
    committed = {i["sku"]: (await _stock(api, i["sku"]))["committed"] for i in open_}
    await api.refused("POST", f"/store/orders/{order['id']}/cancel", 400,
                      "quantity_exceeds_cancelable",
                      json={"items": [{"item_id": shipped["id"], "quantity": 1}]})
    await api.refused("POST", f"/store/orders/{order['id']}/cancel", 400, "item_not_in_order",
                      json={"items": [{"item_id": 1, "quantity": 1}]})
    after = await api.ok("POST", f"/store/orders/{order['id']}/cancel",
                         json={"reason": "Found it cheaper"})
    owed = sum(paid_for(i, i["quantity"]) for i in open_)
    assert (after["status"], after["fulfillment_status"]) == ("open", "fulfilled")
    assert [i["cancelled_quantity"] for i in after["items"]] == [0] + [
        i["quantity"] for i in open_]
    assert after["payment"]["amount_refunded"] == owed
    refunds = await api.ok("GET", "/v1/refunds", params={"payment_intent":
                                                         order["payment_intent"]})
    assert [(r["amount"], r["metadata"]) for r in refunds["data"]] == [
        (owed, {"order": order["number"], "store": "cancellation"})]
    for item in open_:
        assert (await _stock(api, item["sku"]))["committed"] == (
            committed[item["sku"]] - item["quantity"])
    await api.refused("POST", f"/store/orders/{order['id']}/cancel", 400, "order_fulfilled",
                      json={})


async def test_cancelling_a_whole_order_refunds_its_shipping_too(make_api: MakeApi) -> None:
    api = make_api(setup=[{"factory": "order", "bind": "order", "lines": 2}])
    order = await _order(api, api.vars["order"]["id"])
    first, second = order["items"]
    # Unit by unit, what is refunded adds up to exactly what the items cost.
    for item in (first, second):
        for _ in range(item["quantity"]):
            await api.ok("POST", f"/store/orders/{order['id']}/cancel", json={
                "items": [{"item_id": item["id"], "quantity": 1}]})
    after = await _order(api, order["id"])
    assert (after["status"], after["fulfillment_status"]) == ("cancelled", "unfulfilled")
    assert after["cancelled_at"] is not None
    assert after["payment"]["amount_refunded"] == order["total"]
    await api.refused("POST", f"/store/orders/{order['id']}/cancel", 400, "order_cancelled",
                      json={})


async def test_an_authorized_order_is_released_whole_or_not_at_all(make_api: MakeApi) -> None:
    api = make_api()
    waiting = (await api.ok("GET", "/store/orders", params={
        "fulfillment_status": "unfulfilled", "status": "open", "limit": 100}))["data"]
    held = next(o for o in waiting if o["payment"]["status"] == "requires_capture"
                and sum(i["quantity"] for i in o["items"]) > 1)
    lapsed = next(o for o in waiting if o["payment"]["status"] == "canceled")
    await api.refused("POST", f"/store/orders/{held['id']}/cancel", 400,
                      "payment_not_captured", json={"items": [
                          {"item_id": held["items"][0]["id"], "quantity": 1}]})
    cancelled = await api.ok("POST", f"/store/orders/{held['id']}/cancel", json={})
    assert cancelled["status"] == "cancelled"
    assert (cancelled["payment"]["status"], cancelled["payment"]["amount_received"]) == (
        "canceled", 0)
    # The world's mess: an order whose authorization expired took nothing: nothing to refund.
    gone = await api.ok("POST", f"/store/orders/{lapsed['id']}/cancel", json={})
    assert gone["status"] == "cancelled"
    assert not (await api.ok("GET", "/v1/refunds", params={
        "payment_intent": lapsed["payment_intent"]}))["data"]


async def test_returns_restock_and_refund(make_api: MakeApi) -> None:
    api = make_api(setup=[{"factory": "order", "bind": "order", "lines": 2, "shipped": 2}])
    order = await _order(api, api.vars["order"]["id"])
    first, second = order["items"]
    before = await _stock(api, first["sku"])
    await api.refused("POST", f"/store/orders/{order['id']}/cancel", 400, "order_fulfilled",
                      json={})
    paid = paid_for(first, first["quantity"])
    await api.refused("POST", f"/store/orders/{order['id']}/returns", 400, "amount_too_large",
                      json={"items": [{"item_id": first["id"], "quantity": first["quantity"]}],
                            "restock": True, "amount": paid + 1})
    kept = await _returned(api, order["id"], {
        "items": [{"item_id": first["id"], "quantity": first["quantity"]}], "restock": True,
        "amount": paid * 85 // 100, "reason": "Changed my mind"})
    assert (kept["amount_refunded"], kept["restock"]) == (paid * 85 // 100, True)
    assert (await _stock(api, first["sku"]))["on_hand"] == before["on_hand"] + first[
        "quantity"]
    refund = await api.ok("GET", f"/v1/refunds/{kept['refund']}")
    assert (refund["amount"], refund["payment_intent"]) == (kept["amount_refunded"],
                                                            order["payment_intent"])
    await api.refused("POST", f"/store/orders/{order['id']}/returns", 400,
                      "quantity_exceeds_returnable", json={
                          "items": [{"item_id": first["id"], "quantity": 1}],
                          "restock": True})
    damaged = await _returned(api, order["id"], {
        "items": [{"item_id": second["id"], "quantity": 1}], "restock": False,
        "refund": False})
    assert (damaged["refund"], damaged["amount_refunded"]) == (None, 0)
    after = await _order(api, order["id"])
    assert [i["returned_quantity"] for i in after["items"]] == [first["quantity"], 1]
    assert len(after["returns"]) == 2


async def test_a_disputed_payment_cannot_be_refunded_by_the_store(make_api: MakeApi) -> None:
    api = make_api()
    # The newest dispute whose order shipped (what was not shipped cannot come back at all).
    for dispute in (await api.ok("GET", "/v1/disputes", params={"limit": 20}))["data"]:
        intent = await api.ok("GET", f"/v1/payment_intents/{dispute['payment_intent']}")
        order = (await api.ok("GET", "/store/orders", params={
            "number": intent["metadata"].get("order") or intent["metadata"]["legacy_order"]}))[
            "data"][0]
        if order["fulfillment_status"] == "fulfilled":
            break
    item = order["items"][0]
    error = await api.refused("POST", f"/store/orders/{order['id']}/returns", 400,
                              "charge_disputed", json={
                                  "items": [{"item_id": item["id"], "quantity": 1}],
                                  "restock": True})
    assert error["param"] == "charge"
    assert (await _order(api, order["id"]))["returns"] == order["returns"]


async def test_orders_are_found_by_number_customer_and_state(make_api: MakeApi) -> None:
    api = make_api()
    page = await api.ok("GET", "/store/orders", params={"limit": 5})
    assert page["total"] >= 1400 and len(page["data"]) == 5
    newest = page["data"][0]
    assert (await api.ok("GET", "/store/orders", params={"number": newest["number"]}))[
        "data"] == [newest]
    mine = await api.ok("GET", "/store/orders", params={"customer": newest["customer"],
                                                        "limit": 100})
    assert {o["customer"] for o in mine["data"]} == {newest["customer"]}
    both = await api.ok("GET", "/store/orders", params={"status": "cancelled",
                                                        "fulfillment_status": "fulfilled"})
    assert both["total"] >= 4  # imported cancelled, yet shipped
    await api.refused("GET", "/store/orders/999999", 404, "order_not_found")
