"""``make screenshots`` (workgym.browser.screenshots): one seeded episode in the browser
environment, the helpdesk's ticket page, the payment page and the issue page saved as PNGs
where the README shows them (under a given root here)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from tests.browser import BROWSER
from workgym.browser import screenshots

pytestmark = BROWSER


def test_each_apps_page_is_saved_where_the_readme_shows_it(tmp_path: Path) -> None:
    written = screenshots.write(tmp_path)

    assert written == [tmp_path / "replicas" / app / "pages" / "screenshots" / name
                       for app, name in (("helpdesk", "ticket.png"), ("checkout", "payment.png"),
                                         ("tracker", "issue.png"))]
    for path in written:
        with Image.open(path) as image:
            assert (image.format, image.size) == ("PNG", (1280, 900))
    readme = (screenshots.ROOT / "README.md").read_text()
    assert all(str(screenshots.path(Path(), app)) in readme for app in screenshots.SHOTS)
