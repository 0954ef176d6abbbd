"""Debian's headless Chromium, driven by Playwright (never a downloaded browser), for the tests
of the pages (telemetry's, each app's): the ``BROWSER`` marks, the ``browser`` fixture (a
plugin of the tests' conftest), a served gym for a module (:func:`served`) and a browser
profile entered in an episode's app (:func:`entered`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from workgym.browser.env import CHROMIUM_ARGS, chromium
from workgym.processes import serving
from workgym.sdk import Observation
from workgym_proxy.browser import TOKEN_PARAM

CHROMIUM = chromium()
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists() and not os.environ.get("CI"),
                       reason=f"{CHROMIUM} is absent (apt-get install -y chromium); "
                              "in CI this test runs and fails instead"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium, driven by Playwright (never a downloaded browser)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def served(tmp_path_factory: pytest.TempPathFactory, name: str,
           **settings: str) -> Iterator[str]:
    """A real ``workgym serve`` for a module's tests (its data in a folder of its own named
    ``name``; ``settings``: more of its environment, e.g. ``WORKGYM_STEP_BUDGET``); its URL."""
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp(name)), **settings}
    with serving(env=env) as url:
        yield url


@contextmanager
def entered(browser: Browser, episode: Observation, app: str, path: str,
            shot: Path | None = None) -> Iterator[Page]:
    """A fresh browser profile on ``app``'s page ``path`` of ``episode``, entered with its
    token (the proxy's cookie, ``workgym_proxy.browser``); ``shot``: where a full-page
    screenshot of how the test left it is written (and said)."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{episode.apps[app]}{path}?{TOKEN_PARAM}={episode.token}")
        yield page
        if shot is not None:
            page.screenshot(path=shot, full_page=True)
            print(f"\nthe page after the test: {shot}")
    finally:
        context.close()
