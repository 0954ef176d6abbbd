"""The pages' routes: the shop's checkout, and the test 3-D Secure challenge.

    GET  /shop                 the catalogue, in a currency (?currency=) or the cart's
    GET  /shop/cart            the cart (?add=<price>&quantity=n adds; ?set=<price>&quantity=n
                               sets, 0 removes)
    GET  /shop/shipping        where to ship
    POST /shop/shipping        the order's PaymentIntent is made -> its payment page
    GET  /shop/payment         the card form (?payment_intent=&payment_intent_client_secret=)
    POST /shop/payment         the intent is confirmed with the card -> the 3-D Secure challenge
                               or the confirmation; a declined card: the form again, saying so
    GET  /shop/complete        the confirmation (Stripe's return_url parameters)
    GET  /3ds/{intent}         the challenge next_action points to (?client_secret=)
    POST /3ds/{intent}/answer  the customer completes or fails it -> the intent's return_url

Every change is made by the payments rules (``rules/``), as the API's are: the same intent,
charges and events an API agent's calls make. An order is a PaymentIntent of the cart's total
in its currency, ``description: Order A-...``, ``receipt_email`` and ``metadata`` (``order``,
``skus``, ``cart``, ``ship_to``), as the world's payments are. Where the shop will grow: the
shipping step would make a Checkout Session of the cart's lines (``rules/sessions.py``) and
send the browser to its payment page, whose form would take a promotion code; the store's
order would be made with the payment.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, Body, Path, Query
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.factories import FactoryContext
from replicas.runtime.pages import performs, sends
from workgym_core.errors import WorkGymError

from ..deps import WorldDep
from ..errors import ResourceMissing
from ..render import Row, loads
from ..rules import payment_intents as intents
from ..rules.common import World
from ..schemas.requests import ChallengeAnswer, PaymentIntentCreate
from .cart import (
    CURRENCIES,
    MAX_TEXT,
    Cart,
    bought,
    catalogue,
    changed,
    currency_refused,
    in_other_currency,
    quantity,
    read,
)
from .forms import COUNTRIES, IntentRef, PaymentForm, ShippingForm, problems
from .html import PageRoute, href, page, redirect, see_other, with_query

router = APIRouter(route_class=PageRoute, include_in_schema=False)

T = TypeVar("T")
CartText = Annotated[str | None, Query(max_length=MAX_TEXT)]
PriceId = Annotated[str | None, Query(max_length=255)]
IntentQuery = Annotated[str, Query(max_length=255)]
SecretQuery = Annotated[str, Query(max_length=255)]
IntentPath = Annotated[str, Path(max_length=255)]
Form = Annotated[dict[str, Any], Body()]
COMPLETE = "/shop/complete"  # the payments' return_url: the confirmation page
PAID = ("succeeded", "requires_capture", "processing")
DEFAULT_CURRENCY = "usd"


def attempt(w: World, write: Callable[[], T]) -> T | WorkGymError:
    """``write``'s result, or the error it was refused with, its changes undone. (A declined
    card is not a refusal: the payments rules write it and return it.)"""
    w.db.execute("SAVEPOINT page")
    try:
        return write()
    except WorkGymError as exc:
        w.db.execute("ROLLBACK TO page")
        return exc
    finally:
        w.db.execute("RELEASE page")


def intent_of(w: World, intent_id: str, client_secret: str) -> Row:
    """The PaymentIntent a page names, if the page holds its client secret (as Stripe.js
    must)."""
    row = w.objects.row("payment_intents", intent_id, kind="payment_intent")
    if not hmac.compare_digest(row["client_secret"].encode(), client_secret.encode()):
        raise ResourceMissing("payment_intent", intent_id)
    return row


def order_number(w: World) -> str:
    """The seed's next order number that no payment carries yet: the identity's, as the
    payment factory takes it (the same numbers every app of the seed uses)."""
    ctx = FactoryContext.for_op(w.db, seed=w.seed, digest="shop", index=0,
                                now=datetime.fromtimestamp(w.now, UTC))
    number: str = ctx.unused(ctx.identity.new_order_numbers(), "payment_intents",
                             "description", lambda n: f"Order {n}")
    return number


def returned(row: Row) -> dict[str, str]:
    """What Stripe adds to a return_url: the intent, its secret and how it went."""
    return {"payment_intent": row["stripe_id"],
            "payment_intent_client_secret": row["client_secret"],
            "redirect_status": "succeeded" if row["status"] in PAID else "failed"}


def _order(w: World, row: Row) -> dict[str, Any]:
    """The order a payment is for, as its metadata tells (an intent made elsewhere has
    none of it)."""
    meta = loads(row["metadata"])
    return {"number": meta.get("order"), "lines": bought(w.db, meta.get("cart", "")).lines,
            "ship_to": meta.get("ship_to"),
            "error": (loads(row["last_payment_error"]) or {}).get("message")}


@router.get("/shop")
async def shop(request: Request, w: WorldDep, cart: CartText = None,
               currency: Annotated[str | None, Query(max_length=3)] = None) -> Response:
    """The catalogue in the currency asked (any case) or the cart's; one the shop does not
    sell in, or another than the cart's, is said so (400) over the cart's or USD's."""
    basket, error = read(w.db, cart), None
    if currency:
        error = currency_refused(currency) or (
            in_other_currency(basket, currency)
            if basket.currency not in (None, currency.lower()) else None)
    shown = basket.currency or (currency.lower() if currency and not error else DEFAULT_CURRENCY)
    return page(request, "shop.html", 400 if error else 200, cart=basket, currency=shown,
                currencies=CURRENCIES, offers=catalogue(w.db, shown), error=error)


@router.get("/shop/cart")
async def cart_page(request: Request, w: WorldDep, cart: CartText = None, add: PriceId = None,
                    set_: Annotated[str | None, Query(alias="set", max_length=255)] = None,
                    quantity_: Annotated[str | None, Query(alias="quantity",
                                                           max_length=2)] = None) -> Response:
    basket, error = read(w.db, cart), None
    try:
        if add:
            basket = changed(w.db, basket, add, quantity(quantity_ or "1"), add=True)
        elif set_:
            basket = changed(w.db, basket, set_, quantity(quantity_, least=0), add=False)
    except WorkGymError as exc:
        error = exc.message
    return page(request, "cart.html", 200 if error is None else 400, cart=basket, error=error)


def _shipping_page(request: Request, basket: Cart, status_code: int = 200,
                   given: dict[str, Any] | None = None, errors: dict[str, str] | None = None
                   ) -> Response:
    return page(request, "shipping.html", status_code, cart=basket, given=given or {},
                errors=errors or {}, countries=COUNTRIES)


@router.get("/shop/shipping")
async def shipping(request: Request, w: WorldDep, cart: CartText = None) -> Response:
    basket = read(w.db, cart)
    if not basket.lines:
        return redirect(request, "/shop/cart")
    return _shipping_page(request, basket)


@router.post("/shop/shipping")
@performs("create_payment_intent")
async def ship(request: Request, w: WorldDep, form: Form) -> Response:
    basket = read(w.db, str(form.get("cart") or ""))
    if not basket.lines:
        return redirect(request, "/shop/cart")
    try:
        given = ShippingForm.model_validate(form)
    except ValidationError as exc:
        return _shipping_page(request, basket, 422, form, problems(exc))
    number = order_number(w)
    body = PaymentIntentCreate(
        amount=basket.total, currency=str(basket.currency), description=f"Order {number}",
        receipt_email=given.email, metadata={
            "order": number, "skus": basket.skus(), "cart": basket.encode(),
            "ship_to": given.ship_to})
    sends(request, body.model_dump(mode="json", exclude_none=True))
    made = attempt(w, lambda: intents.create(w, body))
    if isinstance(made, WorkGymError):
        return _shipping_page(request, basket, made.status_code, form, {"form": made.message})
    row, _ = made
    return redirect(request, "/shop/payment", payment_intent=row["stripe_id"],
                    payment_intent_client_secret=row["client_secret"])


def _payment_page(request: Request, w: World, row: Row, status_code: int = 200,
                  errors: dict[str, str] | None = None) -> Response:
    return page(request, "payment.html", status_code, intent=row, order=_order(w, row),
                errors=errors or {})


@router.get("/shop/payment")
async def payment(request: Request, w: WorldDep, payment_intent: IntentQuery,
                  payment_intent_client_secret: SecretQuery) -> Response:
    row = intent_of(w, payment_intent, payment_intent_client_secret)
    if row["status"] not in intents.CONFIRMABLE:
        return redirect(request, COMPLETE, **returned(row))
    return _payment_page(request, w, row)


@router.post("/shop/payment")
@performs("confirm_payment_intent")  # of the intent the form names (its card not recorded)
async def pay(request: Request, w: WorldDep, form: Form) -> Response:
    ref = IntentRef.model_validate(form)
    sends(request, None, intent=ref.payment_intent)
    row = intent_of(w, ref.payment_intent, ref.payment_intent_client_secret)
    if row["status"] not in intents.CONFIRMABLE:  # paid already (a second click): not again
        return redirect(request, COMPLETE, **returned(row))
    try:
        card = PaymentForm.model_validate(form).payment_method_data
    except ValidationError as exc:
        return _payment_page(request, w, row, 422, problems(exc))
    outcome = attempt(w, lambda: intents.confirm(
        w, row, payment_method=None, payment_method_data=card, return_url=COMPLETE,
        receipt_email=None))
    if isinstance(outcome, WorkGymError):
        return _payment_page(request, w, row, outcome.status_code, {"card": outcome.message})
    row, declined = outcome
    if declined is not None:
        return _payment_page(request, w, row, declined.status_code, {"card": declined.message})
    if row["status"] == "requires_action":  # to the challenge next_action points to
        return redirect(request, loads(row["next_action"])["redirect_to_url"]["url"])
    return redirect(request, COMPLETE, **returned(row))


@router.get("/shop/complete")
async def complete(request: Request, w: WorldDep, payment_intent: IntentQuery,
                   payment_intent_client_secret: SecretQuery) -> Response:
    row = intent_of(w, payment_intent, payment_intent_client_secret)
    charge = w.objects.get(row["latest_charge"]) if row["latest_charge"] else None
    return page(request, "complete.html", intent=row, order=_order(w, row),
                card=charge and (charge["payment_method_details"] or {}).get("card"),
                paid=row["status"] in PAID, payable=row["status"] in intents.CONFIRMABLE)


def _back(request: Request, row: Row) -> str | None:
    """Where the browser goes once the challenge is answered: the intent's return_url with
    Stripe's parameters (a path of the app: relative to this page; an http(s) URL as it is);
    None without one, or with one no Location header can hold."""
    target = row["return_url"]
    if not target or not (target.isascii() and target.isprintable()):
        return None
    if target.startswith("/"):
        return href(request.url.path, target, **returned(row))
    if urlsplit(target).scheme in ("http", "https"):
        return with_query(target, **returned(row))
    return None


def _challenge_page(request: Request, w: World, row: Row, status_code: int = 200,
                    error: str | None = None) -> Response:
    method = w.objects.get(row["payment_method"]) if row["payment_method"] else None
    return page(request, "challenge.html", status_code, intent=row, error=error,
                card=method and method["card"], back=_back(request, row))


@router.get("/3ds/{intent}")
async def challenge(request: Request, w: WorldDep, intent: IntentPath,
                    client_secret: SecretQuery) -> Response:
    return _challenge_page(request, w, intent_of(w, intent, client_secret))


@router.post("/3ds/{intent}/answer")
async def answer(request: Request, w: WorldDep, intent: IntentPath, form: Form) -> Response:
    given = ChallengeAnswer.model_validate(form)
    row = intent_of(w, intent, given.client_secret)
    outcome = attempt(w, lambda: intents.authenticate(
        w, row, client_secret=given.client_secret, outcome=given.outcome))
    if isinstance(outcome, WorkGymError):
        return _challenge_page(request, w, row, outcome.status_code, outcome.message)
    row, _ = outcome  # a card declined once authenticated: the intent's last_payment_error
    back = _back(request, row)
    return see_other(back) if back else _challenge_page(request, w, row)
