"""``workgym.browser.BrowserEnv`` in Debian's headless Chromium against a real ``workgym serve``
(one per module, started by the environment itself): an episode opens in its apps' tabs, the
observation has BrowserGym's keys and an accessibility tree whose bids name the page's
elements, each action of the set does what it says on the shop's pages (the checkout's), what
cannot be done is ``last_action_error`` and never an exception, and the last message sent to
the user is the episode's answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests.browser import BROWSER
from workgym.browser import BrowserEnv
from workgym.browser.axtree import BID_ATTRIBUTE

pytestmark = BROWSER
TASK = "checkout/test-order-3ds"  # the shop's pages: links, GET and POST forms, a select
CROSS = "cross/bug-reproduce-through-payments"  # checkout, helpdesk and tracker
LINK_JPY = "link 'JPY'"
FILTERS = "spinbutton 'Quantity of Paper Filters x100', value='1'"
CHECK_OUT = "link 'Check out'"
CONTINUE = "button 'Continue to payment'"
ADDRESS = {"Full name": "Ana Test", "Email (for the receipt)": "ana@example.com",
           "Street address": "1 Test Street", "Postal code": "10001", "City": "Springfield"}
VIEWPORT = (1000, 400)  # short: the shop's catalogue scrolls


@pytest.fixture(scope="module")
def env() -> Iterator[BrowserEnv]:
    with BrowserEnv(viewport=VIEWPORT) as env:
        yield env


@pytest.fixture
def obs(env: BrowserEnv) -> dict[str, Any]:
    """A fresh episode, its first tab on the shop."""
    env.reset(task=TASK, seed=2, faults="none")
    return act(env, f"goto({shop(env)!r})")


def shop(env: BrowserEnv) -> str:
    return env.observation.apps["checkout"] + "/shop"


def act(env: BrowserEnv, action: str) -> dict[str, Any]:
    """One action that must work; its observation."""
    observation, reward, terminated, truncated, info = env.step(action)
    assert observation["last_action_error"] == "" and info["action_error"] is None, action
    assert (reward, terminated, truncated) == (0.0, False, False)
    return observation


def bid(observation: dict[str, Any], line: str) -> str:
    """The bid of the AX tree's one element shown as ``line`` (``button 'Add to cart'``)."""
    found = [row.strip().split("] ", 1) for row in observation["axtree_txt"].splitlines()
             if row.strip().startswith("[") and row.strip().split("] ", 1)[1] == line]
    assert len(found) == 1, f"{line!r} in:\n{observation['axtree_txt']}"
    return found[0][0].lstrip("[")


def test_reset_opens_each_app_of_the_episode_and_observes_it_as_browsergym_does(
        env: BrowserEnv) -> None:
    observation, info = env.reset(task=TASK, seed=2, faults="none")

    assert set(observation) == {
        "goal", "chat_messages", "screenshot", "axtree_txt", "url", "open_pages_urls",
        "open_pages_titles", "active_page_index", "last_action", "last_action_error",
        "elapsed_time"}
    apps = env.observation.apps
    assert info["apps"] == apps and info["task"] == TASK and info["seed"] == 2
    assert observation["goal"].startswith(env.observation.instruction.strip())
    assert f"checkout: {apps['checkout']}/dashboard/payments" in observation["goal"]
    assert observation["chat_messages"] == [{"role": "user", "message": observation["goal"]}]
    assert observation["open_pages_urls"] == [f"{apps['checkout']}/dashboard/payments"]
    assert observation["active_page_index"] == 0 and observation["last_action"] == ""
    screenshot = observation["screenshot"]
    assert isinstance(screenshot, np.ndarray) and screenshot.dtype == np.uint8
    assert screenshot.shape == (VIEWPORT[1], VIEWPORT[0], 3)


def test_the_ax_tree_names_each_element_by_the_bid_written_on_it(
        env: BrowserEnv, obs: dict[str, Any]) -> None:
    link = bid(obs, LINK_JPY)
    quantity = bid(obs, FILTERS)

    assert env.page.locator(f"[{BID_ATTRIBUTE}='{link}']").inner_text() == "JPY"
    assert env.page.locator(f"[{BID_ATTRIBUTE}='{quantity}']").get_attribute(
        "aria-label") == "Quantity of Paper Filters x100"
    assert obs["axtree_txt"].count("button 'Add to cart'") > 1
    assert act(env, "noop()")["axtree_txt"] == obs["axtree_txt"]  # the same page, the same bids


def test_click_follows_a_link(env: BrowserEnv, obs: dict[str, Any]) -> None:
    action = f"click({bid(obs, LINK_JPY)!r})"

    after = act(env, action)

    assert after["url"] == f"{shop(env)}?currency=jpy"
    assert after["last_action"] == action


def test_fill_then_press_enter_submits_the_form(env: BrowserEnv, obs: dict[str, Any]) -> None:
    quantity = bid(obs, FILTERS)
    act(env, f"fill({quantity!r}, '3')")

    after = act(env, f"press({quantity!r}, 'Enter')")

    assert "/shop/cart" in after["url"]
    assert "link 'Cart (3)'" in after["axtree_txt"]


def test_select_option_picks_an_option_by_its_label(
        env: BrowserEnv, obs: dict[str, Any]) -> None:
    cart = act(env, f"press({bid(obs, FILTERS)!r}, 'Enter')")
    check_out = bid(cart, "link 'Check out'")
    shipping = act(env, f"click({check_out!r})")
    country = bid(shipping, "combobox 'Country', value='United States'")

    after = act(env, f"select_option({country!r}, 'Japan')")

    assert bid(after, "combobox 'Country', value='Japan'") == country


def test_scroll_moves_the_page(env: BrowserEnv, obs: dict[str, Any]) -> None:
    assert env.page.evaluate("window.scrollY") == 0

    act(env, "scroll(0, 300)")

    assert env.page.evaluate("window.scrollY") > 0


@pytest.mark.parametrize(("action", "error"), [
    ("click('a99999')", "no element with bid 'a99999' on this page"),
    ("click('[x]')", "bid must be an element's id"),
    ("clack('a1')", "unknown action 'clack'"),
    ("click(", "unreadable action"),
    ("click('a1', buttn='left')", "unexpected keyword argument 'buttn'"),
    ("click('a1', button='side')", "button must be left, middle or right"),
    ("fill('a1')", "missing a required argument: 'value'"),
    ("goto(__import__('os').getcwd())", "arguments must be literals"),
    ("tab_focus(3)", "no tab 3 (there are 1)"),
    ("1 + 1", "not an action call"),
])
def test_what_cannot_be_done_is_the_last_action_error_and_changes_nothing(
        env: BrowserEnv, obs: dict[str, Any], action: str, error: str) -> None:
    after, reward, terminated, truncated, info = env.step(action)

    assert error in after["last_action_error"] and info["action_error"] == after[
        "last_action_error"]
    assert after["last_action"] == action
    assert (after["url"], after["axtree_txt"]) == (obs["url"], obs["axtree_txt"])


def test_tabs_open_focus_and_each_keep_their_page(env: BrowserEnv, obs: dict[str, Any]) -> None:
    opened = act(env, "new_tab()")
    assert (opened["active_page_index"], len(opened["open_pages_urls"])) == (1, 2)
    cart = f"{env.observation.apps['checkout']}/shop/cart"
    act(env, f"goto({cart!r})")

    back = act(env, "tab_focus(0)")

    assert back["active_page_index"] == 0 and back["url"] == obs["url"]
    assert back["open_pages_urls"] == [obs["url"], cart]
    assert back["open_pages_titles"][1] == "Cart · Coffee Gear Shop"


def test_a_task_of_several_apps_opens_a_tab_on_each_and_goto_reaches_any(
        env: BrowserEnv) -> None:
    observation, _ = env.reset(task=CROSS, seed=1, faults="none")
    apps = env.observation.apps
    assert list(apps) == ["checkout", "helpdesk", "tracker"]
    starts = [f"{apps['checkout']}/dashboard/payments", f"{apps['helpdesk']}/agent/dashboard",
              f"{apps['tracker']}/boards"]
    assert observation["open_pages_urls"] == starts and observation["active_page_index"] == 0

    tracker = act(env, "tab_focus(2)")
    assert tracker["url"] == starts[2] and "heading 'Boards'" in tracker["axtree_txt"]
    shop_in_tracker_tab = act(env, f"goto({shop(env)!r})")

    assert shop_in_tracker_tab["open_pages_urls"] == [*starts[:2], shop(env)]
    assert "heading 'Coffee gear, beans and more'" in shop_in_tracker_tab["axtree_txt"]


def test_the_last_message_sent_to_the_user_is_the_answer_of_finish(
        env: BrowserEnv, obs: dict[str, Any]) -> None:
    act(env, "send_msg_to_user('First thoughts.')")
    said = act(env, "send_msg_to_user('Nothing was ordered.')")
    assert said["chat_messages"][1:] == [
        {"role": "assistant", "message": "First thoughts."},
        {"role": "assistant", "message": "Nothing was ordered."}]

    report = env.finish()

    assert report["success"] is False and report["steps"] >= 1
    trajectory = env.episode.trajectory() if env.episode else []
    assert [step["path"] for step in trajectory][-1] == "/shop"
    with pytest.raises(RuntimeError, match="finished"):
        env.step("noop()")
    with pytest.raises(RuntimeError, match="finished"):
        env.finish()


def test_a_navigation_that_meets_a_fault_shows_the_proxys_answer(env: BrowserEnv) -> None:
    env.reset(task=TASK, seed=2, faults=[
        {"kind": "server_error", "statuses": [503],
         "target": {"app": "checkout", "method": "GET", "path": "/shop"}}])

    after = act(env, f"goto({shop(env)!r})")

    assert after["url"] == shop(env)
    assert "The service is temporarily overloaded." in after["axtree_txt"]


def test_an_observation_waits_for_the_page_a_slow_form_post_lands_on(env: BrowserEnv) -> None:
    """The proxy holds the answer to the post back 1.5 s: the observation is of the page the
    post lands on, not of the form still on screen (Playwright waits for the navigation an
    action starts; its option not to is to become its default)."""
    env.reset(task=TASK, seed=2, faults=[
        {"kind": "latency", "delay_ms": 1500,
         "target": {"app": "checkout", "method": "POST", "path": "/shop/shipping"}}])
    catalogue = act(env, f"goto({shop(env)!r})")
    cart = act(env, f"press({bid(catalogue, FILTERS)!r}, 'Enter')")
    shipping = act(env, f"click({bid(cart, CHECK_OUT)!r})")
    for label, value in ADDRESS.items():
        act(env, f"fill({bid(shipping, f'textbox {label!r}, required')!r}, {value!r})")

    after = act(env, f"click({bid(shipping, CONTINUE)!r})")

    assert "/shop/payment" in after["url"]
    assert "/shop/payment" in env.page.url
