"""The checkout's operations as it served them before Billing (issue 28): each sent a success
and an error case (an unknown id: 404 ``resource_missing``; a bad parameter: 400; a refusal of
the object's state machine), Stripe's shapes named as the ``stripe`` package's types name them.
Requests are form-encoded in bracket notation, as Stripe's libraries send them."""

from __future__ import annotations

from typing import Any

from replicas.runtime.codes import email_change_code
from tests.conformance.harness import Call
from workgym_core.credentials import mac

E = "Error"
# The world test_checkout.py serves: its seed and the deployment's internal secret, from which
# the world's verification codes derive (replicas/runtime/store.py), as the customer who
# receives the email-change code would read it.
SEED = 3
INTERNAL_SECRET = "conformance"


def scenario_1_catalog(call: Call) -> None:
    product = call("POST", "/v1/products", status=200, shape="Product",
                   data={"name": "Conformance mug", "metadata[sku]": "MUG-1"})
    call("POST", "/v1/products", status=400, shape=E, data={"description": "no name"})
    call("GET", f"/v1/products/{product['id']}", status=200, shape="Product")
    call("GET", "/v1/products/prod_nope", status=404, shape=E)
    call("POST", f"/v1/products/{product['id']}", status=200, shape="Product",
         data={"description": "Stoneware"})
    call("POST", "/v1/products/prod_nope", status=404, shape=E, data={"name": "x"})
    call("GET", "/v1/products", status=200, shape="ApiList<Product>", params={"limit": 3})
    call("GET", "/v1/products", status=400, shape=E, params={"limit": 0})
    price = call("POST", "/v1/prices", status=200, shape="Price", data={
        "product": product["id"], "currency": "usd", "unit_amount": 1800})
    call("POST", "/v1/prices", status=200, shape="Price", data={
        "product": product["id"], "currency": "usd", "unit_amount": 900,
        "recurring[interval]": "month"})
    call("POST", "/v1/prices", status=400, shape=E, data={
        "product": product["id"], "currency": "usd", "unit_amount": -5})
    call("GET", f"/v1/prices/{price['id']}", status=200, shape="Price",
         params={"expand[]": "product"})
    call("GET", "/v1/prices/price_nope", status=404, shape=E)
    call("POST", f"/v1/prices/{price['id']}", status=200, shape="Price",
         data={"nickname": "Standard"})
    call("POST", f"/v1/prices/{price['id']}", status=400, shape=E, data={"unit_amount": 5})
    call("GET", "/v1/prices", status=200, shape="ApiList<Price>",
         params={"product": product["id"]})
    call("GET", "/v1/prices", status=400, shape=E, params={"limit": 101})


def scenario_2_customers_and_cards(call: Call) -> None:
    customer = call("POST", "/v1/customers", status=200, shape="Customer", data={
        "email": "conformance@example.com", "name": "Ada", "metadata[order]": "A-1"})
    call("POST", "/v1/customers", status=400, shape=E, data={"colour": "blue"})
    call("GET", f"/v1/customers/{customer['id']}", status=200, shape="Customer")
    call("GET", "/v1/customers/cus_nope", status=404, shape=E)
    call("POST", f"/v1/customers/{customer['id']}", status=200, shape="Customer",
         data={"phone": "+15555550100"})
    call("POST", f"/v1/customers/{customer['id']}", status=400, shape=E,
         data={"balance": "lots"})
    call("GET", "/v1/customers", status=200, shape="ApiList<Customer>", params={"limit": 5})
    call("GET", "/v1/customers", status=400, shape=E,
         params={"starting_after": "cus_a", "ending_before": "cus_b"})
    method = call("POST", "/v1/payment_methods", status=200, shape="PaymentMethod", data={
        "type": "card", "card[number]": "4242424242424242", "card[exp_month]": "12",
        "card[exp_year]": "2031", "card[cvc]": "123"})
    call("POST", "/v1/payment_methods", status=400, shape=E, data={"type": "card"})
    call("GET", f"/v1/payment_methods/{method['id']}", status=200, shape="PaymentMethod")
    call("GET", "/v1/payment_methods/pm_nope", status=404, shape=E)
    call("POST", f"/v1/payment_methods/{method['id']}/attach", status=200,
         shape="PaymentMethod", data={"customer": customer["id"]})
    call("POST", f"/v1/payment_methods/{method['id']}/attach", status=400, shape=E, data={})
    call("POST", f"/v1/payment_methods/{method['id']}", status=200, shape="PaymentMethod",
         data={"billing_details[name]": "Ada Lovelace"})
    call("POST", "/v1/payment_methods/pm_nope", status=404, shape=E,
         data={"metadata[a]": "b"})
    call("GET", "/v1/payment_methods", status=200, shape="ApiList<PaymentMethod>",
         params={"customer": customer["id"], "type": "card"})
    call("GET", "/v1/payment_methods", status=400, shape=E, params={"type": "carrier_pigeon"})
    call("GET", f"/v1/customers/{customer['id']}/payment_methods", status=200,
         shape="ApiList<PaymentMethod>")
    call("GET", "/v1/customers/cus_nope/payment_methods", status=404, shape=E)
    call("POST", f"/v1/payment_methods/{method['id']}/detach", status=200,
         shape="PaymentMethod")
    call("POST", f"/v1/payment_methods/{method['id']}/detach", status=400, shape=E)
    gone = call("POST", "/v1/customers", status=200, shape="Customer", data={"name": "Gone"})
    call("DELETE", f"/v1/customers/{gone['id']}", status=200, shape="DeletedCustomer")
    call("DELETE", "/v1/customers/cus_nope", status=404, shape=E)


def scenario_3_payments(call: Call) -> None:
    intent = call("POST", "/v1/payment_intents", status=200, shape="PaymentIntent", data={
        "amount": "2000", "currency": "usd", "payment_method": "pm_card_visa",
        "capture_method": "manual", "confirm": "true"})
    call("POST", "/v1/payment_intents", status=400, shape=E, data={"currency": "usd"})
    call("POST", "/v1/payment_intents", status=402, shape=E, data={
        "amount": "1500", "currency": "usd", "confirm": "true",
        "payment_method": "pm_card_chargeDeclinedInsufficientFunds"})
    call("GET", f"/v1/payment_intents/{intent['id']}", status=200, shape="PaymentIntent",
         params={"expand[]": ["latest_charge", "payment_method"]})
    call("GET", "/v1/payment_intents/pi_nope", status=404, shape=E)
    call("POST", f"/v1/payment_intents/{intent['id']}", status=200, shape="PaymentIntent",
         data={"description": "Order A-1"})
    call("POST", f"/v1/payment_intents/{intent['id']}", status=400, shape=E,
         data={"amount": "abc"})
    call("POST", f"/v1/payment_intents/{intent['id']}/capture", status=200,
         shape="PaymentIntent", data={"amount_to_capture": "1500"})
    call("POST", f"/v1/payment_intents/{intent['id']}/capture", status=400, shape=E)
    call("POST", f"/v1/payment_intents/{intent['id']}/cancel", status=400, shape=E)
    open_ = call("POST", "/v1/payment_intents", status=200, shape="PaymentIntent",
                 data={"amount": "3000", "currency": "eur"})
    call("POST", f"/v1/payment_intents/{open_['id']}/confirm", status=200,
         shape="PaymentIntent", data={"payment_method": "pm_card_visa"})
    call("POST", f"/v1/payment_intents/{open_['id']}/confirm", status=400, shape=E,
         data={"payment_method": "pm_card_visa"})
    later = call("POST", "/v1/payment_intents", status=200, shape="PaymentIntent",
                 data={"amount": "3000", "currency": "eur"})
    call("POST", f"/v1/payment_intents/{later['id']}/cancel", status=200,
         shape="PaymentIntent", data={"cancellation_reason": "abandoned"})
    call("GET", "/v1/payment_intents", status=200, shape="ApiList<PaymentIntent>",
         params={"limit": 5})
    call("GET", "/v1/payment_intents", status=400, shape=E, params={"limit": "many"})
    charge = call("GET", f"/v1/charges/{intent['latest_charge']}", status=200, shape="Charge")
    call("GET", "/v1/charges/ch_nope", status=404, shape=E)
    call("GET", "/v1/charges", status=200, shape="ApiList<Charge>", params={"limit": 5})
    call("GET", "/v1/charges", status=400, shape=E, params={"limit": 0})
    refund = call("POST", "/v1/refunds", status=200, shape="Refund",
                  data={"charge": charge["id"], "amount": "500", "reason": "requested_by_customer"})
    call("POST", "/v1/refunds", status=400, shape=E,
         data={"charge": charge["id"], "amount": "999999"})
    call("GET", f"/v1/refunds/{refund['id']}", status=200, shape="Refund")
    call("GET", "/v1/refunds/re_nope", status=404, shape=E)
    call("POST", f"/v1/refunds/{refund['id']}", status=200, shape="Refund",
         data={"metadata[ticket]": "42"})
    call("POST", f"/v1/refunds/{refund['id']}", status=400, shape=E, data={"amount": "1"})
    call("POST", f"/v1/refunds/{refund['id']}/cancel", status=400, shape=E)
    call("GET", "/v1/refunds", status=200, shape="ApiList<Refund>",
         params={"charge": charge["id"]})
    call("GET", "/v1/refunds", status=400, shape=E, params={"limit": -1})


def scenario_4_refund_cancel(call: Call) -> None:
    """Only a refund waiting on the customer (``requires_action``) can be cancelled: the
    seeded world has some."""
    waiting = _first(call, "/v1/refunds", {"limit": 100}, status="requires_action")
    call("POST", f"/v1/refunds/{waiting['id']}/cancel", status=200, shape="Refund")


def scenario_5_disputes_and_events(call: Call) -> None:
    disputes = call("GET", "/v1/disputes", status=200, shape="ApiList<Dispute>",
                    params={"limit": 100})
    call("GET", "/v1/disputes", status=400, shape=E, params={"limit": 0})
    open_ = [d for d in disputes["data"] if d["status"] == "needs_response"]
    closed = [d for d in disputes["data"] if d["status"] not in ("needs_response",
                                                                 "warning_needs_response")]
    call("GET", f"/v1/disputes/{disputes['data'][0]['id']}", status=200, shape="Dispute")
    call("GET", "/v1/disputes/dp_nope", status=404, shape=E)
    call("POST", f"/v1/disputes/{open_[0]['id']}", status=200, shape="Dispute",
         data={"evidence[customer_name]": "Ada"})
    call("POST", f"/v1/disputes/{open_[0]['id']}", status=400, shape=E,
         data={"evidence[hair_colour]": "red"})
    call("POST", f"/v1/disputes/{open_[-1]['id']}/close", status=200, shape="Dispute")
    call("POST", f"/v1/disputes/{(closed or open_)[-1]['id']}/close", status=400, shape=E)
    events = call("GET", "/v1/events", status=200, shape="ApiList<Event>",
                  params={"limit": 20})
    call("GET", "/v1/events", status=400, shape=E, params={"limit": 0})
    call("GET", f"/v1/events/{events['data'][0]['id']}", status=200, shape="Event")
    call("GET", "/v1/events/evt_nope", status=404, shape=E)


def scenario_6_coupons(call: Call) -> None:
    coupon = call("POST", "/v1/coupons", status=200, shape="Coupon", data={
        "percent_off": "10", "duration": "once", "name": "Ten off"})
    call("POST", "/v1/coupons", status=400, shape=E, data={"duration": "once"})
    call("GET", f"/v1/coupons/{coupon['id']}", status=200, shape="Coupon")
    call("GET", "/v1/coupons/nope", status=404, shape=E)
    call("POST", f"/v1/coupons/{coupon['id']}", status=200, shape="Coupon",
         data={"name": "Ten percent off"})
    call("POST", f"/v1/coupons/{coupon['id']}", status=400, shape=E,
         data={"percent_off": "20"})
    call("GET", "/v1/coupons", status=200, shape="ApiList<Coupon>")
    call("GET", "/v1/coupons", status=400, shape=E, params={"limit": 1000})
    code = call("POST", "/v1/promotion_codes", status=200, shape="PromotionCode", data={
        "coupon": coupon["id"], "code": "CONFORM10"})
    call("POST", "/v1/promotion_codes", status=400, shape=E, data={"code": "NOCOUPON"})
    call("GET", f"/v1/promotion_codes/{code['id']}", status=200, shape="PromotionCode")
    call("GET", "/v1/promotion_codes/promo_nope", status=404, shape=E)
    call("POST", f"/v1/promotion_codes/{code['id']}", status=200, shape="PromotionCode",
         data={"active": "false"})
    call("POST", f"/v1/promotion_codes/{code['id']}", status=400, shape=E,
         data={"code": "RENAMED"})
    call("GET", "/v1/promotion_codes", status=200, shape="ApiList<PromotionCode>",
         params={"coupon": coupon["id"]})
    call("GET", "/v1/promotion_codes", status=400, shape=E, params={"active": "perhaps"})
    gone = call("POST", "/v1/coupons", status=200, shape="Coupon", data={
        "amount_off": "500", "currency": "usd", "duration": "forever"})
    call("DELETE", f"/v1/coupons/{gone['id']}", status=200, shape="DeletedCoupon")
    call("DELETE", f"/v1/coupons/{gone['id']}", status=404, shape=E)


def scenario_7_checkout_sessions(call: Call) -> None:
    prices = call("GET", "/v1/prices", status=200, shape="ApiList<Price>",
                  params={"active": "true", "currency": "usd", "limit": 20})
    one_time = next(p for p in prices["data"] if p["type"] == "one_time")
    session = call("POST", "/v1/checkout/sessions", status=200, shape="Checkout.Session", data={
        "mode": "payment", "line_items[0][price]": one_time["id"],
        "line_items[0][quantity]": "2", "success_url": "https://shop.example/done",
        "customer_email": "buyer@example.com"})
    call("POST", "/v1/checkout/sessions", status=400, shape=E, data={"mode": "payment"})
    call("GET", f"/v1/checkout/sessions/{session['id']}", status=200,
         shape="Checkout.Session", params={"expand[]": "line_items"})
    call("GET", "/v1/checkout/sessions/cs_test_nope", status=404, shape=E)
    call("GET", f"/v1/checkout/sessions/{session['id']}/line_items", status=200,
         shape="ApiList<LineItem>")
    call("GET", "/v1/checkout/sessions/cs_test_nope/line_items", status=404, shape=E)
    call("POST", f"/v1/checkout/sessions/{session['id']}/expire", status=200,
         shape="Checkout.Session")
    call("POST", f"/v1/checkout/sessions/{session['id']}/expire", status=400, shape=E)
    call("GET", "/v1/checkout/sessions", status=200, shape="ApiList<Checkout.Session>",
         params={"limit": 5})
    call("GET", "/v1/checkout/sessions", status=400, shape=E, params={"status": "lost"})


def scenario_8_store(call: Call) -> None:
    """The store's own API (ours): statuses; its refusals in Stripe's envelope."""
    orders = call("GET", "/store/orders", status=200, params={"per_page": 100})
    call("GET", "/store/orders", status=400, shape=E, params={"status": "lost"})
    records = orders["data"]
    call("GET", f"/store/orders/{records[0]['id']}", status=200)
    call("GET", "/store/orders/999999", status=404, shape=E)
    unshipped = [o for o in records if o["status"] == "open"
                 and o["fulfillment_status"] == "unfulfilled"]
    call("POST", f"/store/orders/{unshipped[0]['id']}/cancel", status=200,
         json={"reason": "Customer asked"})
    call("POST", f"/store/orders/{unshipped[0]['id']}/cancel", status=400, shape=E, json={})
    shipped = [o for o in records if o["fulfillment_status"] == "fulfilled"]
    item = shipped[0]["items"][0]
    call("POST", f"/store/orders/{shipped[0]['id']}/returns", status=201, json={
        "items": [{"item_id": item["id"], "quantity": 1}], "restock": True})
    call("POST", f"/store/orders/{shipped[0]['id']}/returns", status=400, shape=E,
         json={"items": [], "restock": True})
    call("GET", "/store/inventory", status=200)
    call("GET", "/store/inventory", status=400, shape=E, params={"sku": "x" * 41})
    charges = call("GET", "/v1/charges", status=200, shape="ApiList<Charge>",
                   params={"limit": 1})
    approval = call("POST", "/store/refund_approvals", status=201, json={
        "charge": charges["data"][0]["id"], "amount": 100, "reason": "Damaged in transit"})
    call("POST", "/store/refund_approvals", status=400, shape=E, json={"amount": 100})
    call("GET", "/store/refund_approvals", status=200)
    call("GET", "/store/refund_approvals", status=400, shape=E, params={"status": "maybe"})
    call("GET", f"/store/refund_approvals/{approval['id']}", status=200)
    call("GET", "/store/refund_approvals/999999", status=404, shape=E)
    accounts = call("GET", "/store/accounts", status=200, params={"per_page": 100})["data"]
    call("GET", "/store/accounts", status=400, shape=E, params={"email": "x" * 300})
    holder = next(a for a in accounts if a["two_factor_enabled"] and a["email_verified"])
    account = holder["id"]
    call("GET", f"/store/accounts/{account}", status=200)
    call("GET", "/store/accounts/999999", status=404, shape=E)
    call("POST", f"/store/accounts/{account}/password-reset", status=201, json={})
    call("POST", "/store/accounts/999999/password-reset", status=404, shape=E, json={})
    call("POST", f"/store/accounts/{account}/2fa-reset", status=201, json={
        "identity_verified": True, "verification_method": "id_document"})
    call("POST", f"/store/accounts/{account}/2fa-reset", status=400, shape=E, json={
        "identity_verified": True, "verification_method": "a hunch"})
    change = call("POST", f"/store/accounts/{account}/email-change", status=201,
                  json={"new_email": "new-address@example.com"})
    call("POST", f"/store/accounts/{account}/email-change", status=400, shape=E,
         json={"new_email": "not an address"})
    call("GET", "/store/account-actions", status=200, params={"account_id": account})
    call("GET", "/store/account-actions", status=400, shape=E, params={"kind": "coffee"})
    call("GET", f"/store/account-actions/{change['id']}", status=200)
    call("GET", "/store/account-actions/999999", status=404, shape=E)
    verify = f"/store/account-actions/{change['id']}/verify"
    call("POST", verify, status=400, shape=E, json={"code": "12"})
    secret = mac(INTERNAL_SECRET, "world", str(SEED))
    code = email_change_code(secret, holder["email"], "new-address@example.com")
    call("POST", verify, status=200, json={"code": code})
    call("POST", verify, status=400, shape=E, json={"code": code})


def _first(call: Call, url: str, params: dict[str, Any], **equal: Any) -> Any:
    found = call("GET", url, status=200, params=params)
    return next((o for o in found["data"] if all(o.get(k) == v for k, v in equal.items())),
                None)
