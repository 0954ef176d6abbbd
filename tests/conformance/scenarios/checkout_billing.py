"""Stripe Billing and the account's balance on the checkout: subscriptions and their items,
invoices, credit notes, customer balance transactions, balance transactions, the balance and
payouts; each operation met with a success and an error, the bodies checked against
stripe-node's types (the shape names are its type names)."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import Call

ERROR = "Error"
NOT_AN_INTEGER = {"limit": "0"}  # below the minimum: Stripe's parameter_invalid_integer


def _customer_and_price(call: Call) -> tuple[str, str, str]:
    customer = call("POST", "/v1/customers", status=200, shape="Customer",
                    data={"email": "billing@example.com", "name": "Billing Scenario"})
    method = call("POST", "/v1/payment_methods/pm_card_visa/attach", status=200,
                  shape="PaymentMethod", data={"customer": customer["id"]})
    prices = call("GET", "/v1/prices", status=200, params={"currency": "usd", "limit": 100})
    monthly = next(p for p in prices["data"] if p["lookup_key"] == "cb-01m-usd")
    return customer["id"], method["id"], monthly["id"]


def _lists(call: Call, paths: list[tuple[str, dict[str, Any]]]) -> None:
    for path, params in paths:
        call("GET", path, status=200, params=params)
        call("GET", path, status=400, shape=ERROR, params={**params, **NOT_AN_INTEGER})


def scenario_subscriptions(call: Call) -> None:
    customer, method, price = _customer_and_price(call)
    sub = call("POST", "/v1/subscriptions", status=200, shape="Subscription", data={
        "customer": customer, "items[0][price]": price, "default_payment_method": method})
    call("POST", "/v1/subscriptions", status=400, shape=ERROR,
         data={"customer": customer, "items[0][price]": "price_nothing"})
    path = f"/v1/subscriptions/{sub['id']}"
    call("GET", path, status=200, shape="Subscription")
    call("GET", "/v1/subscriptions/sub_nothing", status=404, shape=ERROR)
    call("POST", path, status=200, shape="Subscription", data={"cancel_at_period_end": "true"})
    call("POST", path, status=400, shape=ERROR, data={"cancel_at": "1"})
    item = sub["items"]["data"][0]["id"]
    call("GET", f"/v1/subscription_items/{item}", status=200, shape="SubscriptionItem")
    call("GET", "/v1/subscription_items/si_nothing", status=404, shape=ERROR)
    _lists(call, [("/v1/subscriptions", {"customer": customer}),
                  ("/v1/subscription_items", {"subscription": sub["id"]})])
    call("DELETE", path, status=200, shape="Subscription")
    call("DELETE", path, status=400, shape=ERROR)


def scenario_invoices(call: Call) -> None:
    customer, _, price = _customer_and_price(call)
    draft = call("POST", "/v1/invoices", status=200, shape="Invoice", data={
        "customer": customer, "collection_method": "send_invoice", "days_until_due": "30"})
    call("POST", "/v1/invoices", status=400, shape=ERROR,
         data={"customer": customer, "collection_method": "send_invoice"})
    path = f"/v1/invoices/{draft['id']}"
    call("POST", f"{path}/add_lines", status=200, shape="Invoice",
         data={"lines[0][pricing][price]": price, "lines[0][quantity]": "2"})
    call("POST", f"{path}/add_lines", status=400, shape=ERROR,
         data={"lines[0][description]": "no amount"})
    call("GET", path, status=200, shape="Invoice")
    call("GET", "/v1/invoices/in_nothing", status=404, shape=ERROR)
    call("POST", path, status=200, shape="Invoice", data={"description": "Wholesale beans"})
    call("POST", path, status=400, shape=ERROR, data={"days_until_due": "-1"})
    call("POST", f"{path}/void", status=400, shape=ERROR)
    call("POST", f"{path}/finalize", status=200, shape="Invoice")
    call("POST", f"{path}/finalize", status=400, shape=ERROR)
    call("POST", f"{path}/mark_uncollectible", status=200, shape="Invoice")
    call("POST", f"{path}/mark_uncollectible", status=400, shape=ERROR)
    call("POST", f"{path}/pay", status=200, shape="Invoice", data={"paid_out_of_band": "true"})
    call("POST", f"{path}/pay", status=400, shape=ERROR)
    call("DELETE", path, status=400, shape=ERROR)
    other = call("POST", "/v1/invoices", status=200, shape="Invoice", data={"customer": customer})
    call("DELETE", f"/v1/invoices/{other['id']}", status=200, shape="DeletedInvoice")
    opened = call("POST", "/v1/invoices", status=200, shape="Invoice", data={
        "customer": customer, "collection_method": "send_invoice", "days_until_due": "7"})
    call("POST", f"/v1/invoices/{opened['id']}/add_lines", status=200, shape="Invoice",
         data={"lines[0][amount]": "900", "lines[0][description]": "Descaling service"})
    call("POST", f"/v1/invoices/{opened['id']}/finalize", status=200, shape="Invoice")
    call("POST", f"/v1/invoices/{opened['id']}/void", status=200, shape="Invoice")
    _lists(call, [("/v1/invoices", {"customer": customer}), (f"{path}/lines", {})])


def scenario_credit_notes_and_customer_balance(call: Call) -> None:
    customer, method, price = _customer_and_price(call)
    sub = call("POST", "/v1/subscriptions", status=200, shape="Subscription", data={
        "customer": customer, "items[0][price]": price, "default_payment_method": method})
    invoice = sub["latest_invoice"]
    note = call("POST", "/v1/credit_notes", status=200, shape="CreditNote", data={
        "invoice": invoice, "amount": "500", "credit_amount": "500",
        "reason": "product_unsatisfactory"})
    call("POST", "/v1/credit_notes", status=400, shape=ERROR,
         data={"invoice": invoice, "amount": "500"})
    path = f"/v1/credit_notes/{note['id']}"
    call("GET", path, status=200, shape="CreditNote")
    call("GET", "/v1/credit_notes/cn_nothing", status=404, shape=ERROR)
    call("POST", path, status=200, shape="CreditNote", data={"memo": "Late box"})
    call("POST", path, status=400, shape=ERROR, data={"amount": "1"})
    _lists(call, [("/v1/credit_notes", {"customer": customer}), (f"{path}/lines", {})])
    call("POST", f"{path}/void", status=200, shape="CreditNote")
    call("POST", f"{path}/void", status=400, shape=ERROR)
    balance = f"/v1/customers/{customer}/balance_transactions"
    txn = call("POST", balance, status=200, shape="CustomerBalanceTransaction",
               data={"amount": "-700", "currency": "usd", "description": "Goodwill"})
    call("POST", balance, status=400, shape=ERROR, data={"amount": "-700", "currency": "eur"})
    call("GET", f"{balance}/{txn['id']}", status=200, shape="CustomerBalanceTransaction")
    call("GET", f"{balance}/cbtxn_nothing", status=404, shape=ERROR)
    call("POST", f"{balance}/{txn['id']}", status=200, shape="CustomerBalanceTransaction",
         data={"description": "Goodwill: late box"})
    call("POST", f"{balance}/{txn['id']}", status=400, shape=ERROR, data={"amount": "1"})
    _lists(call, [(balance, {})])


def scenario_balance_and_payouts(call: Call) -> None:
    call("GET", "/v1/balance", status=200, shape="Balance")
    call("GET", "/v1/balance", status=401, headers={"Authorization": "Bearer sk_test_wrong"})
    found = call("GET", "/v1/balance_transactions", status=200, params={"type": "charge"})
    txn = found["data"][0]["id"]
    call("GET", f"/v1/balance_transactions/{txn}", status=200, shape="BalanceTransaction")
    call("GET", "/v1/balance_transactions/txn_nothing", status=404, shape=ERROR)
    payout = call("POST", "/v1/payouts", status=200, shape="Payout",
                  data={"amount": "1000", "currency": "usd"})
    call("POST", "/v1/payouts", status=400, shape=ERROR,
         data={"amount": "99999999", "currency": "usd"})
    path = f"/v1/payouts/{payout['id']}"
    call("GET", path, status=200, shape="Payout")
    call("GET", "/v1/payouts/po_nothing", status=404, shape=ERROR)
    call("POST", path, status=200, shape="Payout", data={"metadata[batch]": "weekly"})
    call("POST", path, status=400, shape=ERROR, data={"amount": "5"})
    call("POST", f"{path}/cancel", status=200, shape="Payout")
    call("POST", f"{path}/cancel", status=400, shape=ERROR)
    _lists(call, [("/v1/balance_transactions", {}), ("/v1/payouts", {})])
