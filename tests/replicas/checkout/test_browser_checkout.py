"""A checkout in a real headless Chromium (Debian's, driven by Playwright) through a real
`workgym serve`: the browser gets into its episode (the entry URL with the token, once; or
the cookie set by the harness), shops, ships, pays and answers the 3-D Secure challenge on
the pages, each request a step through the proxy. Then Stripe's own library reads, through
the same episode, the payments the pages made, and the verifier scores the browser's order
like an API agent's. A screenshot of every page is kept in a directory the test prints."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import stripe
from playwright.sync_api import Browser, BrowserContext, Page, expect

import workgym
from tests.browser import BROWSER
from workgym.processes import serving
from workgym.sdk import Observation
from workgym_proxy.browser import COOKIE, TOKEN_PARAM

pytestmark = BROWSER
TASK = "checkout/test-order-3ds"


@dataclass
class Server:
    url: str
    log: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`workgym serve` logging every request (the access log at info: no token may be in it)."""
    data = tmp_path_factory.mktemp("browser-checkout")
    env = {**os.environ, "WORKGYM_DATA_DIR": str(data), "PYTHONUNBUFFERED": "1"}
    with serving(["--log-level", "info"], env=env, log=data / "server.log") as url:
        yield Server(url, data / "server.log")


class Shots:
    """Full-page screenshots, numbered in the order taken."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.taken: list[str] = []

    def __call__(self, page: Page, name: str) -> None:
        self.taken.append(f"{len(self.taken) + 1:02d}-{name}.png")
        page.screenshot(path=self.folder / self.taken[-1], full_page=True)


@pytest.fixture
def shots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Shots]:
    taken = Shots(tmp_path / "screenshots")
    yield taken
    with capsys.disabled():
        print(f"\nscreenshots of the checkout's pages: {taken.folder}")
    assert all((taken.folder / name).stat().st_size > 10_000 for name in taken.taken)


@pytest.fixture
def context(browser: Browser, server: Server) -> Iterator[BrowserContext]:
    """A browser profile of its own; nothing it loads comes from elsewhere."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    foreign: list[str] = []
    context.on("request", lambda r: None if r.url.startswith(server.url)
               else foreign.append(r.url))
    yield context
    context.close()
    assert foreign == [], "the pages must load nothing from outside the server"


def _instructed(instruction: str) -> dict[str, str]:
    """What the task's instruction asks for (as the reference solution reads it)."""
    patterns = {"gear": r"one (.+?) and one", "beans": r"and one (.+?), shipped",
                "name": r"colleague\s+(.+?) \(", "email": r"\(([^()\s]+@[^()\s]+):",
                "currency": r"paying in ([A-Z]{3})", "card": r"(\d{4} \d{4} \d{4} \d{4})"}
    found = {key: re.search(pattern, instruction) for key, pattern in patterns.items()}
    return {key: match.group(1) for key, match in found.items() if match}


def _add(page: Page, product: str, quantity: int = 1) -> None:
    row = page.locator("table.products tr").filter(has=page.get_by_text(product, exact=True))
    row.locator("input[name=quantity]").fill(str(quantity))
    row.get_by_role("button", name="Add to cart").click()
    expect(page.locator("h1")).to_have_text("Your cart")


def _ship(page: Page, name: str, email: str) -> None:
    page.get_by_role("link", name="Check out").click()
    expect(page.locator("h1")).to_have_text("Where should we ship it?")
    page.get_by_label("Full name").fill(name)
    page.get_by_label("Email (for the receipt)").fill(email)
    page.get_by_label("Street address").fill("12 Crescent Road")
    page.get_by_label("Postal code").fill("N1 7AA")
    page.get_by_label("City").fill("London")
    page.get_by_label("Country").select_option("GB")


def _card(page: Page, number: str) -> None:
    page.get_by_label("Name on the card").fill("Test Colleague")
    page.get_by_label("Card number").fill(number)
    page.get_by_label("Expiry month").fill("12")
    page.get_by_label("Expiry year").fill("2030")
    page.get_by_label("CVC").fill("123")
    page.get_by_role("button", name=re.compile(r"^Pay ")).click()


def _stripe(obs: Observation) -> stripe.StripeClient:
    """Stripe's library on the episode's checkout, as an API agent would hold it."""
    return stripe.StripeClient(obs.token, base_addresses={"api": obs.apps["checkout"]},
                               max_network_retries=0)


def _paid_intent(page: Page) -> str:
    """The PaymentIntent the confirmation page is about (Stripe's return_url parameters)."""
    found = re.search(r"[?&]payment_intent=(pi_\w+)", page.url)
    assert found, page.url
    return found.group(1)


def test_an_order_paid_with_3ds_in_the_browser_scores_as_the_apis_would(
        context: BrowserContext, server: Server, shots: Shots) -> None:
    with workgym.connect(server.url, TASK, seed=2, faults="none") as run:
        obs = run.reset()
        asked = _instructed(obs.instruction)
        shop = f"{obs.apps['checkout']}/shop?currency={asked['currency'].lower()}"
        page = context.new_page()

        page.goto(f"{shop}&{TOKEN_PARAM}={obs.token}")  # the entry: once

        expect(page).to_have_url(shop)  # the token is out of the address bar
        [cookie] = context.cookies()
        assert (cookie["name"], cookie["value"], cookie["path"], cookie["httpOnly"],
                cookie["sameSite"]) == (COOKIE, obs.token, "/apps/", True, "Strict")
        assert page.evaluate("document.cookie") == ""  # no script of a page can read it
        expect(page.locator("nav.currencies a.current")).to_have_text(asked["currency"])
        shots(page, "shop")
        _add(page, asked["gear"])
        page.get_by_role("link", name="Continue shopping").click()
        _add(page, asked["beans"])
        expect(page.locator("table.cart tbody tr")).to_have_count(2)
        shots(page, "cart")
        _ship(page, asked["name"], asked["email"])
        shots(page, "shipping")
        page.get_by_role("button", name="Continue to payment").click()
        expect(page.locator("h1")).to_contain_text("Pay for order A-")
        shots(page, "payment")
        _card(page, asked["card"])
        expect(page.locator("h1")).to_have_text("Confirm this payment")
        expect(page.locator("dd.card")).to_have_text("Visa •••• 3184")
        shots(page, "3ds-challenge")
        page.get_by_role("button", name="Complete authentication").click()
        expect(page.locator("h1.confirmed")).to_contain_text("is confirmed")
        expect(page.locator("p.notice")).to_contain_text("Visa ending in 3184")
        shots(page, "confirmation")

        intent = _stripe(obs).v1.payment_intents.retrieve(_paid_intent(page))
        assert (intent.status, intent.currency, intent.receipt_email) == (
            "succeeded", asked["currency"].lower(), asked["email"])
        assert intent.next_action is None and intent.metadata["order"] in page.content()
        [charge] = _stripe(obs).v1.charges.list(params={"payment_intent": intent.id}).data
        assert (charge.status, charge.amount_captured, charge.payment_method_details.card.last4
                ) == ("succeeded", intent.amount, "3184")
        report = run.finish()

    assert report["success"] is True and report["reward"] >= 0.9, report["assertions"]
    # Each page a step (the entry none): shop, cart, shop, cart, shipping and its post,
    # payment and its post, the challenge and its answer, the confirmation; 2 API reads.
    assert report["steps"] == 13
    log = server.log.read_text()
    assert obs.token not in log and f"{TOKEN_PARAM}=[redacted]" in log


def test_a_declined_card_then_another_in_the_browser(context: BrowserContext, server: Server,
                                                    shots: Shots) -> None:
    with workgym.connect(server.url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        # The harness may set the cookie itself: the token never appears in a URL.
        context.add_cookies([{"name": COOKIE, "value": obs.token, "domain": "127.0.0.1",
                              "path": "/apps/", "httpOnly": True, "sameSite": "Strict"}])
        page = context.new_page()
        page.goto(f"{obs.apps['checkout']}/shop?currency=gbp")
        _add(page, "House Blend Beans 250g", quantity=2)
        expect(page.locator("td.total")).to_have_text("£22.00")
        _ship(page, "Ada Lovelace", "ada@example.com")
        page.get_by_role("button", name="Continue to payment").click()

        _card(page, "4000 0000 0000 0002")

        expect(page.locator(".error")).to_have_text("Your card was declined.")
        shots(page, "payment-declined")
        _card(page, "4242 4242 4242 4242")
        expect(page.locator("h1.confirmed")).to_contain_text("is confirmed")
        shots(page, "confirmation")

        client = _stripe(obs)
        intent = client.v1.payment_intents.retrieve(_paid_intent(page))
        assert (intent.status, intent.amount, intent.currency) == ("succeeded", 2200, "gbp")
        charges = client.v1.charges.list(params={"payment_intent": intent.id}).data
        assert [(c.status, c.outcome.reason, c.payment_method_details.card.last4)
                for c in charges] == [("succeeded", None, "4242"),
                                      ("failed", "generic_decline", "0002")]
        assert intent.latest_charge == charges[0].id
    assert obs.token not in server.log.read_text()
