"""PaymentIntents (docs.stripe.com/api/payment_intents) and the test 3-D Secure challenge their
next_action points to."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..errors import CardError, render
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..render import Row
from ..rules import payment_intents as intents
from ..rules.common import World
from ..schemas.requests import (
    ChallengeAnswer,
    PaymentIntentCancel,
    PaymentIntentCapture,
    PaymentIntentConfirm,
    PaymentIntentCreate,
    PaymentIntentUpdate,
)
from ..schemas.stripe import PaymentIntent, StripeList
from .common import IntentId, answer, listing, retrieve

router = APIRouter(tags=["payment_intents"])


def _outcome(w: World, found: tuple[Row, CardError | None], expand: list[str] | None
             ) -> Response:
    """The intent, or the card error its payment attempt ended in (written all the same)."""
    row, declined = found
    return render(declined) if declined else answer(w, "payment_intents", row, expand)


def _intent(w: World, intent: str) -> Row:
    return w.objects.row("payment_intents", intent, kind="payment_intent")


@router.post("/v1/payment_intents", operation_id="create_payment_intent",
             summary="Create a PaymentIntent", response_model=PaymentIntent)
async def create_payment_intent(body: PaymentIntentCreate, call: IdempotentDep) -> Response:
    """A new PaymentIntent for an amount in a currency (at least the currency's minimum
    charge: 'amount_too_small'); with confirm=true the card is charged at once (a decline
    answers 402 card_error; a card that needs 3-D Secure leaves it in requires_action)."""
    return call.run(body, lambda w: _outcome(w, intents.create(w, body), body.expand))


@router.get("/v1/payment_intents/{intent}", operation_id="retrieve_payment_intent",
            summary="Retrieve a PaymentIntent", response_model=PaymentIntent)
async def retrieve_payment_intent(intent: IntentId, w: WorldDep,
                                  expand: Expand = None) -> Response:
    """One PaymentIntent."""
    return retrieve(w, "payment_intents", intent, "payment_intent", expand)


@router.post("/v1/payment_intents/{intent}", operation_id="update_payment_intent",
             summary="Update a PaymentIntent", response_model=PaymentIntent)
async def update_payment_intent(intent: IntentId, body: PaymentIntentUpdate,
                                call: IdempotentDep) -> Response:
    """Change the parameters given. Amount, currency, customer, payment method and capture
    method only before the payment (requires_payment_method, requires_confirmation,
    requires_action; then it must be confirmed again)."""
    return call.run(body, lambda w: answer(w, "payment_intents", intents.update(
        w, _intent(w, intent), body), body.expand))


@router.post("/v1/payment_intents/{intent}/confirm", operation_id="confirm_payment_intent",
             summary="Confirm a PaymentIntent", response_model=PaymentIntent)
async def confirm_payment_intent(intent: IntentId, body: PaymentIntentConfirm,
                                 call: IdempotentDep) -> Response:
    """Charge its payment method: succeeded, requires_capture (capture_method=manual),
    requires_action (3-D Secure: next_action) or a 402 card error (it is then back in
    requires_payment_method with last_payment_error)."""
    return call.run(body, lambda w: _outcome(w, intents.confirm(
        w, _intent(w, intent), payment_method=body.payment_method,
        payment_method_data=body.payment_method_data, return_url=body.return_url,
        receipt_email=body.receipt_email), body.expand))


@router.post("/v1/payment_intents/{intent}/capture", operation_id="capture_payment_intent",
             summary="Capture a PaymentIntent", response_model=PaymentIntent)
async def capture_payment_intent(intent: IntentId, body: PaymentIntentCapture,
                                 call: IdempotentDep) -> Response:
    """Capture an authorization (requires_capture): all of it, or amount_to_capture (the
    rest is released); once. Authorizations expire 7 days after they were made."""
    return call.run(body, lambda w: answer(w, "payment_intents", intents.capture(
        w, _intent(w, intent), amount_to_capture=body.amount_to_capture,
        meta=body.metadata), body.expand))


@router.post("/v1/payment_intents/{intent}/cancel", operation_id="cancel_payment_intent",
             summary="Cancel a PaymentIntent", response_model=PaymentIntent)
async def cancel_payment_intent(intent: IntentId, body: PaymentIntentCancel,
                                call: IdempotentDep) -> Response:
    """Cancel it before it succeeds (an authorization is released); succeeded, processing
    and canceled ones cannot be."""
    return call.run(body, lambda w: answer(w, "payment_intents", intents.cancel(
        w, _intent(w, intent), reason=body.cancellation_reason), body.expand))


@router.get("/v1/payment_intents", operation_id="list_payment_intents",
            summary="List PaymentIntents", response_model=StripeList[PaymentIntent])
async def list_payment_intents(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None,
    customer: Annotated[str | None, Query(max_length=255, description=(
        "Only this customer's."))] = None,
) -> Response:
    """PaymentIntents, newest first."""
    return listing(w, "payment_intents", "payment_intent", url="/v1/payment_intents",
                   limit=limit, starting_after=starting_after, ending_before=ending_before,
                   expand=expand, customer=customer)


@router.post("/3ds/{intent}", include_in_schema=False)
async def answer_challenge(intent: IntentId, body: ChallengeAnswer, w: WorldDep) -> Response:
    """The customer's browser answers a test 3-D Secure challenge (next_action's URL, with the
    intent's client secret): what Stripe's test challenge page does. Not an API operation:
    the payment goes on as the customer decided, and the answer is the intent (a decline
    after authentication is its last_payment_error)."""
    row, _ = intents.authenticate(w, _intent(w, intent), client_secret=body.client_secret,
                                  outcome=body.outcome)
    return answer(w, "payment_intents", row, None)
