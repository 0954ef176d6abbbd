"""``make screenshots``: the pages an operator works in, on a seeded episode, as PNGs in the
repository (the README shows them): the helpdesk's ticket page, the payments dashboard's
payment page, the tracker's issue page, each at ``replicas/<app>/pages/screenshots/``.

One episode of :data:`TASK` on :data:`SEED` (a case in all three apps) in a
:class:`BrowserEnv` with a served gym of its own; each page is reached with the env's
``goto`` action, its viewport saved. Which records are shown: the case's ticket (the
instruction names it), its newest payment and the newest bug of its storefront project (read
through the API: these pictures are documentation, not a solution). A page that is not
there yet is saved as the app shows it (its refusal), and said on stderr.

    python -m workgym.browser.screenshots [ROOT]   # ROOT: the checkout (default: this one)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from ..sdk import Env
from .env import BrowserEnv

TASK = "cross/incident-wrong-charge-filed-bug"
SEED = 0
ROOT = Path(__file__).resolve().parents[3]


def _ticket(episode: Env) -> str:
    assert episode.observation is not None
    found = re.search(r"ticket #(\d+)", episode.observation.instruction)
    assert found, "the instruction names no ticket"
    return f"/agent/tickets/{found[1]}"


def _payment(episode: Env) -> str:
    intents = episode.call("GET", "/v1/payment_intents", params={"limit": 1}, app="checkout")
    return f"/dashboard/payments/{intents.json()['data'][0]['id']}"


def _issue(episode: Env) -> str:
    found = episode.call("GET", "/rest/api/3/search/jql", app="tracker", params={
        "jql": "project = SHOP AND issuetype = Bug ORDER BY created DESC", "maxResults": 1,
        "fields": "summary"})
    return f"/browse/{found.json()['issues'][0]['key']}"


# app -> (the file's name, the path of the page to show)
SHOTS: dict[str, tuple[str, Callable[[Env], str]]] = {
    "helpdesk": ("ticket.png", _ticket),
    "checkout": ("payment.png", _payment),
    "tracker": ("issue.png", _issue),
}


def path(root: Path, app: str) -> Path:
    """Where ``app``'s screenshot is written under the checkout ``root``."""
    return root / "replicas" / app / "pages" / "screenshots" / SHOTS[app][0]


def write(root: Path = ROOT) -> list[Path]:
    """Open the episode, save each page's viewport; the files written."""
    written = []
    with BrowserEnv() as env:
        env.reset(task=TASK, seed=SEED, faults="none")
        assert env.episode is not None
        for app, (_, page_of) in SHOTS.items():
            url = env.observation.apps[app] + page_of(env.episode)
            error = env.step(f"goto({url!r})")[0]["last_action_error"]
            title = env.page.title()
            if error or not env.page.locator("h1").count():
                print(f"screenshots: {app} {url}: {error or 'no h1'} ({title!r})",
                      file=sys.stderr)
            out = path(root, app)
            out.parent.mkdir(parents=True, exist_ok=True)
            env.page.screenshot(path=out)
            written.append(out)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for out in write(Path(args[0]) if args else ROOT):
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
