"""WorkGym episodes in a browser: a gymnasium-style environment in the shape BrowserGym's
users know (the optional extra ``workgym[browser]``: Playwright driving Debian's Chromium,
``/usr/bin/chromium`` or ``WORKGYM_CHROMIUM``; no browser is ever downloaded).

    from workgym.browser import BrowserEnv

    with BrowserEnv() as env:                  # gym_url=None: a `workgym serve` of its own
        obs, info = env.reset(task="tracker/start-work-on-bug", seed=3)
        print(obs["goal"]); print(obs["axtree_txt"])          # [a12] button 'Start progress'
        obs, reward, terminated, truncated, info = env.step("click('a12')")
        env.step("send_msg_to_user('Done: SHOP-12 is in progress.')")
        report = env.finish()                  # the reward report; the answer: the last message

``BrowserEnv(gym_url=None, *, api_key=None, headless=True, viewport=(1280, 900),
timeout_ms=10000, screenshots=True)``: ``gym_url`` a WorkGym server (its operator ``api_key``,
default as :func:`workgym.connect`'s); None starts one for the environment's life;
``screenshots=False`` leaves ``obs["screenshot"]`` None (a scripted or text-only agent's
choice: the quality gate's). ``close()`` or a ``with`` block ends it.

``reset(task=None, seed=0, faults=None) -> (obs, info)``: a new episode over HTTP (``faults``
None: the task's own plan; a preset's name; fault configs), entered in a fresh browser
profile (the episode's token as the proxy's cookie, ``workgym_proxy.browser``), one tab per
app of the task on the app's start page (``start_page`` in ``replicas/<app>/app.yaml``).
``info``: ``episode_id``, ``task``, ``seed``, ``apps``. ``env.observation`` is the episode as
the gym created it; ``env.page`` the active tab (Playwright's).

``step(action) -> (obs, reward, terminated, truncated, info)``: one action string of
BrowserGym's high-level set, read with ``ast`` (never ``eval``): ``click(bid, button='left')``,
``fill(bid, value)``, ``select_option(bid, options)``, ``press(bid, key_comb)``, ``goto(url)``,
``new_tab()``, ``tab_focus(index)``, ``scroll(delta_x, delta_y)``, ``send_msg_to_user(text)``,
``noop(wait_ms=0)``. A malformed or unknown action, bad arguments, a bid not on the page or an
action the page refuses is ``obs["last_action_error"]`` (and ``info["action_error"]``), never
an exception. The reward is 0 and the episode never ends by itself: ``finish()`` ends it (its
answer the last ``send_msg_to_user``) and returns the report; ``step``/``finish`` after it
raise RuntimeError until the next ``reset``. Every page load and form post goes through the
proxy and is a step of the episode; a navigation that meets an injected fault shows the
proxy's answer as the page.

Observations (BrowserGym's keys): ``goal`` (the instruction and the apps' URLs),
``chat_messages`` (``{"role": "user"|"assistant", "message"}``: the goal, then what was sent
to the user), ``screenshot`` (the active tab's viewport, an H×W×3 ``uint8`` numpy array:
numpy and Pillow are in the extra), ``axtree_txt`` (Chromium's accessibility tree,
one element a line, ``[bid] role 'name'``, ``workgym.browser.axtree``), ``url``,
``open_pages_urls``, ``open_pages_titles``, ``active_page_index``, ``last_action``,
``last_action_error`` (``""`` when none), ``elapsed_time`` (seconds since reset). An
observation is taken once the document an action sent its tab to has loaded (Playwright
waits for the navigations an action starts), never after a fixed wait. Bids are
written into the page's DOM (attribute ``bid``: ``a0``, ``a1``, ... in document order) before
every observation: deterministic for a page, reassigned after each action.

Scoring is the task's, as for an API agent, with two differences of counting only: the proxy
marks the steps a browser sent (``TrajectoryStep.browser``), a form's post and the page the
browser is sent on to are one step, and a browser episode's efficiency is measured against
the task's ``browser:`` solution (its start pages and page-loading actions) when it has one.

A task's ``browser:`` solution runs through the same interface: ``workgym.browser.script``;
whether it reached what the API reference reaches: ``workgym_reward.state_class``.
"""

from __future__ import annotations

from .actions import ActionError
from .env import BrowserEnv

__all__ = ["ActionError", "BrowserEnv"]
