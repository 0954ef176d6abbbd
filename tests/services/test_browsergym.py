"""WorkGym's tasks registered with BrowserGym (``workgym.browser.browsergym``, browsergym-core
0.13.x): BrowserGym's own environment (``gymnasium.make``), its observation (its bids, its
accessibility tree) and its own action strings place the test order of
``checkout/test-order-3ds`` through the shop's pages in Debian's Chromium; the message the agent
sends the user finishes the episode with it as the answer, and the reward is the episode's."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import gymnasium
import pytest
from browsergym.utils.obs import flatten_axtree_to_str  # type: ignore[import-untyped]

from tests.browser import BROWSER
from workgym.agents.reference import given
from workgym.browser import browsergym
from workgym.processes import serving
from workgym.tasks import catalogue

pytestmark = BROWSER
TASK = catalogue().get("checkout/test-order-3ds")
KEY = "wgk_test_browsergym"
SAID = "I placed the test order and completed the 3-D Secure authentication."


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("gym")),
           "WORKGYM_API_KEY": KEY}
    with serving(env=env) as url:
        yield url
    browsergym.close()  # BrowserGym's Playwright: the next module's can start


def bid(obs: dict[str, Any], role: str, name: str) -> str:
    """The bid BrowserGym gave the element of ``role`` named ``name`` (its AX tree's text)."""
    tree = flatten_axtree_to_str(obs["axtree_object"])
    found = re.search(rf"^\s*\[(\w+)\] {role} {re.escape(repr(name))}", tree, re.MULTILINE)
    assert found, f"no {role} {name!r} on {obs['url']}:\n{tree[:3000]}"
    return found[1]


def test_the_ids_are_the_catalogues_with_one_slash(gym: str) -> None:
    ids = browsergym.register(gym, api_key=KEY)

    assert len(ids) == len(list(catalogue()))
    assert browsergym.env_id(TASK.id) == "browsergym/workgym.checkout.test-order-3ds"
    assert all(id_ in gymnasium.registry for id_ in ids)


def test_browsergyms_own_env_and_actions_score_a_workgym_episode(gym: str) -> None:
    (env_id,) = browsergym.register(gym, api_key=KEY, faults="none", tasks=[TASK.id])
    env = gymnasium.make(env_id)
    try:
        obs, info = env.reset(seed=0)
        assert info["task_info"]["episode_id"].startswith("ep_")
        assert obs["goal"].startswith(TASK.instruction.split("{{")[0].strip()[:40])
        assert TASK.browser is not None
        the = given(TASK.browser, obs["goal"])
        checkout = re.search(r"- checkout: (\S+?/apps/checkout)", obs["goal"])
        assert checkout, obs["goal"]

        def act(action: str) -> dict[str, Any]:
            obs, reward, terminated, _, info = env.step(action)
            assert not obs["last_action_error"], f"{action}: {obs['last_action_error']}"
            assert not terminated and reward == 0
            return dict(obs)

        obs = act(f"goto({checkout[1] + '/shop'!r})")
        obs = act(f"click({bid(obs, 'link', the['currency'])!r})")
        obs = act(f"press({bid(obs, 'spinbutton', 'Quantity of ' + the['gear'])!r}, 'Enter')")
        obs = act(f"click({bid(obs, 'link', 'Continue shopping')!r})")
        obs = act(f"press({bid(obs, 'spinbutton', 'Quantity of ' + the['beans'])!r}, 'Enter')")
        obs = act(f"click({bid(obs, 'link', 'Check out')!r})")
        for label, value in (("Full name", the["name"]), ("Email (for the receipt)", the["email"]),
                             ("Street address", "1 Test Street"), ("Postal code", "10001"),
                             ("City", "Springfield")):
            obs = act(f"fill({bid(obs, 'textbox', label)!r}, {value!r})")
        obs = act(f"click({bid(obs, 'button', 'Continue to payment')!r})")
        for label, value in (("Name on the card", the["name"]), ("Card number", the["card"]),
                             ("Expiry month", "12"), ("Expiry year", "2030"), ("CVC", "123")):
            obs = act(f"fill({bid(obs, 'textbox', label)!r}, {value!r})")
        obs = act(f"press({bid(obs, 'textbox', 'CVC')!r}, 'Enter')")
        obs = act(f"click({bid(obs, 'button', 'Complete authentication')!r})")
        assert "is confirmed" in flatten_axtree_to_str(obs["axtree_object"])

        obs, reward, terminated, truncated, info = env.step(f"send_msg_to_user({SAID!r})")
    finally:
        env.close()

    report = info["task_info"]
    assert terminated and not truncated and reward == report["reward"]
    assert report["success"] and not report["harm"], report["assertions"]
