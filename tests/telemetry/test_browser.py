"""The pages in a real headless Chromium (Debian's ``chromium``), driven by Playwright: an
operator logs in with the API key; a signed link opens its episode and nothing else."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import BROWSER
from workgym_core import credentials

from .conftest import MakeServer, Served
from .emit import CLOSE, REFUND, export_episode, protobuf_exporter

ARTIFACT = Path(__file__).parent / "artifacts" / "episode.png"
ORANGE = "rgb(194, 65, 12)"

pytestmark = BROWSER


@pytest.fixture
def page(browser: Browser, make_server: MakeServer) -> Iterator[tuple[Page, Served]]:
    served = make_server()
    export_episode(REFUND, protobuf_exporter(served.url, served.secret))
    export_episode(CLOSE, protobuf_exporter(served.url, served.secret))
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    foreign: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(served.url) else foreign.append(r.url))
    yield page, served
    context.close()
    assert foreign == [], "the pages must load nothing from outside the store"


def _log_in_form(tab: Page) -> None:
    expect(tab.locator("h1")).to_have_text("Log in")
    expect(tab.locator("form.login input[name=api_key]")).to_have_attribute("type", "password")
    expect(tab.locator("details.step")).to_have_count(0)


def test_logging_in_then_the_episode_page_and_index(page: tuple[Page, Served],
                                                    tmp_path: Path) -> None:
    tab, served = page
    asked = tab.goto(f"{served.url}/episodes/{REFUND.episode_id}")

    assert asked is not None and asked.status == 401
    _log_in_form(tab)
    tab.locator("input[name=api_key]").fill("wgk_not-the-key")
    tab.locator("form.login button").click()
    expect(tab.locator(".error")).to_have_text("That is not the API key.")
    _log_in_form(tab)
    assert tab.context.cookies() == []
    tab.locator("input[name=api_key]").fill(served.api_key)
    tab.locator("form.login button").click()
    tab.wait_for_url(f"{served.url}/episodes/{REFUND.episode_id}")
    [cookie] = tab.context.cookies()
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/")
    assert served.api_key not in cookie["value"]

    expect(tab.locator("h1")).to_contain_text(REFUND.episode_id)
    steps = tab.locator("details.step")
    expect(steps).to_have_count(len(REFUND.steps))
    assert [steps.nth(i).get_attribute("data-step") for i in range(4)] == ["1", "2", "3", "4"]
    for i, plan in enumerate(REFUND.steps):
        expect(steps.nth(i).locator("summary .path")).to_contain_text(plan.path)
        expect(steps.nth(i).locator("summary .status")).to_have_text(str(plan.status))

    faulted = tab.locator("details.step.faulted")
    expect(faulted).to_have_count(2)
    second = tab.locator("details[data-step='2']")
    badge = second.locator(".badge.fault")
    expect(badge).to_contain_text("timeout_after_write")
    expect(badge).to_have_css("background-color", ORANGE)
    expect(second).to_have_css("border-left-color", ORANGE)
    expect(tab.locator("details[data-step='1'] .badge.fault")).to_have_count(0)
    expect(tab.locator("details[data-step='3'] .badge.fault")).to_have_text(
        ["⚠ latency", "⚠ state_drift"])

    changes = second.locator("table.changes")
    expect(changes).to_be_hidden()
    second.locator("summary").click()
    expect(second).to_have_attribute("open", "")
    expect(second.locator("pre").first).to_contain_text('"amount": 12.5')
    expect(changes).to_be_visible()
    expect(changes.locator("tbody tr")).to_have_count(2)
    expect(changes.locator("tbody tr").first).to_contain_text("refunds")
    expect(changes.locator("tbody tr").first).to_contain_text("insert")
    tab.locator("details[data-step='4'] summary").click()
    expect(tab.locator("details[data-step='4'] pre").first).to_contain_text(
        "Refunded 12.50 <b>EUR</b>")  # escaped: shown as text, not markup

    assertions = tab.locator("ul.assertions li")
    expect(assertions).to_have_count(3)
    assert [assertions.nth(i).get_attribute("class") for i in range(3)] == [
        "passed", "passed", "failed"]
    expect(assertions.nth(2)).to_contain_text("customer_notified_in_policy_terms")
    expect(assertions.nth(2)).to_contain_text("failed")
    expect(tab.locator("table.signals tbody tr")).to_have_count(5)

    tab.screenshot(path=tmp_path / "episode.png", full_page=True)
    ARTIFACT.parent.mkdir(exist_ok=True)
    shutil.copyfile(tmp_path / "episode.png", ARTIFACT)
    assert (tmp_path / "episode.png").stat().st_size > 10_000

    tab.goto(f"{served.url}/")
    rows = tab.locator("table.episodes tbody tr")
    expect(rows).to_have_count(2)
    tab.locator("select[name=outcome]").select_option("failure")
    tab.locator("form.filters button").click()
    tab.wait_for_url("**/?task=&outcome=failure")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(REFUND.task)
    expect(rows.first).to_contain_text("0.620")
    tab.locator("select[name=outcome]").select_option("success")
    tab.locator("form.filters button").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(CLOSE.episode_id)
    tab.screenshot(path=tmp_path / "index.png", full_page=True)
    rows.first.locator("a").click()
    expect(tab.locator("h1")).to_contain_text(CLOSE.episode_id)


def test_a_signed_link_opens_its_episode_and_nothing_else(page: tuple[Page, Served]) -> None:
    tab, served = page
    link = credentials.page_link(served.url, served.api_key, REFUND.episode_id,
                                int(time.time()) + 3600)

    tab.goto(link)

    expect(tab.locator("h1")).to_contain_text(REFUND.episode_id)
    expect(tab.locator("details.step")).to_have_count(len(REFUND.steps))
    tab.locator("a", has_text="JSON").click()  # the timeline, signed by the same link
    expect(tab.locator("body")).to_contain_text(f'"episode_id":"{REFUND.episode_id}"')
    assert tab.context.cookies() == []
    for elsewhere in (link.replace(REFUND.episode_id, CLOSE.episode_id), f"{served.url}/",
                      link.replace(REFUND.episode_id, "no-such-episode")):
        refused = tab.goto(elsewhere)
        assert refused is not None and refused.status == 401, elsewhere
        _log_in_form(tab)
