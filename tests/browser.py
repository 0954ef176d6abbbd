"""Debian's headless Chromium, driven by Playwright (never a downloaded browser), for the tests
of the pages (telemetry's, the checkout's): the ``BROWSER`` marks, and the ``browser`` fixture
(a plugin of the tests' conftest)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from workgym.browser.env import CHROMIUM_ARGS, chromium

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
