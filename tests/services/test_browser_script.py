"""``workgym.browser.script`` runs a ``browser:`` script in Debian's headless Chromium against
a real ``workgym serve`` (one per module, started by the environment), on the checkout's
payments dashboard: ``read`` with ``all`` saves every match's text as a list (none: an empty
one), a step's ``when`` decides over it as an API reference's does (a step that does not run
sends nothing), ``nth`` picks one of several matches (without it several are an error),
``testid_prefix`` finds elements by how their test-id begins, ``has_text`` keeps those that
say something, and ``read`` gives an input's
value and a select's chosen option. A step that cannot be done fails naming its number."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import BROWSER
from workgym.browser import BrowserEnv
from workgym.browser.script import BrowserScriptFailed, run_browser_script
from workgym.browser_steps import BrowserSolution

pytestmark = BROWSER
TASK = "checkout/test-order-3ds"  # its episodes open on the payments dashboard
UNCAPTURED = "checkout:/dashboard/payments?status=uncaptured"
LINKS = '[data-testid^="payment-link-"]'


@pytest.fixture(scope="module")
def env() -> Iterator[BrowserEnv]:
    with BrowserEnv() as env:
        yield env


def run(env: BrowserEnv, *steps: dict[str, Any]) -> list[str]:
    """The action strings ``steps`` sent, on a fresh episode."""
    env.reset(task=TASK, seed=2, faults="none")
    return run_browser_script(env, BrowserSolution.model_validate({"steps": list(steps)}))


def test_read_all_saves_every_matchs_text_and_when_decides_over_the_list(
        env: BrowserEnv) -> None:
    all_uncaptured = ("length(saved('statuses')) > `1` && "
                      "length(saved('statuses')[?@ != 'Uncaptured']) == `0`")

    sent = run(env, {"goto": UNCAPTURED},
               {"read": {"testid_prefix": "payment-status-"}, "save": "statuses", "all": True},
               {"read": {"testid_prefix": "no-such-"}, "save": "nothing", "all": True},
               {"send_msg_to_user": "all uncaptured", "when": all_uncaptured},
               {"send_msg_to_user": "not all", "when": f"!({all_uncaptured})"},
               {"click": {"text": "Nothing like this"}, "when": "length(saved('nothing')) > `0`"},
               {"send_msg_to_user": "none of those", "when": "saved('nothing') == `[]`"})

    assert sent[1:] == ["send_msg_to_user('all uncaptured')",
                        "send_msg_to_user('none of those')"]


def test_nth_picks_one_of_several_matches_counting_from_either_end(env: BrowserEnv) -> None:
    run(env, {"goto": UNCAPTURED})
    hrefs = [link.evaluate("a => a.href") for link in env.page.locator(LINKS).all()]
    assert len(hrefs) > 2

    run(env, {"goto": UNCAPTURED}, {"click": {"testid_prefix": "payment-link-", "nth": 1}})
    second = env.page.url
    run(env, {"goto": UNCAPTURED}, {"click": {"testid_prefix": "payment-link-", "nth": -1}})

    assert (second, env.page.url) == (hrefs[1], hrefs[-1])


def test_read_gives_an_inputs_value_and_a_selects_chosen_option(env: BrowserEnv) -> None:
    sent = run(env, {"goto": "checkout:/dashboard/payments?q=A-12997&status=succeeded"},
               {"read": {"label": "Search"}, "save": "query"},
               {"read": {"label": "Status"}, "save": "status"},
               {"send_msg_to_user": "{query} / {status}"})

    assert sent[-1] == "send_msg_to_user('A-12997 / Succeeded')"


def test_has_text_keeps_the_matches_that_say_it(env: BrowserEnv) -> None:
    sent = run(env, {"goto": "checkout:/dashboard/payments"},
               {"read": {"testid_prefix": "payment-row-", "has_text": "Order A-12997"},
                "save": "status", "pattern": r"(\S+)\s+Order A-12997"},
               {"send_msg_to_user": "{status}"})

    assert sent[-1] == "send_msg_to_user('Succeeded')"


@pytest.mark.parametrize(("step", "error"), [
    ({"click": {"testid_prefix": "payment-link-"}},
     r"browser step 2 \(click\): testid_prefix 'payment-link-' matches \d+ elements"),
    ({"click": {"testid_prefix": "payment-link-", "nth": 999}},
     r"browser step 2 \(click\): testid_prefix 'payment-link-' \(nth 999\): no such match, "
     r"it matches \d+ elements"),
    ({"read": {"testid_prefix": "payment-link-", "nth": -999}, "save": "x"},
     r"browser step 2 \(read\): .* no such match"),
    ({"click": {"testid_prefix": "payment-link-", "nth": 0}, "when": "saved('later')"},
     r"browser step 2 \(click\): saved\('later'\): nothing saved as later"),
])
def test_a_step_that_cannot_be_done_fails_naming_it_and_sends_nothing(
        env: BrowserEnv, step: dict[str, Any], error: str) -> None:
    with pytest.raises(BrowserScriptFailed, match=error):
        run(env, {"goto": UNCAPTURED}, step)

    assert env.page.url.endswith("/dashboard/payments?status=uncaptured")
