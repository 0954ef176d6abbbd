"""Stripe's test cards (docs.stripe.com/testing): what every payment with one does. A card is
given by its number (``payment_method_data[card][number]``, ``card[number]``) or as one of
Stripe's test PaymentMethods (``pm_card_visa``): either makes a new PaymentMethod whose
``test_card`` says which card it is. Any other number that passes the Luhn check is a live
card, declined in test mode (``test_mode_live_card``); one that fails it is
``incorrect_number``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Decline:
    """How a payment fails: Stripe's error code, decline code and message, and the charge's
    outcome."""

    code: str
    decline_code: str
    message: str
    param: str | None = None
    seller_message: str = "The bank did not return any further details with this decline."


GENERIC = Decline("card_declined", "generic_decline", "Your card was declined.")
INSUFFICIENT = Decline("card_declined", "insufficient_funds", "Your card has insufficient funds.",
                       seller_message="The bank returned the decline code `insufficient_funds`.")
EXPIRED = Decline("expired_card", "expired_card", "Your card has expired.", param="exp_month",
                  seller_message="The bank returned the decline code `expired_card`.")
INCORRECT_CVC = Decline("incorrect_cvc", "incorrect_cvc", "Your card's security code is "
                        "incorrect.", param="cvc",
                        seller_message="The bank returned the decline code `incorrect_cvc`.")
PROCESSING = Decline("processing_error", "processing_error", "An error occurred while "
                     "processing your card. Try again in a little bit.",
                     seller_message="The bank returned the decline code `processing_error`.")
LIVE_CARD = Decline("card_declined", "test_mode_live_card", "Your card was declined. Your "
                    "request was in test mode, but used a non test (live) card. For a list of "
                    "valid test cards, visit: https://stripe.com/docs/testing.")
# What the customer's failed (or abandoned) 3-D Secure challenge leaves on the intent.
AUTHENTICATION_FAILED = Decline(
    "payment_intent_authentication_failure", "authentication_failure",
    "The provided PaymentMethod has failed authentication. You can provide payment_method_data "
    "or a new PaymentMethod to attempt to fulfill this PaymentIntent again.")

@dataclass(frozen=True)
class RefundOutcome:
    """What a refund of a payment with the card does (docs.stripe.com/testing#refunds): its
    status at first, and the one it settles to later (on the episode's clock)."""

    first: Literal["pending", "succeeded"]
    then: Literal["succeeded", "failed"]
    failure_reason: str | None = None


# 4000000000007726: pending at first, succeeded later.
PENDING_REFUND = RefundOutcome("pending", "succeeded")
# 4000000000005126: succeeded at first, failed later (the card expired or was canceled).
REFUND_FAILS = RefundOutcome("succeeded", "failed", "expired_or_canceled_card")

# always: every payment is challenged; on_session: unless the card was set up for later
# off-session payments (a payment made now is on session: challenged too).
ThreeDSecure = Literal["always", "on_session"]


@dataclass(frozen=True)
class TestCard:
    name: str  # Stripe's test PaymentMethod: pm_card_<name>
    number: str
    brand: str
    funding: str = "credit"
    country: str = "US"
    three_d_secure: ThreeDSecure | None = None
    decline: Decline | None = None  # without 3-D Secure: at once; with it: once authenticated
    refund: RefundOutcome | None = None  # None: a refund succeeds at once


CARDS = (
    TestCard("visa", "4242424242424242", "visa"),
    TestCard("visa_debit", "4000056655665556", "visa", funding="debit"),
    TestCard("mastercard", "5555555555554444", "mastercard"),
    TestCard("amex", "378282246310005", "amex"),
    TestCard("jcb", "3566002020360505", "jcb", country="JP"),
    TestCard("pendingRefund", "4000000000007726", "visa", refund=PENDING_REFUND),
    TestCard("refundFail", "4000000000005126", "visa", refund=REFUND_FAILS),
    TestCard("chargeDeclined", "4000000000000002", "visa", decline=GENERIC),
    TestCard("chargeDeclinedInsufficientFunds", "4000000000009995", "visa", decline=INSUFFICIENT),
    TestCard("chargeDeclinedExpiredCard", "4000000000000069", "visa", decline=EXPIRED),
    TestCard("chargeDeclinedIncorrectCvc", "4000000000000127", "visa", decline=INCORRECT_CVC),
    TestCard("chargeDeclinedProcessingError", "4000000000000119", "visa", decline=PROCESSING),
    TestCard("authenticationRequiredOnSetup", "4000002500003155", "visa", country="IE",
             three_d_secure="on_session"),
    TestCard("authenticationRequired", "4000002760003184", "visa", country="IE",
             three_d_secure="always"),
    TestCard("threeDSecure2Required", "4000000000003220", "visa", three_d_secure="always"),
    TestCard("threeDSecureRequiredChargeDeclined", "4000008400001629", "visa",
             three_d_secure="always", decline=GENERIC),
    TestCard("authenticationRequiredChargeDeclinedInsufficientFunds", "4000008260003178",
             "visa", country="IE", three_d_secure="always", decline=INSUFFICIENT),
)
BY_NAME = {card.name: card for card in CARDS}
BY_NUMBER = {card.number: card for card in CARDS}
# A live card in test mode: declined (test_mode_live_card); its brand is read off its number.
LIVE = "live"


def luhn(number: str) -> bool:
    """Whether ``number`` (digits) passes the Luhn check every card number does."""
    total = 0
    for i, digit in enumerate(reversed(number)):
        value = int(digit) * (2 if i % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def brand_of(number: str) -> str:
    if number.startswith(("34", "37")):
        return "amex"
    if number.startswith(("51", "52", "53", "54", "55", "22")):
        return "mastercard"
    if number.startswith("35"):
        return "jcb"
    return "visa" if number.startswith("4") else "unknown"


def card(name: str) -> TestCard:
    """The test card a PaymentMethod's ``test_card`` names (a live card: declined)."""
    return BY_NAME.get(name) or TestCard(LIVE, "", "visa", decline=LIVE_CARD)
