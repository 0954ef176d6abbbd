"""Search (docs.stripe.com/api/customers/search, charges/search, payment_intents/search; the
query language of docs.stripe.com/search) and the asynchronous refunds of Stripe's refund
test cards (docs.stripe.com/testing#refunds): a success and an error case each, Stripe's
shapes named as the ``stripe`` package's types name them."""

from __future__ import annotations

from tests.conformance.harness import Call

E = "Error"


def _paid(call: Call, card: str, order: str) -> dict[str, str]:
    """A succeeded PaymentIntent of a new customer tagged with ``order``: its ids."""
    customer = call("POST", "/v1/customers", status=200, shape="Customer", data={
        "email": f"{order.lower()}@example.com", "name": "Search Case",
        "metadata[order]": order})
    intent = call("POST", "/v1/payment_intents", status=200, shape="PaymentIntent", data={
        "amount": 2400, "currency": "usd", "customer": customer["id"],
        "payment_method": card, "confirm": "true", "metadata[order]": order,
        "automatic_payment_methods[enabled]": "true",
        "automatic_payment_methods[allow_redirects]": "never"})
    return {"customer": customer["id"], "intent": intent["id"],
            "charge": intent["latest_charge"]}


def scenario_1_search(call: Call) -> None:
    paid = _paid(call, "pm_card_visa", "S-901")
    found = call("GET", "/v1/customers/search", status=200,
                 shape="ApiSearchResult<Customer>",
                 params={"query": 'metadata["order"]:"S-901"', "expand[]": "total_count"})
    assert [c["id"] for c in found["data"]] == [paid["customer"]], found
    call("GET", "/v1/customers/search", status=400, shape=E,
         params={"query": 'colour:"blue"'})
    call("GET", "/v1/charges/search", status=200, shape="ApiSearchResult<Charge>",
         params={"query": f'customer:"{paid["customer"]}" AND amount>1000', "limit": 1})
    call("GET", "/v1/charges/search", status=400, shape=E,
         params={"query": 'amount>"lots"'})
    call("GET", "/v1/payment_intents/search", status=200,
         shape="ApiSearchResult<PaymentIntent>",
         params={"query": 'status:"succeeded" AND metadata["order"]:"S-901"'})
    call("GET", "/v1/payment_intents/search", status=400, shape=E,
         params={"query": 'status:"succeeded" AND'})


def scenario_2_async_refunds(call: Call) -> None:
    pending = _paid(call, "pm_card_pendingRefund", "S-902")
    refund = call("POST", "/v1/refunds", status=200, shape="Refund",
                  data={"payment_intent": pending["intent"], "reason": "requested_by_customer"})
    assert refund["status"] == "pending", refund
    call("POST", "/v1/refunds", status=400, shape=E, data={"charge": pending["charge"]})
    failing = _paid(call, "pm_card_refundFail", "S-903")
    refund = call("POST", "/v1/refunds", status=200, shape="Refund",
                  data={"charge": failing["charge"], "amount": 1000})
    assert refund["status"] == "succeeded", refund
    again = call("GET", f"/v1/refunds/{refund['id']}", status=200, shape="Refund")
    assert again["status"] == "succeeded", again  # fails 5 virtual minutes later
    call("GET", "/v1/refunds/re_nope", status=404, shape=E)
