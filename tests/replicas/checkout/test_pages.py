"""The checkout's pages (replicas/checkout/pages) without a browser: forms posted as a browser
posts them, redirects followed by hand. The flow writes what the API would (one intent, its
charges), refusals change nothing, everything shown is escaped, and a page needs its
intent's client secret. The real browser's test is test_browser_checkout.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest
from fastapi import FastAPI

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]
CARD = {"payment_method_data[type]": "card", "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": "2030", "payment_method_data[card][cvc]": "123",
        "payment_method_data[billing_details][name]": "Ada Lovelace"}
SHIP = {"name": "Ada Lovelace", "email": "ada@example.com", "line1": "12 Crescent Road",
        "city": "London", "postal_code": "N1 7AA", "country": "GB"}


def _field(page: httpx.Response, name: str) -> str:
    found = re.search(rf'name="{re.escape(name)}" value="([^"]*)"', page.text)
    assert found, name
    return found.group(1)


def _prices(page: httpx.Response) -> dict[str, str]:
    """Product name -> price id, as the shop lists them."""
    return {name: price for price, name in re.findall(
        r'<tr data-price="([^"]+)">\s*<td class="name">([^<]+)', page.text)}


async def _follow(api: Api, answer: httpx.Response) -> httpx.Response:
    """The page a 303 sends the browser to (its Location is relative to the page)."""
    assert answer.status_code == 303, answer.text
    target = urlsplit(urljoin(str(answer.request.url), answer.headers["location"]))
    return await api.request("GET", target.path, params=parse_qs(target.query))


async def _to_payment(api: Api, **ship: str) -> httpx.Response:
    """A cart of 2 grinders and a kettle in EUR, shipped: the payment page."""
    shop = await api.request("GET", "/shop", params={"currency": "eur"})
    prices = _prices(shop)
    cart = await api.request("GET", "/shop/cart", params={
        "add": prices["Aero Burr Grinder"], "quantity": "2"})
    cart = await api.request("GET", "/shop/cart", params={
        "cart": _field(cart, "cart"), "add": prices["Gooseneck Kettle"], "quantity": "1"})
    assert "€225.00" in cart.text  # 2 x 85.00 + 55.00
    shipped = await api.request("POST", "/shop/shipping", data={
        "cart": _field(cart, "cart"), **SHIP, **ship})
    return await _follow(api, shipped)


async def _pay(api: Api, payment: httpx.Response, number: str) -> httpx.Response:
    return await api.request("POST", "/shop/payment", data={
        "payment_intent": _field(payment, "payment_intent"),
        "payment_intent_client_secret": _field(payment, "payment_intent_client_secret"),
        "payment_method_data[card][number]": number, **CARD})


async def test_a_decline_a_failed_challenge_then_a_paid_order(make_api: MakeApi) -> None:
    api = make_api()
    payment = await _to_payment(api)
    intent = _field(payment, "payment_intent")
    assert "Pay €225.00" in payment.text and "Ships to Ada Lovelace, 12 Crescent Road" in \
        payment.text

    declined = await _pay(api, payment, "4000000000000002")
    assert declined.status_code == 402 and "Your card was declined." in declined.text
    challenged = await _follow(api, await _pay(api, payment, "4000 0027 6000 3184"))
    assert "Confirm this payment" in challenged.text and "Visa •••• 3184" in challenged.text
    secret = _field(challenged, "client_secret")
    failed = await _follow(api, await api.request("POST", f"/3ds/{intent}/answer", data={
        "client_secret": secret, "outcome": "fail"}))
    assert "did not go through" in failed.text and "failed authentication" in failed.text
    challenged = await _follow(api, await _pay(api, payment, "4000002500003155"))
    done = await _follow(api, await api.request("POST", f"/3ds/{intent}/answer", data={
        "client_secret": secret, "outcome": "authenticate"}))
    assert re.search(r"Thank you! Order A-\d+ is confirmed", done.text)
    assert "Visa ending in 3155" in done.text and "ada@example.com" in done.text

    paid = await api.ok("GET", f"/v1/payment_intents/{intent}")
    assert (paid["status"], paid["amount"], paid["currency"], paid["receipt_email"]) == (
        "succeeded", 22500, "eur", "ada@example.com")
    assert paid["metadata"]["skus"] == "GR-100,KT-220"
    assert paid["description"] == f"Order {paid['metadata']['order']}"
    charges = (await api.ok("GET", "/v1/charges", params={"payment_intent": intent}))["data"]
    assert [(c["status"], c["payment_method_details"]["card"]["last4"]) for c in charges] == [
        ("succeeded", "3155"), ("failed", "0002")]
    again = await _pay(api, payment, "4242424242424242")  # a second click pays nothing more
    assert "is confirmed" in (await _follow(api, again)).text
    assert len((await api.ok("GET", "/v1/charges", params={"payment_intent": intent}))[
        "data"]) == 2


async def test_what_the_card_form_or_the_card_refuses_changes_nothing(make_api: MakeApi) -> None:
    api = make_api()
    payment = await _to_payment(api)
    intent = _field(payment, "payment_intent")
    methods = len((await api.ok("GET", "/v1/payment_methods", params={"limit": 100}))["data"])

    wrong = await _pay(api, payment, "4242424242424241")
    assert wrong.status_code == 402 and "Your card number is incorrect." in wrong.text
    short = await _pay(api, payment, "4242")
    assert short.status_code == 422 and "Your card number is incomplete." in short.text

    unchanged = await api.ok("GET", f"/v1/payment_intents/{intent}")
    assert (unchanged["status"], unchanged["latest_charge"]) == ("requires_payment_method", None)
    assert len((await api.ok("GET", "/v1/payment_methods", params={"limit": 100}))[
        "data"]) == methods


async def test_the_cart_sells_only_what_the_shop_sells(make_api: MakeApi) -> None:
    api = make_api()
    archived = (await api.ok("GET", "/v1/prices", params={"active": "false", "limit": 100}))[
        "data"][0]
    club = next(p for p in (await api.ok("GET", "/v1/prices", params={"limit": 100}))["data"]
                if p["recurring"])
    for price in (archived["id"], club["id"], "price_nope"):
        refused = await api.request("GET", "/shop/cart", params={"add": price})
        assert refused.status_code == 400 and "not for sale" in refused.text, price
        assert "Your cart is empty." in refused.text
    usd = _prices(await api.request("GET", "/shop"))
    cart = await api.request("GET", "/shop/cart", params={"add": usd["Gooseneck Kettle"],
                                                         "quantity": "20"})
    more = await api.request("GET", "/shop/cart", params={
        "cart": _field(cart, "cart"), "add": usd["Gooseneck Kettle"]})
    assert more.status_code == 400 and "At most 20" in more.text
    eur = _prices(await api.request("GET", "/shop", params={"currency": "eur"}))
    mixed = await api.request("GET", "/shop/cart", params={
        "cart": _field(cart, "cart"), "add": eur["Gooseneck Kettle"]})
    assert "Your cart is in USD" in mixed.text
    removed = await api.request("GET", "/shop/cart", params={
        "cart": _field(cart, "cart"), "set": usd["Gooseneck Kettle"], "quantity": "0"})
    assert "Your cart is empty." in removed.text
    for tampered in ("price_x", f"{usd['Gooseneck Kettle']}:0", "x" * 700):
        page = await api.request("GET", "/shop/shipping", params={"cart": tampered})
        assert page.status_code == 400 and "Something went wrong" in page.text, tampered


async def test_everything_shown_is_escaped(make_api: MakeApi) -> None:
    api = make_api()
    evil = '<img src=x onerror="alert(1)">'
    product = await api.ok("POST", "/v1/products", json={"name": evil})
    await api.ok("POST", "/v1/prices", json={"product": product["id"], "currency": "usd",
                                              "unit_amount": 999})
    shop = await api.request("GET", "/shop")
    assert evil not in shop.text and "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in shop.text
    prices = _prices(shop)
    cart = await api.request("GET", "/shop/cart", params={"add": prices["Gooseneck Kettle"]})
    named = await api.request("POST", "/shop/shipping", data={
        "cart": _field(cart, "cart"), **SHIP, "name": '"><script>x()</script>', "email": "no"})
    assert named.status_code == 422 and "<script>" not in named.text
    assert 'value="&#34;&gt;&lt;script&gt;x()&lt;/script&gt;"' in named.text
    assert "Enter an email address" in named.text


async def test_a_page_needs_its_intents_client_secret(make_api: MakeApi) -> None:
    api = make_api()
    payment = await _to_payment(api)
    intent = _field(payment, "payment_intent")
    for path, params in [("/shop/payment", {"payment_intent": intent,
                                            "payment_intent_client_secret": "guess"}),
                         ("/shop/complete", {"payment_intent": intent,
                                             "payment_intent_client_secret": "guess"}),
                         (f"/3ds/{intent}", {"client_secret": "guess"}),
                         ("/shop/payment", {"payment_intent": "pi_nope",
                                            "payment_intent_client_secret": "guess"})]:
        page = await api.request("GET", path, params=params)
        assert page.status_code == 404 and "No such payment_intent" in page.text, path
    forged = await api.request("POST", f"/3ds/{intent}/answer", data={
        "client_secret": "guess", "outcome": "authenticate"})
    assert forged.status_code == 404
    missing = await api.request("GET", "/shop/payment")
    assert missing.status_code == 400 and "not one of the shop" in missing.text


async def test_pages_keep_to_themselves_and_out_of_the_openapi(make_api: MakeApi,
                                                               app: FastAPI) -> None:
    api = make_api()
    shop = await api.request("GET", "/shop/cart")
    shipped = await api.request("GET", "/shop/shipping")  # an empty cart: back to it
    for answer in (shop, shipped):
        headers: dict[str, Any] = dict(answer.headers)
        assert headers["content-security-policy"].startswith("default-src 'none'")
        assert (headers["cache-control"], headers["referrer-policy"],
                headers["x-content-type-options"]) == ("no-store", "no-referrer", "nosniff")
    assert shipped.headers["location"] == "../shop/cart"
    assert not re.search(r'(href|action)="(https?:)?//', shop.text)
    paths = app.openapi()["paths"]
    assert not [path for path in paths if path.startswith(("/shop", "/3ds"))]


async def test_the_challenge_sends_the_browser_back_to_the_intents_return_url(
        make_api: MakeApi) -> None:
    api = make_api()
    for back, location in [
            ("https://shop.example/done?via=app", "https://shop.example/done?via=app&"),
            ("/shop/complete", "../../shop/complete?"),
            ("https://shop.example/\r\nSet-Cookie: x=1", None),  # no header can hold it
            (None, None)]:
        intent = await api.ok("POST", "/v1/payment_intents", json={
            "amount": 5000, "currency": "eur", "confirm": True, "return_url": back,
            "payment_method": "pm_card_authenticationRequired"})
        secret = intent["client_secret"]
        page = await api.request("GET", f"/3ds/{intent['id']}", params={"client_secret": secret})
        assert "€50.00" in page.text and "Complete authentication" in page.text
        answer = await api.request("POST", f"/3ds/{intent['id']}/answer", data={
            "client_secret": secret, "outcome": "authenticate"})
        if location is None:
            assert answer.status_code == 200 and "You can close this window." in answer.text
        else:
            assert answer.headers["location"] == location + (
                f"payment_intent={intent['id']}&payment_intent_client_secret={secret}"
                "&redirect_status=succeeded")
        assert (await api.ok("GET", f"/v1/payment_intents/{intent['id']}"))["status"] == \
            "succeeded"


async def test_the_shop_shows_the_currency_asked_or_says_why_not(make_api: MakeApi) -> None:
    api = make_api()
    for asked in ("GBP", "gbp", "Gbp"):
        shop = await api.request("GET", "/shop", params={"currency": asked})
        assert shop.status_code == 200, asked
        assert '<a class="current" href="' in shop.text and ">GBP</a>" in shop.text
        assert "£" in shop.text and "$" not in shop.text, asked
    unsold = await api.request("GET", "/shop", params={"currency": "CHF"})
    assert unsold.status_code == 400
    assert "We do not sell in CHF: prices are in USD, EUR, GBP, JPY." in unsold.text
    assert "$" in unsold.text  # the default currency's catalogue, below the refusal
    usd = _prices(await api.request("GET", "/shop"))
    cart = await api.request("GET", "/shop/cart", params={"add": usd["Gooseneck Kettle"]})
    other = await api.request("GET", "/shop", params={"cart": _field(cart, "cart"),
                                                    "currency": "GBP"})
    assert other.status_code == 400 and "Your cart is in USD: empty it to shop in GBP." in \
        other.text
