"""The payments dashboard and the store's orders in a real headless Chromium (Debian's, driven
by Playwright) through a real `workgym serve`: the browser filters payments, refunds part of
one, is refused a refund the approval policy holds back (nothing changes, the page says why),
captures part of an authorization, submits a dispute's evidence and records an order's
return; then Stripe's own library (and the store's API) read each change on the same
episode, as the API's routes would have made it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import stripe
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER, entered, served
from workgym.sdk import Observation

pytestmark = BROWSER
# Its order's payment is an authorization not yet captured.
TASK = "checkout/capture-partial-shipment"
APPROVAL_ABOVE = 50000  # US cents (world.yaml's refund_policy)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory, "dashboard") as url:
        yield url


@pytest.fixture
def episode(server: str) -> Iterator[Observation]:
    """An episode of its own for each test (the task's step budget is an episode's)."""
    with workgym.connect(server, TASK, seed=0, faults="none") as run:
        yield run.reset()


@pytest.fixture
def page(browser: Browser, episode: Observation) -> Iterator[Page]:
    with entered(browser, episode, "checkout", "/dashboard/payments") as page:
        expect(page.locator("h1")).to_have_text("Payments")
        yield page


@pytest.fixture
def client(episode: Observation) -> stripe.StripeClient:
    return stripe.StripeClient(episode.token, base_addresses={"api": episode.apps["checkout"]},
                               max_network_retries=0)


@pytest.fixture
def store(episode: Observation) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=episode.apps["checkout"],
                      headers={"Authorization": f"Bearer {episode.token}"}) as found:
        yield found


def _go(page: Page, episode: Observation, path: str) -> None:
    page.goto(f"{episode.apps['checkout']}{path}")


def _filtered_by_status(page: Page, status: str) -> set[str]:
    """The payments the list shows once filtered by ``status`` (their ids)."""
    page.get_by_label("Status").select_option(status)
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(rf"status={status}"))
    rows = page.locator("tbody tr[data-testid^='payment-row-']")
    return {str(r.get_attribute("data-testid")).removeprefix("payment-row-") for r in rows.all()}


def _intents(client: stripe.StripeClient) -> list[Any]:
    return list(client.v1.payment_intents.list(
        {"limit": 100, "expand": ["data.latest_charge"]}).auto_paging_iter())


def _untouched(client: stripe.StripeClient, currency: str, low: int, high: int) -> Any:
    """A payment that succeeded, in ``currency``, between ``low`` and ``high``, with no
    refund and no dispute."""
    for intent in _intents(client):
        if intent.status != "succeeded" or intent.currency != currency \
                or not low <= intent.amount <= high:
            continue
        if not intent.latest_charge.amount_refunded and not intent.latest_charge.disputed:
            return intent
    raise AssertionError(f"no untouched {currency} payment between {low} and {high}")


def test_the_status_and_email_filters_show_only_those_payments(
        page: Page, client: stripe.StripeClient) -> None:
    uncaptured = {i.id for i in _intents(client) if i.status == "requires_capture"}
    assert uncaptured
    assert _filtered_by_status(page, "uncaptured") == uncaptured
    expect(page.locator("[data-testid^='payment-status-']")).to_have_text(
        ["Uncaptured"] * len(uncaptured))

    intent = client.v1.payment_intents.retrieve(sorted(uncaptured)[0])
    email = client.v1.customers.retrieve(intent.customer).email
    page.get_by_label("Status").select_option("")
    page.get_by_label("Customer email").fill(email)
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"email=[^&]+"))
    expect(page.get_by_test_id(f"payment-row-{intent.id}")).to_be_visible()
    for row in page.locator("tbody tr[data-testid^='payment-row-']").all():
        expect(row).to_contain_text(email)


def test_the_incomplete_filter_shows_the_payments_waiting_on_the_customer(
        page: Page, client: stripe.StripeClient) -> None:
    waiting = {i.id for i in _intents(client) if i.status in (
        "requires_payment_method", "requires_confirmation", "requires_action")
        and i.last_payment_error is None}
    assert waiting
    assert _filtered_by_status(page, "incomplete") == waiting
    expect(page.locator("[data-testid^='payment-status-']")).to_have_text(
        ["Incomplete"] * len(waiting))


def test_the_amount_created_range_and_paging_of_the_payments_list(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    intent = next(i for i in _intents(client) if i.status == "requires_capture")
    day = datetime.fromtimestamp(intent.created, UTC).date()
    page.get_by_label("Amount").fill(f"{intent.amount / 100:.2f}")
    page.get_by_label("Currency").select_option(intent.currency)
    page.get_by_label("Created from").fill(day.isoformat())
    page.get_by_label("Created to").fill(day.isoformat())
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id(f"payment-row-{intent.id}")).to_be_visible()
    for row in page.locator("tbody tr[data-testid^='payment-row-']").all():
        expect(row).to_contain_text(day.isoformat())

    page.get_by_label("Created from").fill((day + timedelta(days=1)).isoformat())
    page.get_by_label("Created to").fill((day + timedelta(days=1)).isoformat())
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id(f"payment-row-{intent.id}")).to_have_count(0)

    _go(page, episode, "/dashboard/payments")
    first = page.locator("tbody tr[data-testid^='payment-row-']")
    expect(first).to_have_count(25)
    on_first = {r.get_attribute("data-testid") for r in first.all()}
    page.get_by_role("link", name="Next page").click()
    expect(page.get_by_test_id("page-number")).to_have_text("Page 2")
    on_second = {r.get_attribute("data-testid") for r in first.all()}
    assert len(on_second) == 25 and not on_first & on_second


def test_a_partial_refund_on_the_page_is_the_apis_refund(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    intent = _untouched(client, "usd", 1000, APPROVAL_ABOVE)
    _go(page, episode, f"/dashboard/payments/{intent.id}")
    earlier = page.context.new_page()  # the same payment open in another tab
    _go(earlier, episode, f"/dashboard/payments/{intent.id}")
    page.get_by_test_id("refund-amount").fill("4.25")
    page.get_by_label("Reason").select_option("requested_by_customer")
    page.get_by_role("button", name="Refund", exact=True).click()

    expect(page.get_by_role("status")).to_contain_text("created")
    expect(page.get_by_test_id("payment-status")).to_have_text("Partially refunded")
    refunds = client.v1.refunds.list({"payment_intent": intent.id}).data
    assert [(r.amount, r.reason, r.status) for r in refunds] == [
        (425, "requested_by_customer", "succeeded")]
    assert client.v1.charges.retrieve(intent.latest_charge.id).amount_refunded == 425
    events = client.v1.events.list({"type": "charge.refunded", "limit": 100}).data
    assert any(e.data.object["id"] == intent.latest_charge.id for e in events)
    expect(page.get_by_test_id(f"refund-row-{refunds[0].id}")).to_contain_text("$4.25")

    # The other tab's form, made before the refund, sent: refused, refunded once.
    earlier.get_by_test_id("refund-amount").fill("4.25")
    earlier.get_by_role("button", name="Refund", exact=True).click()
    expect(earlier.get_by_role("alert")).to_contain_text("changed since the page was shown")
    assert len(client.v1.refunds.list({"payment_intent": intent.id}).data) == 1


def test_a_refund_the_policy_holds_back_says_why_and_changes_nothing(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    intent = _untouched(client, "usd", APPROVAL_ABOVE + 1, 10**9)
    _go(page, episode, f"/dashboard/payments/{intent.id}")
    page.get_by_role("button", name="Refund", exact=True).click()

    expect(page.get_by_role("alert")).to_contain_text("needs a manager's approval")
    assert client.v1.refunds.list({"payment_intent": intent.id}).data == []
    assert client.v1.charges.retrieve(intent.latest_charge.id).amount_refunded == 0

    # The manager's approval asked on the page, then named in the refund: it goes out.
    _go(page, episode, f"/dashboard/payments/{intent.id}")
    page.get_by_test_id("approval-amount").fill(f"{intent.amount / 100:.2f}")
    page.get_by_label("Why the customer is refunded").fill("Returned unopened")
    page.get_by_role("button", name="Ask for approval").click()
    expect(page.get_by_role("status")).to_contain_text("approved")
    approval = re.search(r"Approval (\d+) approved", page.get_by_role("status").inner_text())
    assert approval is not None
    page.get_by_test_id("refund-approval").fill(approval.group(1))
    page.get_by_role("button", name="Refund", exact=True).click()
    expect(page.get_by_test_id("payment-status")).to_have_text("Refunded")
    (made,) = client.v1.refunds.list({"payment_intent": intent.id}).data
    assert (made.amount, made.metadata["approval"]) == (intent.amount, approval.group(1))


def test_an_amount_the_currency_cannot_have_is_refused_naming_it(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    intent = _untouched(client, "usd", 1000, APPROVAL_ABOVE)
    _go(page, episode, f"/dashboard/payments/{intent.id}")
    page.get_by_test_id("refund-amount").fill("4.255")
    page.get_by_role("button", name="Refund", exact=True).click()

    expect(page.get_by_role("alert")).to_have_text(
        "Amount '4.255' is not an amount in USD (at most 2 decimal places, more than zero).")
    assert client.v1.refunds.list({"payment_intent": intent.id}).data == []


def test_a_partial_capture_takes_that_amount_and_releases_the_rest(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    intent = next(i for i in _intents(client) if i.status == "requires_capture")
    _go(page, episode, f"/dashboard/payments/{intent.id}")
    page.get_by_test_id("capture-amount").fill(f"{(intent.amount - 100) / 100:.2f}")
    page.get_by_role("button", name="Capture").click()

    expect(page.get_by_test_id("payment-status")).to_have_text("Succeeded")
    after = client.v1.payment_intents.retrieve(intent.id)
    assert (after.status, after.amount_received) == ("succeeded", intent.amount - 100)
    captured = client.v1.charges.retrieve(intent.latest_charge.id).amount_captured
    assert captured == intent.amount - 100


def test_dispute_evidence_submitted_on_the_page_is_under_review(
        page: Page, episode: Observation, client: stripe.StripeClient) -> None:
    _go(page, episode, "/dashboard/disputes?status=needs_response")
    first = page.locator("[data-testid^='dispute-link-']").first
    dispute_id = str(first.get_attribute("data-testid")).removeprefix("dispute-link-")
    first.click()
    page.get_by_test_id("evidence-shipping_carrier").fill("DHL")
    page.get_by_test_id("evidence-shipping_tracking_number").fill("JD0123456789")
    page.get_by_role("button", name="Submit evidence").click()

    expect(page.get_by_role("status")).to_have_text("Evidence submitted to the bank.")
    dispute = client.v1.disputes.retrieve(dispute_id)
    assert dispute.status == "under_review"
    assert (dispute.evidence.shipping_carrier, dispute.evidence.shipping_tracking_number) == (
        "DHL", "JD0123456789")


def test_cancelling_an_unshipped_order_refunds_it_and_says_so(
        page: Page, episode: Observation, store: httpx.Client,
        client: stripe.StripeClient) -> None:
    order = store.get("/store/orders", params={"fulfillment_status": "unfulfilled",
                                               "status": "open"}).json()["data"][0]
    intent = client.v1.payment_intents.retrieve(order["payment_intent"])
    assert intent.status == "succeeded"
    _go(page, episode, f"/dashboard/orders/{order['id']}")
    page.get_by_label("Cancellation reason").fill("Changed their mind")
    page.get_by_role("button", name="Cancel order").click()

    expect(page.get_by_role("status")).to_have_text(
        f"Order cancelled. We refunded {page.get_by_test_id('order-total').inner_text()} "
        "to the customer's card.")
    after = store.get(f"/store/orders/{order['id']}").json()
    assert (after["status"], after["cancel_reason"]) == ("cancelled", "Changed their mind")
    assert sum(r.amount for r in client.v1.refunds.list(
        {"payment_intent": intent.id}).data) == order["total"]


def test_an_orders_return_on_the_page_is_the_stores_return(
        page: Page, episode: Observation, store: httpx.Client) -> None:
    order = store.get("/store/orders", params={"fulfillment_status": "fulfilled",
                                               "status": "open"}).json()["data"][0]
    item = order["items"][0]
    _go(page, episode, "/dashboard/orders")
    page.get_by_label("Order number or email").fill(order["number"])
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name=order["number"]).click()
    unit = page.get_by_test_id(f"item-unit-paid-{item['id']}").inner_text()
    page.get_by_label(f"Return quantity for {item['name']}").fill("1")
    page.get_by_label("Put back in stock").check()
    page.get_by_label("Reason").fill("Unused")
    page.get_by_role("button", name="Record return").click()

    expect(page.get_by_role("status")).to_contain_text("recorded")
    after = store.get(f"/store/orders/{order['id']}").json()
    assert [(r["restock"], r["reason"]) for r in after["returns"]] == [(True, "Unused")]
    back = next(i for i in after["items"] if i["id"] == item["id"])
    assert back["returned_quantity"] == 1
    refunded = after["returns"][0]["amount_refunded"]
    assert refunded > 0
    expect(page.get_by_test_id(f"return-refunded-{after['returns'][0]['id']}")).to_have_text(unit)
