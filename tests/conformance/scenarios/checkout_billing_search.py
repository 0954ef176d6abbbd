"""Billing's reads added after it: the search of invoices, subscriptions, prices and products
(docs.stripe.com/api/invoices/search, subscriptions/search, prices/search, products/search)
and the credit note preview and its lines (api/credit_notes/preview, preview_lines); a
success and an error case each, the shapes named as stripe-node's types name them."""

from __future__ import annotations

from tests.conformance.harness import Call

ERROR = "Error"


def scenario_search_billing(call: Call) -> None:
    prices = call("GET", "/v1/prices/search", status=200, shape="ApiSearchResult<Price>",
                  params={"query": "lookup_key:'cb-01m-usd' AND active:'true'"})
    call("GET", "/v1/prices/search", status=400, shape=ERROR, params={"query": "amount>1"})
    call("GET", "/v1/products/search", status=200, shape="ApiSearchResult<Product>",
         params={"query": f"active:'true' AND -name:null AND -url:'{prices['url']}'"})
    call("GET", "/v1/products/search", status=400, shape=ERROR, params={"query": "name~'ab'"})
    call("GET", "/v1/subscriptions/search", status=200, shape="ApiSearchResult<Subscription>",
         params={"query": "status:'active' AND metadata['order_id']:'6735'"})
    call("GET", "/v1/subscriptions/search", status=400, shape=ERROR,
         params={"query": "status:'active' OR"})
    call("GET", "/v1/invoices/search", status=200, shape="ApiSearchResult<Invoice>",
         params={"query": "total>999 AND status:'paid'", "expand[]": "total_count"})
    call("GET", "/v1/invoices/search", status=400, shape=ERROR,
         params={"query": "total>'lots'"})


def scenario_credit_note_preview(call: Call) -> None:
    customer = call("POST", "/v1/customers", status=200, shape="Customer",
                    data={"email": "preview@example.com"})
    method = call("POST", "/v1/payment_methods/pm_card_visa/attach", status=200,
                  shape="PaymentMethod", data={"customer": customer["id"]})
    price = call("GET", "/v1/prices/search", status=200, shape="ApiSearchResult<Price>",
                 params={"query": "lookup_key:'cb-01m-usd'"})["data"][0]["id"]
    sub = call("POST", "/v1/subscriptions", status=200, shape="Subscription", data={
        "customer": customer["id"], "items[0][price]": price,
        "default_payment_method": method["id"]})
    asked = {"invoice": sub["latest_invoice"], "amount": 500, "credit_amount": 500}
    call("GET", "/v1/credit_notes/preview", status=200, shape="CreditNote", params=asked)
    call("GET", "/v1/credit_notes/preview", status=400, shape=ERROR,
         params={**asked, "credit_amount": 400})
    call("GET", "/v1/credit_notes/preview/lines", status=200,
         shape="ApiList<CreditNoteLineItem>", params={**asked, "limit": 3})
    call("GET", "/v1/credit_notes/preview/lines", status=400, shape=ERROR,
         params={**asked, "invoice": "in_nothing"})
