"""Stripe Billing in the checkout: subscriptions and their state machine on the episode's
clock, invoices, credit notes and the customer's balance. Each test cites the Stripe
documentation of the behaviour it checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replicas.checkout.rules.common import World

MakeApi = Callable[..., Any]
DAY = 86400


async def _customer(api: Any, card: str = "pm_card_visa") -> tuple[str, str, str]:
    """A new customer with ``card`` attached, and the monthly Bean Club price in USD."""
    customer = await api.ok("POST", "/v1/customers", json={"email": "sub@example.com"})
    method = await api.ok("POST", f"/v1/payment_methods/{card}/attach",
                          json={"customer": customer["id"]})
    prices = await api.ok("GET", "/v1/prices", params={"currency": "usd",
                                                       "limit": 100})
    monthly = next(p for p in prices["data"] if p["lookup_key"] == "cb-01m-usd")
    return customer["id"], method["id"], monthly["id"]


async def _subscribe(api: Any, card: str = "pm_card_visa", **extra: Any) -> dict[str, Any]:
    customer, method, price = await _customer(api, card)
    return dict(await api.ok("POST", "/v1/subscriptions", json={
        "customer": customer, "items": [{"price": price}],
        "default_payment_method": method, **extra}))


async def _move(api: Any, table: str, object_id: str, **values: int) -> None:
    """Set times of an object as if the clock had moved (tests only)."""
    def act(w: World) -> None:
        sets = ", ".join(f"{k} = ?" for k in values)
        w.db.execute(f"UPDATE {table} SET {sets} WHERE stripe_id = ?",
                     (*values.values(), object_id))
    await api.world(act)


async def test_a_subscription_is_active_once_its_first_invoice_is_paid(
        make_api: MakeApi) -> None:
    """docs.stripe.com/billing/subscriptions/overview#subscription-statuses: a subscription
    whose first invoice is paid is active; the invoice is paid, numbered, with a line per item
    (docs.stripe.com/api/invoices/object)."""
    api = make_api()
    sub = await _subscribe(api)
    assert sub["status"] == "active"
    assert sub["items"]["data"][0]["plan"]["interval"] == "month"
    invoice = await api.ok("GET", f"/v1/invoices/{sub['latest_invoice']}")
    assert (invoice["status"], invoice["billing_reason"]) == ("paid", "subscription_create")
    assert invoice["amount_paid"] == invoice["total"] == 1800
    assert invoice["lines"]["data"][0]["description"].startswith("1 × Bean Club Monthly")
    assert invoice["parent"]["subscription_details"]["subscription"] == sub["id"]


async def test_a_declined_first_payment_leaves_it_incomplete_then_expired(
        make_api: MakeApi) -> None:
    """docs.stripe.com/billing/subscriptions/overview#payment-status: a failed first payment
    leaves the subscription incomplete; after 23 hours it is incomplete_expired and its invoice
    void. payment_behavior=error_if_incomplete refuses it with the card error
    (docs.stripe.com/api/subscriptions/create#create_subscription-payment_behavior)."""
    api = make_api()
    sub = await _subscribe(api, "pm_card_chargeDeclined")
    assert sub["status"] == "incomplete"
    invoice = await api.ok("GET", f"/v1/invoices/{sub['latest_invoice']}")
    assert (invoice["status"], invoice["attempt_count"]) == ("open", 1)
    await _move(api, "subscriptions", sub["id"], start_date=0)
    await api.ok("POST", "/v1/customers", json={})  # a write: the clock's work is done
    expired = await api.ok("GET", f"/v1/subscriptions/{sub['id']}")
    assert expired["status"] == "incomplete_expired"
    assert (await api.ok("GET", f"/v1/invoices/{invoice['id']}"))["status"] == "void"
    customer, method, price = await _customer(api, "pm_card_chargeDeclined")
    await api.refused("POST", "/v1/subscriptions", 402, "card_declined", json={
        "customer": customer, "items": [{"price": price}], "default_payment_method": method,
        "payment_behavior": "error_if_incomplete"})
    assert (await api.ok("GET", "/v1/subscriptions", params={"customer": customer}))[
        "data"] == []


async def test_renewals_on_the_clock_past_due_unpaid_and_paid_again(make_api: MakeApi) -> None:
    """docs.stripe.com/billing/subscriptions/overview#subscription-lifecycle: each period
    ends in a renewal invoice (subscription_cycle); a failed renewal makes it past_due, and
    when the retries end, unpaid (the account's setting); paying the invoice makes it active
    again (docs.stripe.com/api/invoices/pay)."""
    api = make_api()
    sub = await _subscribe(api)
    await api.ok("POST", "/v1/payment_methods/pm_card_chargeDeclined/attach",
                 json={"customer": sub["customer"]})
    declining = (await api.ok("GET", "/v1/payment_methods", params={
        "customer": sub["customer"], "type": "card"}))["data"][0]["id"]
    await api.ok("POST", f"/v1/subscriptions/{sub['id']}",
                 json={"default_payment_method": declining})
    await _move(api, "subscriptions", sub["id"], current_period_end=1)
    await api.ok("POST", "/v1/customers", json={})
    renewed = await api.ok("GET", f"/v1/subscriptions/{sub['id']}")
    assert renewed["status"] == "past_due"
    invoice = await api.ok("GET", f"/v1/invoices/{renewed['latest_invoice']}")
    assert (invoice["billing_reason"], invoice["status"]) == ("subscription_cycle", "open")
    await _move(api, "invoices", invoice["id"], finalized_at=1)
    await api.ok("POST", "/v1/customers", json={})
    assert (await api.ok("GET", f"/v1/subscriptions/{sub['id']}"))["status"] == "unpaid"
    await api.refused("POST", f"/v1/invoices/{invoice['id']}/pay", 402, "card_declined",
                      json={})
    paid = await api.ok("POST", f"/v1/invoices/{invoice['id']}/pay",
                        json={"payment_method": sub["default_payment_method"]})
    assert (paid["status"], paid["attempt_count"]) == ("paid", 3)
    assert (await api.ok("GET", f"/v1/subscriptions/{sub['id']}"))["status"] == "active"


async def test_cancel_at_period_end_then_at_once(make_api: MakeApi) -> None:
    """docs.stripe.com/billing/subscriptions/cancel: cancel_at_period_end keeps it active
    until its period ends, then it is canceled; DELETE cancels at once; a canceled one takes
    no other update."""
    api = make_api()
    sub = await _subscribe(api)
    later = await api.ok("POST", f"/v1/subscriptions/{sub['id']}", json={
        "cancel_at_period_end": True, "cancellation_details": {"feedback": "too_expensive"}})
    assert (later["status"], later["cancel_at"]) == ("active", sub["items"]["data"][0][
        "current_period_end"])
    assert later["cancellation_details"]["feedback"] == "too_expensive"
    await _move(api, "subscriptions", sub["id"], current_period_end=1, cancel_at=1)
    await api.ok("POST", "/v1/customers", json={})
    ended = await api.ok("GET", f"/v1/subscriptions/{sub['id']}")
    assert (ended["status"], ended["ended_at"]) == ("canceled", 1)
    assert ended["cancellation_details"]["reason"] == "cancellation_requested"
    other = await _subscribe(api)
    canceled = await api.ok("DELETE", f"/v1/subscriptions/{other['id']}")
    assert canceled["status"] == "canceled"
    await api.refused("POST", f"/v1/subscriptions/{other['id']}", 400,
                      "subscription_unexpected_state", json={"description": "x"})
    listed = await api.ok("GET", "/v1/subscriptions", params={"status": "canceled"})
    assert {s["id"] for s in listed["data"]} >= {sub["id"], other["id"]}


async def test_cancel_takes_its_parameters_from_the_query_too(make_api: MakeApi) -> None:
    """docs.stripe.com/api/subscriptions/cancel (DELETE /v1/subscriptions/:id with
    cancellation_details, invoice_now, prorate): Stripe's libraries send a DELETE's
    parameters in the query string; a bad one is refused naming it."""
    api = make_api()
    sub = await _subscribe(api)
    error = await api.refused("DELETE", f"/v1/subscriptions/{sub['id']}", 400,
                              "parameter_invalid", params={
                                  "cancellation_details[feedback]": "bored"})
    assert error["param"] == "cancellation_details[feedback]"
    ended = await api.ok("DELETE", f"/v1/subscriptions/{sub['id']}", params={
        "cancellation_details[comment]": "Moving abroad",
        "cancellation_details[feedback]": "other"})
    assert ended["status"] == "canceled"
    assert (ended["cancellation_details"]["comment"],
            ended["cancellation_details"]["feedback"]) == ("Moving abroad", "other")


async def test_a_trial_bills_nothing_until_it_ends(make_api: MakeApi) -> None:
    """docs.stripe.com/billing/subscriptions/trials: trialing, a $0 invoice; at the trial's
    end the first paid period is invoiced and the subscription is active."""
    api = make_api()
    sub = await _subscribe(api, trial_period_days=14)
    assert (sub["status"], sub["trial_end"] - sub["trial_start"]) == ("trialing", 14 * DAY)
    first = await api.ok("GET", f"/v1/invoices/{sub['latest_invoice']}")
    assert (first["status"], first["amount_due"]) == ("paid", 0)
    await _move(api, "subscriptions", sub["id"], current_period_end=1)
    await api.ok("POST", "/v1/customers", json={})
    active = await api.ok("GET", f"/v1/subscriptions/{sub['id']}")
    assert active["status"] == "active"
    assert (await api.ok("GET", f"/v1/invoices/{active['latest_invoice']}"))[
        "amount_paid"] == 1800


async def test_invoice_drafts_finalize_void_uncollectible(make_api: MakeApi) -> None:
    """docs.stripe.com/invoicing/overview#invoice-lifecycle: a draft is editable, finalized
    it is open and numbered, and only then voided or marked uncollectible; only one-off drafts
    are deleted; a finalized invoice's lines no longer change (invoice_not_editable)."""
    api = make_api()
    customer, method, price = await _customer(api)
    draft = await api.ok("POST", "/v1/invoices", json={
        "customer": customer, "collection_method": "send_invoice", "days_until_due": 30})
    assert (draft["status"], draft["number"]) == ("draft", None)
    await api.refused("POST", f"/v1/invoices/{draft['id']}/void", 400,
                      "invoice_unexpected_state", json={})
    lined = await api.ok("POST", f"/v1/invoices/{draft['id']}/add_lines", json={"lines": [
        {"pricing": {"price": price}, "quantity": 2},
        {"amount": 500, "description": "Gift wrap"}]})
    assert lined["total"] == 4100
    opened = await api.ok("POST", f"/v1/invoices/{draft['id']}/finalize", json={})
    assert (opened["status"], opened["amount_due"]) == ("open", 4100)
    assert opened["number"].startswith("CGS-")
    await api.refused("POST", f"/v1/invoices/{draft['id']}/add_lines", 400,
                      "invoice_not_editable", json={"lines": [{"amount": 1}]})
    bad = await api.ok("POST", f"/v1/invoices/{draft['id']}/mark_uncollectible", json={})
    assert bad["status"] == "uncollectible"
    voided = await api.ok("POST", f"/v1/invoices/{draft['id']}/void", json={})
    assert voided["status"] == "void"
    await api.refused("DELETE", f"/v1/invoices/{draft['id']}", 400,
                      "invoice_unexpected_state")
    other = await api.ok("POST", "/v1/invoices", json={"customer": customer})
    deleted = await api.ok("DELETE", f"/v1/invoices/{other['id']}")
    assert deleted == {"id": other["id"], "object": "invoice", "deleted": True}
    await api.refused("POST", "/v1/invoices", 400, "parameter_missing", json={
        "customer": customer, "collection_method": "send_invoice"})


async def test_credit_notes_lower_what_is_due_or_give_money_back(make_api: MakeApi) -> None:
    """docs.stripe.com/invoicing/dashboard/credit-notes: on an open invoice a credit note
    lowers the amount due (pre_payment); on a paid one its amount is refunded, credited to the
    customer's balance or given out of band, adding up to it (post_payment); never more than
    is left; voiding gives it back."""
    api = make_api()
    sub = await _subscribe(api)
    paid = await api.ok("GET", f"/v1/invoices/{sub['latest_invoice']}")
    line = paid["lines"]["data"][0]["id"]
    await api.refused("POST", "/v1/credit_notes", 400, "parameter_invalid", json={
        "invoice": paid["id"], "amount": 600, "credit_amount": 500})
    note = await api.ok("POST", "/v1/credit_notes", json={
        "invoice": paid["id"], "lines": [{"type": "invoice_line_item",
                                          "invoice_line_item": line, "amount": 600}],
        "credit_amount": 400, "refund_amount": 200, "reason": "product_unsatisfactory"})
    assert (note["type"], note["amount"], note["refunds"][0]["amount_refunded"]) == (
        "post_payment", 600, 200)
    refund = await api.ok("GET", f"/v1/refunds/{note['refunds'][0]['refund']}")
    assert refund["amount"] == 200
    customer = await api.ok("GET", f"/v1/customers/{sub['customer']}")
    assert customer["balance"] == -400
    await api.refused("POST", "/v1/credit_notes", 400, "parameter_invalid", json={
        "invoice": paid["id"], "amount": 1300, "credit_amount": 1300})
    await api.refused("POST", f"/v1/credit_notes/{note['id']}/void", 400,
                      "credit_note_unexpected_state", json={})
    again = await api.ok("GET", f"/v1/invoices/{paid['id']}")
    assert again["post_payment_credit_notes_amount"] == 600


async def test_a_credit_note_preview_is_the_one_create_would_make_saved_nowhere(
        make_api: MakeApi) -> None:
    """docs.stripe.com/api/credit_notes/preview and /preview_lines: the create parameters in
    the query (GET, bracket notation) give the credit note and lines create would make,
    computed by its rules and issued nowhere; what create would refuse, preview refuses."""
    api = make_api()
    sub = await _subscribe(api)
    paid = await api.ok("GET", f"/v1/invoices/{sub['latest_invoice']}")
    line = paid["lines"]["data"][0]["id"]
    asked = {"invoice": paid["id"], "lines[0][type]": "invoice_line_item",
             "lines[0][invoice_line_item]": line, "lines[0][amount]": "600",
             "lines[1][type]": "custom_line_item", "lines[1][unit_amount]": "150",
             "lines[1][description]": "Goodwill", "credit_amount": "750",
             "metadata[ticket]": "T-1"}
    preview = await api.ok("GET", "/v1/credit_notes/preview", params=asked)
    assert (preview["object"], preview["type"], preview["amount"], preview["status"]) == (
        "credit_note", "post_payment", 750, "issued")
    assert [x["amount"] for x in preview["lines"]["data"]] == [600, 150]
    assert preview["metadata"] == {"ticket": "T-1"}
    first = await api.ok("GET", "/v1/credit_notes/preview/lines",
                         params={**asked, "limit": 1})
    assert (first["url"], first["has_more"], len(first["data"])) == (
        "/v1/credit_notes/preview/lines", True, 1)
    rest = await api.ok("GET", "/v1/credit_notes/preview/lines",
                        params={**asked, "starting_after": first["data"][0]["id"]})
    assert [x["amount"] for x in rest["data"]] == [150] and not rest["has_more"]
    assert (await api.ok("GET", "/v1/credit_notes", params={"invoice": paid["id"]}))[
        "data"] == []
    assert (await api.ok("GET", f"/v1/customers/{sub['customer']}"))["balance"] == 0
    await api.refused("GET", "/v1/credit_notes/preview", 400, "parameter_invalid",
                      params={**asked, "credit_amount": "700"})
    error = await api.refused("GET", "/v1/credit_notes/preview", 400, "parameter_invalid",
                              params={**asked, "lines[1][type]": "discount"})
    assert error["param"] == "lines[1][type]"
    created = await api.ok("POST", "/v1/credit_notes", json={
        "invoice": paid["id"], "credit_amount": 750, "metadata": {"ticket": "T-1"},
        "lines": [{"type": "invoice_line_item", "invoice_line_item": line, "amount": 600},
                  {"type": "custom_line_item", "unit_amount": 150,
                   "description": "Goodwill"}]})
    later = ("created", "effective_at", "customer_balance_transaction")  # the clock moved
    assert {k: v for k, v in created.items() if k not in later} == {
        k: v for k, v in preview.items() if k not in later}


async def test_the_customer_balance_pays_the_next_invoice(make_api: MakeApi) -> None:
    """docs.stripe.com/billing/customer/balance: a negative balance is credit, applied to the
    customer's next finalized invoice (applied_to_invoice), and the customer's balance is the
    sum of its transactions; voiding the invoice gives it back (unapplied_from_invoice)."""
    api = make_api()
    customer, method, price = await _customer(api)
    path = f"/v1/customers/{customer}/balance_transactions"
    credit = await api.ok("POST", path, json={"amount": -2500, "currency": "usd",
                                              "description": "Goodwill"})
    assert (credit["type"], credit["ending_balance"]) == ("adjustment", -2500)
    await api.refused("POST", path, 400, "parameter_invalid",
                      json={"amount": 100, "currency": "eur"})
    draft = await api.ok("POST", "/v1/invoices", json={"customer": customer})
    await api.ok("POST", f"/v1/invoices/{draft['id']}/add_lines",
                 json={"lines": [{"pricing": {"price": price}}]})
    opened = await api.ok("POST", f"/v1/invoices/{draft['id']}/finalize", json={})
    assert (opened["status"], opened["amount_due"]) == ("paid", 0)
    assert (opened["starting_balance"], opened["ending_balance"]) == (-2500, -700)
    listed = await api.ok("GET", path)
    assert [t["type"] for t in listed["data"]] == ["applied_to_invoice", "adjustment"]
    assert (await api.ok("GET", f"/v1/customers/{customer}"))["balance"] == -700
    updated = await api.ok("POST", f"{path}/{credit['id']}", json={"description": "Sorry"})
    assert updated["description"] == "Sorry"
    await api.refused("GET", f"{path}/cbtxn_nothing", 404, "resource_missing")


async def test_charges_and_refunds_move_the_balance(make_api: MakeApi) -> None:
    """docs.stripe.com/api/balance_transactions/object: a captured charge is a balance
    transaction of its amount less Stripe's fee (net), available later; a refund takes its
    amount back at once (docs.stripe.com/payments/balances)."""
    api = make_api()
    customer, method, _ = await _customer(api)
    paid = await api.ok("POST", "/v1/payment_intents", json={
        "amount": 10000, "currency": "usd", "customer": customer, "payment_method": method,
        "confirm": True})
    found = await api.ok("GET", "/v1/balance_transactions",
                         params={"source": paid["latest_charge"]})
    txn = found["data"][0]
    assert (txn["type"], txn["amount"], txn["fee"], txn["net"], txn["status"]) == (
        "charge", 10000, 320, 9680, "pending")
    assert txn["fee_details"][0]["type"] == "stripe_fee"
    refund = await api.ok("POST", "/v1/refunds", json={"payment_intent": paid["id"],
                                                       "amount": 2500})
    back = await api.ok("GET", "/v1/balance_transactions", params={"source": refund["id"],
                                                                   "expand[]": "data.source"})
    assert (back["data"][0]["amount"], back["data"][0]["source"]["id"]) == (-2500, refund["id"])
    # The charge and the refund name their balance transactions (api/charges/object,
    # api/refunds/object: balance_transaction, expandable).
    assert refund["balance_transaction"] == back["data"][0]["id"]
    shown = await api.ok("GET", f"/v1/charges/{paid['latest_charge']}",
                         params={"expand[]": "balance_transaction"})
    assert shown["balance_transaction"]["id"] == txn["id"]
    await api.refused("GET", "/v1/balance_transactions/txn_nothing", 404, "resource_missing")


async def test_payouts_send_what_is_available_pending_in_transit_paid(
        make_api: MakeApi) -> None:
    """docs.stripe.com/api/payouts: a payout takes available funds (more is
    balance_insufficient), is pending, then in transit, then paid on its arrival date; only a
    pending payout can be canceled, and its amount is available again
    (docs.stripe.com/api/payouts/cancel)."""
    api = make_api()
    balance = await api.ok("GET", "/v1/balance")
    usd = next(a["amount"] for a in balance["available"] if a["currency"] == "usd")
    await api.refused("POST", "/v1/payouts", 400, "balance_insufficient",
                      json={"amount": usd + 1, "currency": "usd"})
    payout = await api.ok("POST", "/v1/payouts", json={"amount": 5000, "currency": "usd"})
    assert (payout["status"], payout["automatic"]) == ("pending", False)
    after = await api.ok("GET", "/v1/balance")
    assert next(a["amount"] for a in after["available"] if a["currency"] == "usd") == usd - 5000
    canceled = await api.ok("POST", f"/v1/payouts/{payout['id']}/cancel", json={})
    assert canceled["status"] == "canceled"
    again = await api.ok("GET", "/v1/balance")
    assert next(a["amount"] for a in again["available"] if a["currency"] == "usd") == usd
    other = await api.ok("POST", "/v1/payouts", json={"amount": 5000, "currency": "usd"})
    await _move(api, "payouts", other["id"], created=1)
    await api.ok("POST", "/v1/customers", json={})
    assert (await api.ok("GET", f"/v1/payouts/{other['id']}"))["status"] == "in_transit"
    await api.refused("POST", f"/v1/payouts/{other['id']}/cancel", 400,
                      "payout_unexpected_state", json={})
    await _move(api, "payouts", other["id"], arrival_date=1)
    await api.ok("POST", "/v1/customers", json={})
    assert (await api.ok("GET", f"/v1/payouts/{other['id']}"))["status"] == "paid"


async def test_the_seeded_world_has_billing_in_every_state(make_api: MakeApi) -> None:
    """The seeded account's Billing, as the README's mess table lists it: a past-due and an
    unpaid subscription on a declining card, trials, a cancellation at the period's end, draft
    invoices; nothing renews on the first write (docs.stripe.com/billing/subscriptions/
    overview#subscription-statuses)."""
    api = make_api()
    await api.ok("POST", "/v1/customers", json={})
    subs = await api.ok("GET", "/v1/subscriptions", params={"status": "all", "limit": 100})
    statuses = [s["status"] for s in subs["data"]]
    assert (statuses.count("past_due"), statuses.count("unpaid")) == (2, 1)
    assert {"trialing", "active", "canceled"} <= set(statuses)
    assert any(s["cancel_at_period_end"] for s in subs["data"])
    drafts = await api.ok("GET", "/v1/invoices", params={"status": "draft"})
    assert len(drafts["data"]) == 2
    past_due = next(s for s in subs["data"] if s["status"] == "past_due")
    invoice = await api.ok("GET", f"/v1/invoices/{past_due['latest_invoice']}")
    assert (invoice["status"], invoice["attempted"]) == ("open", True)
    payouts = await api.ok("GET", "/v1/payouts", params={"status": "in_transit"})
    assert payouts["data"] and all(p["automatic"] for p in payouts["data"])
    balances = {s["customer"]: (await api.ok("GET", f"/v1/customers/{s['customer']}"))[
        "balance"] for s in subs["data"] if s["status"] == "active"}
    credited = [c for c, owed in balances.items() if owed]
    assert [balances[c] for c in credited] == [-1500]
    txns = await api.ok("GET", f"/v1/customers/{credited[0]}/balance_transactions")
    assert sum(t["amount"] for t in txns["data"]) == -1500


async def test_the_invoice_factory_makes_a_paid_or_open_invoice(make_api: MakeApi) -> None:
    """The invoice factory (task setup) makes a sent invoice as the API would: numbered, its
    lines from the catalogue's prices, a paid one with its PaymentIntent, charge and balance
    transaction, so that a credit note refunds it (docs.stripe.com/api/credit_notes/create,
    refund_amount)."""
    api = make_api(setup=[
        {"factory": "customer", "bind": "customer", "currency": "eur"},
        {"factory": "invoice", "bind": "paid", "customer": "$customer.stripe_id",
         "items": "GR-100:1,KT-220:2", "status": "paid", "at": "@now-5d"},
        {"factory": "invoice", "bind": "due", "customer": "$customer.stripe_id"}])
    paid = await api.ok("GET", f"/v1/invoices/{api.vars['paid']['stripe_id']}")
    assert (paid["status"], paid["currency"], paid["total"]) == ("paid", "eur", 8500 + 11000)
    assert [line["quantity"] for line in paid["lines"]["data"]] == [1, 2]
    assert paid["number"] != (await api.ok("GET", f"/v1/invoices/{api.vars['due']['stripe_id']}"
                                           ))["number"]
    note = await api.ok("POST", "/v1/credit_notes", json={
        "invoice": paid["id"], "lines": [{"type": "invoice_line_item",
                                          "invoice_line_item": paid["lines"]["data"][1]["id"]}],
        "refund_amount": 11000})
    refund = await api.ok("GET", f"/v1/refunds/{note['refunds'][0]['refund']}")
    assert refund["amount"] == 11000
    charges = await api.ok("GET", "/v1/balance_transactions", params={"type": "charge",
                                                                      "currency": "eur"})
    assert any(t["amount"] == 19500 for t in charges["data"])
