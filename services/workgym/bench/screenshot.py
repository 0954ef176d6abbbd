"""The README's picture of the bench report's diagnosis section (``docs/diagnosis.png``,
written by ``make screenshots`` too): a short in-process run of the random agent (it fails in
many ways) on a few tasks, its report rendered, and the section's box shot in Debian's
headless Chromium.

    python -m workgym.bench.screenshot [ROOT]   # ROOT: the checkout (default: this one)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..browser.env import CHROMIUM_ARGS, chromium
from ..cli import main
from .report import write_report

ROOT = Path(__file__).resolve().parents[3]
TASKS = ("helpdesk/fault-flaky-billing-api,helpdesk/fault-rate-limited-lookup,"
         "checkout/cancel-subscription,helpdesk/two-factor-reset,tracker/start-work-on-bug")
SEEDS = "0-2"
AGENT = "random"  # fails in many ways: refused calls, wrong writes, early stops


def write(root: Path = ROOT) -> Path:
    """Run the bench, render its report, shoot the diagnosis section; the file written."""
    from playwright.sync_api import sync_playwright

    out = root / "docs" / "diagnosis.png"
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "run.json"
        code = main(["bench", "--tasks", TASKS, "--seeds", SEEDS, "--agent", AGENT,
                     "--out", str(results)])
        if code:
            raise SystemExit(f"screenshot: the bench failed ({code})")
        html = write_report(results)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(chromium()),
                                                 args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(html.as_uri())
            out.parent.mkdir(parents=True, exist_ok=True)
            page.locator("#diagnosis").screenshot(path=out)
            browser.close()
    return out


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT))
