"""The pages render every language the world speaks, CJK included, in Debian's Chromium: each
character the helpdesk's customers write (its topics' texts, in every language of the shared
identity's locales) drawn in each app's page font must be a real glyph. A missing font shows
as tofu: the same empty box for every character it lacks, so two different characters that
render to identical pixels, or one that renders as the box of a character no font has, fail.

CI (``.ci/run``) installs Debian's ``fonts-noto-cjk`` and ``fonts-noto-core`` with chromium;
elsewhere the test is skipped without a Japanese font, and in CI it runs and fails instead."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser

from replicas.helpdesk import world
from replicas.runtime import identity
from tests.browser import BROWSER

ROOT = Path(__file__).resolve().parents[2]
APPS = ("helpdesk", "checkout", "tracker", "crm")
CELL = 40  # px: one character per cell, a fixed grid
COLUMNS = 25
# A private-use code point no font draws: what a character without a font looks like (tofu).
NO_GLYPH = "\U0010fffd"


def _japanese_fonts() -> bool:
    """Whether fontconfig knows a font that covers Japanese."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    return bool(subprocess.run([fc_list, ":lang=ja", "family"], capture_output=True,
                               text=True).stdout.strip())


pytestmark = [*BROWSER, pytest.mark.skipif(
    not _japanese_fonts() and not os.environ.get("CI"),
    reason="no Japanese font (apt-get install -y fonts-noto-cjk fonts-noto-core); "
           "in CI this test runs and fails instead")]


def _languages() -> list[str]:
    """The world's languages: those of the shared identity's locales ('ja-JP' -> 'ja')."""
    return sorted({locale.split("-")[0] for locale in identity.data()["locales"]})


def _characters(language: str) -> list[str]:
    """Every character the helpdesk's customers write in ``language`` (its topics' subjects
    and bodies, placeholders left out)."""
    texts = [text for topic in world.data()["topics"].values()
             for pair in topic["texts"].get(language, []) for text in pair]
    assert texts, f"the helpdesk's world writes nothing in {language!r}"
    return sorted({char for text in texts for char in re.sub(r"\{\w+\}", "", text)
                   if not char.isspace()})


def _page_font(app: str) -> str:
    """The font of ``app``'s pages: the ``font`` of its base template's ``body`` rule."""
    css = (ROOT / "replicas" / app / "pages" / "templates" / "base.html").read_text()
    found = re.search(r"body\s*\{[^}]*?\bfont:\s*([^;]+);", css)
    assert found, f"{app}'s base.html sets no body font"
    return " ".join(found[1].split())


def _cells(browser: Browser, font: str, characters: list[str]) -> list[bytes]:
    """Each character drawn alone in a fixed cell in ``font``, as its cell's pixels."""
    cells = "".join(f'<span>{char}</span>' for char in characters)
    page = browser.new_page(viewport={"width": CELL * COLUMNS, "height": 600})
    try:
        page.set_content(
            '<!doctype html><meta charset="utf-8"><style>'
            f"body {{ margin:0; font:{font}; background:#fff; color:#000; }}"
            f"div {{ display:grid; grid-template-columns:repeat({COLUMNS}, {CELL}px); }}"
            f"span {{ width:{CELL}px; height:{CELL}px; font-size:24px; line-height:{CELL}px;"
            " text-align:center; overflow:hidden; }}"
            f"</style><div>{cells}</div>")
        image = Image.open(io.BytesIO(page.locator("div").screenshot())).convert("L")
    finally:
        page.close()
    return [image.crop(((i % COLUMNS) * CELL, (i // COLUMNS) * CELL,
                        (i % COLUMNS + 1) * CELL, (i // COLUMNS + 1) * CELL)).tobytes()
            for i in range(len(characters))]


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("language", _languages())
def test_every_character_of_the_world_renders_as_a_real_glyph(browser: Browser, app: str,
                                                             language: str) -> None:
    characters = _characters(language)
    *drawn, tofu = _cells(browser, _page_font(app), [*characters, NO_GLYPH])
    blank = bytes([255]) * CELL * CELL
    missing = [char for char, pixels in zip(characters, drawn, strict=True)
               if pixels in (tofu, blank)]
    assert not missing, f"{app}'s pages draw no glyph for {language} {''.join(missing)!r}"
    alike: dict[bytes, list[str]] = {}
    for char, pixels in zip(characters, drawn, strict=True):
        alike.setdefault(pixels, []).append(char)
    same = [chars for chars in alike.values() if len(chars) > 1]
    assert not same, f"{app}'s pages draw these {language} characters alike (tofu): {same}"
