"""The episode page of episodes the real stack recorded (not synthetic spans): a run of
the reference agent and one of a fault-heavy task, in headless Chromium, opened by the
signed link the gym put in the report."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
from playwright.sync_api import Browser, expect

from tests.browser import BROWSER
from tests.conftest import Recorded
from workgym_core import credentials
from workgym_core.settings import Settings

pytestmark = BROWSER


def test_the_page_shows_a_recorded_episode(recorded: Recorded, browser: Browser,
                                           tmp_path: Path) -> None:
    episode = recorded.episodes["fault"]
    timeline = httpx.get(f"{recorded.url}/v1/episodes/{episode}/timeline",
                         headers=recorded.operator).json()
    link = timeline["report"]["episode_page"]
    expires = int(parse_qs(urlsplit(link).query)["exp"][0])
    assert link == credentials.page_link(recorded.url, recorded.api_key, episode, expires)
    assert time.time() < expires <= time.time() + Settings.model_fields["link_ttl_s"].default
    tab = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        tab.goto(link)
        steps = tab.locator("details.step")
        expect(steps).to_have_count(len(timeline["steps"]))
        paths = [s["path"] for s in timeline["steps"]]
        assert "/v1/refunds" in paths and paths[0] == "/store/orders"
        for i, step in enumerate(timeline["steps"]):
            expect(steps.nth(i)).to_contain_text(step["path"])
        faulted = steps.filter(has_text="timeout_after")
        expect(faulted).to_have_count(1)
        faulted.locator("summary").click()
        expect(faulted).to_contain_text("gateway_timeout")
        expect(faulted).to_contain_text("refunds")  # the row the lost write still inserted
        expect(tab.locator("body")).to_contain_text("exactly_one_refund")
        tab.screenshot(path=str(tmp_path / "recorded-episode.png"), full_page=True)
        assert (tmp_path / "recorded-episode.png").stat().st_size > 10_000
    finally:
        tab.close()
