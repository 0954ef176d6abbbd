"""Stripe's own Python library, unchanged but for its base URL and key, against an episode of
the checkout through a real `workgym serve` (proxy included): customers, payments, a declined
card, 3-D Secure, manual capture, refunds, disputes, coupons and promotion codes, a Checkout
Session, auto-paging, expansion and idempotent retries."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stripe

import workgym
from workgym.processes import serving

TASK = "checkout/refund-returned-order"


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the checkout's URL, the episode's token), with stripe configured to use them."""
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("stripe"))}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        saved = stripe.api_base, stripe.api_key, stripe.max_network_retries
        stripe.api_base, stripe.api_key = obs.apps["checkout"], obs.token
        stripe.max_network_retries = 0  # a retry would sleep; nothing here should need one
        try:
            yield obs.apps["checkout"], obs.token
        finally:
            stripe.api_base, stripe.api_key, stripe.max_network_retries = saved


def test_customers_and_a_payment(episode: Any) -> None:
    customer = stripe.Customer.create(email="ada@example.com", name="Ada Lovelace",
                                      metadata={"order": "A-99999"})
    assert customer.id.startswith("cus_") and customer.object == "customer"
    assert customer.metadata["order"] == "A-99999"
    assert stripe.Customer.modify(customer.id, name="Ada King").name == "Ada King"
    intent = stripe.PaymentIntent.create(amount=2000, currency="USD", customer=customer.id,
                                         payment_method="pm_card_visa", confirm=True)
    assert (intent.status, intent.currency, intent.amount_received) == ("succeeded", "usd",
                                                                        2000)
    charge = stripe.Charge.retrieve(intent.latest_charge)
    assert (charge.captured, charge.paid, charge.payment_method_details.card.last4) == (
        True, True, "4242")
    expanded = stripe.PaymentIntent.retrieve(intent.id, expand=["customer", "latest_charge"])
    assert expanded.customer.email == "ada@example.com"
    assert expanded.latest_charge.id == charge.id
    assert stripe.Customer.delete(customer.id).deleted is True


def test_a_declined_card_raises_card_error_with_its_decline_code(episode: Any) -> None:
    with pytest.raises(stripe.CardError) as declined:
        stripe.PaymentIntent.create(amount=1500, currency="gbp", confirm=True,
                                    payment_method="pm_card_chargeDeclinedInsufficientFunds")
    error = declined.value
    assert (error.http_status, error.code, error.error.decline_code) == (
        402, "card_declined", "insufficient_funds")
    intent = stripe.PaymentIntent.retrieve(error.error.payment_intent["id"])
    assert intent.status == "requires_payment_method"
    assert intent.last_payment_error.decline_code == "insufficient_funds"
    assert stripe.Charge.retrieve(error.error.charge).status == "failed"
    with pytest.raises(stripe.CardError) as expired:
        stripe.PaymentIntent.create(amount=900, currency="jpy", confirm=True,
                                    payment_method_data={"type": "card", "card": {
                                        "number": "4000000000000069", "exp_month": 12,
                                        "exp_year": 2030, "cvc": "123"}})
    assert expired.value.code == "expired_card"


def test_three_d_secure_requires_action_until_the_customer_authenticates(
        episode: tuple[str, str]) -> None:
    url, token = episode
    intent = stripe.PaymentIntent.create(
        amount=5000, currency="eur", payment_method="pm_card_authenticationRequired",
        confirm=True, return_url="https://shop.example/checkout/done")
    assert intent.status == "requires_action"
    assert intent.next_action.type == "redirect_to_url"
    challenge = intent.next_action.redirect_to_url.url
    # What the customer's browser does on the challenge page.
    answer = httpx.post(url + challenge.split("?")[0], headers={
        "Authorization": f"Bearer {token}"}, json={
        "client_secret": intent.client_secret, "outcome": "authenticate"})
    assert answer.status_code == 200, answer.text
    assert stripe.PaymentIntent.retrieve(intent.id).status == "succeeded"


def test_manual_capture_of_part_of_an_authorization(episode: Any) -> None:
    intent = stripe.PaymentIntent.create(amount=10000, currency="usd", confirm=True,
                                         capture_method="manual", payment_method="pm_card_visa")
    assert (intent.status, intent.amount_capturable) == ("requires_capture", 10000)
    captured = stripe.PaymentIntent.capture(intent.id, amount_to_capture=6000)
    assert (captured.status, captured.amount_received) == ("succeeded", 6000)
    charge = stripe.Charge.retrieve(captured.latest_charge)
    assert (charge.amount_captured, charge.amount_refunded) == (6000, 4000)
    with pytest.raises(stripe.InvalidRequestError) as again:
        stripe.PaymentIntent.capture(intent.id)
    assert again.value.code == "payment_intent_unexpected_state"


def test_refunds_never_exceed_what_was_captured(episode: Any) -> None:
    intent = stripe.PaymentIntent.create(amount=3000, currency="usd", confirm=True,
                                         payment_method="pm_card_mastercard")
    refund = stripe.Refund.create(payment_intent=intent.id, amount=500, reason="duplicate")
    assert (refund.status, refund.amount, refund.charge) == ("succeeded", 500,
                                                             intent.latest_charge)
    with pytest.raises(stripe.InvalidRequestError) as too_much:
        stripe.Refund.create(charge=intent.latest_charge, amount=2600)
    assert (too_much.value.code, too_much.value.param) == ("amount_too_large", "amount")
    assert stripe.Charge.retrieve(intent.latest_charge).amount_refunded == 500
    assert [r.id for r in stripe.Refund.list(payment_intent=intent.id).data] == [refund.id]


def test_disputes_are_read(episode: Any) -> None:
    disputes = stripe.Dispute.list(limit=3)
    assert disputes.object == "list" and len(disputes.data) == 3 and disputes.has_more
    dispute = stripe.Dispute.retrieve(disputes.data[0].id, expand=["charge"])
    assert dispute.charge.disputed is True
    assert isinstance(dispute.evidence_details.due_by, int)


def test_coupons_and_promotion_codes(episode: Any) -> None:
    coupon = stripe.Coupon.create(id="STRIPE20", percent_off=20, duration="once",
                                  max_redemptions=10, name="Twenty")
    assert (coupon.object, coupon.percent_off, coupon.valid) == ("coupon", 20, True)
    code = stripe.PromotionCode.create(coupon=coupon.id, code="CLIENT20",
                                       restrictions={"first_time_transaction": True})
    assert code.id.startswith("promo_") and code.coupon.id == "STRIPE20"
    assert code.restrictions.first_time_transaction is True
    assert [c.id for c in stripe.PromotionCode.list(code="CLIENT20").data] == [code.id]
    assert stripe.PromotionCode.modify(code.id, active=False).active is False
    with pytest.raises(stripe.InvalidRequestError) as both:
        stripe.Coupon.create(percent_off=10, amount_off=500, currency="usd")
    assert both.value.code == "parameters_exclusive"
    assert stripe.Coupon.delete(coupon.id).deleted is True
    with pytest.raises(stripe.InvalidRequestError) as gone:
        stripe.Coupon.retrieve(coupon.id)
    assert (gone.value.http_status, gone.value.code) == (404, "resource_missing")


def test_a_checkout_session(episode: Any) -> None:
    price = next(p for p in stripe.Price.list(currency="gbp", limit=100).data
                 if p.type == "one_time" and p.active)
    coupon = stripe.Coupon.create(amount_off=300, currency="gbp", duration="once")
    session = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": price.id, "quantity": 2}],
        discounts=[{"coupon": coupon.id}], customer_email="li@example.co.uk",
        success_url="https://shop.example/thanks", metadata={"cart": "c-19"})
    assert session.id.startswith("cs_test_") and session.object == "checkout.session"
    assert (session.status, session.payment_status, session.amount_subtotal) == (
        "open", "unpaid", 2 * price.unit_amount)
    assert session.amount_total == 2 * price.unit_amount - 300
    items = stripe.checkout.Session.list_line_items(session.id)
    assert [(i.price.id, i.quantity, i.amount_discount) for i in items.data] == [
        (price.id, 2, 300)]
    expired = stripe.checkout.Session.expire(session.id)
    assert (expired.status, expired.url) == ("expired", None)
    with pytest.raises(stripe.InvalidRequestError) as again:
        stripe.checkout.Session.expire(session.id)
    assert again.value.code == "checkout_session_unexpected_state"
    assert stripe.checkout.Session.retrieve(session.id).metadata["cart"] == "c-19"


def test_auto_paging_walks_every_customer_once(episode: Any) -> None:
    ids = [customer.id for customer in stripe.Customer.list(limit=60).auto_paging_iter()]
    assert len(ids) == len(set(ids)) > 300
    newest_first = stripe.Customer.list(limit=100).data + stripe.Customer.list(
        limit=100, starting_after=ids[99]).data
    assert [c.id for c in newest_first] == ids[:200]


def test_an_idempotent_retry_gets_the_saved_answer(episode: Any) -> None:
    first = stripe.Customer.create(email="retry@example.com", idempotency_key="order-A-1")
    again = stripe.Customer.create(email="retry@example.com", idempotency_key="order-A-1")
    assert again.id == first.id
    assert again.last_response.headers.get("Idempotent-Replayed") == "true"
    with pytest.raises(stripe.IdempotencyError):
        stripe.Customer.create(email="other@example.com", idempotency_key="order-A-1")
    declined = {}
    for _ in range(2):  # an error is saved and answered again too
        with pytest.raises(stripe.CardError) as error:
            stripe.PaymentIntent.create(amount=700, currency="usd", confirm=True,
                                        payment_method="pm_card_chargeDeclined",
                                        idempotency_key="declined-once")
        declined[error.value.error.charge] = error.value.code
    assert list(declined.values()) == ["card_declined"]
    assert stripe.Event.list(type="charge.failed", limit=100).data
