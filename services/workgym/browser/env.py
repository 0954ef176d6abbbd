"""``BrowserEnv``: an episode's apps in a headless Chromium, driven by BrowserGym's actions
(the module docstring of :mod:`workgym.browser` documents the API)."""

from __future__ import annotations

import io
import os
import secrets
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Literal, Self

import numpy as np
from numpy.typing import NDArray
from PIL import Image
from playwright.sync_api import BrowserContext, CDPSession, Locator, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from replicas.runtime.spec import read_manifest
from workgym_proxy.browser import TOKEN_PARAM

from ..processes import serving
from ..sdk import Env, FaultChoice, Observation, connect
from . import axtree
from .actions import Action, ActionError, bid_of, parse, text_of

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 10_000
BUTTONS: dict[str, Literal["left", "middle", "right"]] = {
    "left": "left", "middle": "middle", "right": "right"}


def chromium() -> Path:
    """The Chromium to drive: ``WORKGYM_CHROMIUM``, else Debian's (never a downloaded one)."""
    return Path(os.environ.get("WORKGYM_CHROMIUM", "/usr/bin/chromium"))


def goal_of(observation: Observation) -> str:
    """The agent's goal: the instruction, then where each app of the episode is."""
    apps = "\n".join(f"- {app}: {url}{read_manifest(app).start_page}"
                     for app, url in observation.apps.items())
    return f"{observation.instruction.strip()}\n\nThe apps (open in tabs, in this order):\n{apps}"


@contextmanager
def local_gym() -> Iterator[tuple[str, str]]:
    """A ``workgym serve`` of its own (a fresh data dir and API key) for the block: its URL
    and operator key."""
    key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="workgym-browser-") as data, serving(env={
            **os.environ, "WORKGYM_DATA_DIR": data, "WORKGYM_API_KEY": key}) as url:
        yield url, key


def open_apps(context: BrowserContext, observation: Observation,
              first: Page | None = None) -> None:
    """Enter the episode in ``context``: one tab per app of ``observation`` on the app's start
    page (``first``: the first app's tab, when one is open already), the token set as the
    proxy's cookie on the way (``workgym_proxy.browser``)."""
    for number, (app, url) in enumerate(observation.apps.items()):
        page = first if number == 0 and first is not None else context.new_page()
        page.goto(f"{url}{read_manifest(app).start_page}?{TOKEN_PARAM}={observation.token}")


class BrowserEnv:
    """A gymnasium-style environment of WorkGym episodes in a browser (see the package)."""

    def __init__(self, gym_url: str | None = None, *, api_key: str | None = None,
                 headless: bool = True, viewport: tuple[int, int] = (1280, 900),
                 timeout_ms: int = TIMEOUT_MS, screenshots: bool = True) -> None:
        self._stack = ExitStack()
        try:
            if gym_url is None:
                gym_url, api_key = self._stack.enter_context(local_gym())
            self.gym_url = gym_url
            self.api_key = api_key
            self._playwright = self._stack.enter_context(sync_playwright())
            self._browser = self._playwright.chromium.launch(
                executable_path=str(chromium()), headless=headless,
                args=[a for a in CHROMIUM_ARGS if headless or a != "--headless"])
            self._stack.callback(self._browser.close)
        except BaseException:
            self._stack.close()
            raise
        self.viewport = viewport
        self.timeout_ms = timeout_ms
        self.screenshots = screenshots
        self.episode: Env | None = None
        self._context: BrowserContext | None = None
        self._cdp: dict[int, CDPSession] = {}
        self._active = 0
        self._chat: list[dict[str, str]] = []
        self._started = 0.0
        self._finished = False
        self._actions: dict[str, Callable[..., None]] = {
            "click": self._click, "fill": self._fill, "select_option": self._select_option,
            "press": self._press, "goto": self._goto, "new_tab": self._new_tab,
            "tab_focus": self._tab_focus, "scroll": self._scroll,
            "send_msg_to_user": self._send_msg_to_user, "noop": self._noop}

    # -- the episode ------------------------------------------------------------------------
    def reset(self, task: str | None = None, seed: int = 0,
              faults: FaultChoice | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new episode of ``task`` (default: the last one's) on ``seed``, entered in a fresh
        browser profile with one tab per app on its start page; ``faults``: the task's own
        plan (None), a preset's name or fault configs. An unfinished previous episode is
        dropped."""
        if task is None:
            if self.episode is None:
                raise ValueError("reset(task=...): name a task for the first episode")
            task = self.episode.task
        self._close_episode()
        episode = connect(self.gym_url, task, seed, "task" if faults is None else faults,
                          api_key=self.api_key)
        episode.reset()
        return self.enter(episode)

    def enter(self, episode: Env) -> tuple[dict[str, Any], dict[str, Any]]:
        """Enter ``episode``, an SDK environment already reset (e.g. ``workgym bench``'s), as
        :meth:`reset` enters its own: it becomes this environment's episode (an unfinished
        previous one is dropped). :meth:`leave` hands it back unfinished."""
        self._close_episode()
        observation = episode.observation
        if observation is None:
            raise RuntimeError("enter(episode): reset the episode first")
        self.episode = episode
        self._context = self._browser.new_context(
            viewport={"width": self.viewport[0], "height": self.viewport[1]})
        self._context.set_default_timeout(self.timeout_ms)
        open_apps(self._context, observation)
        self._active = 0
        self._finished = False
        self._started = time.monotonic()
        goal = goal_of(observation)
        self._chat = [{"role": "user", "message": goal}]
        info = {"episode_id": observation.episode_id, "task": observation.task,
                "seed": observation.seed, "apps": dict(observation.apps)}
        return self._observe(goal, "", None), info

    def leave(self) -> None:
        """Close the browser profile and forget the episode, unfinished: whoever entered it
        (:meth:`enter`) finishes it."""
        self.episode = None
        self._close_episode()

    @property
    def answer(self) -> str | None:
        """The last message sent to the user (``send_msg_to_user``): the episode's answer."""
        said = [m["message"] for m in self._chat if m["role"] == "assistant"]
        return said[-1] if said else None

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Do one BrowserGym action string; (observation, reward 0, terminated False,
        truncated False, info). A malformed or impossible action is the observation's
        ``last_action_error``, never an exception; RuntimeError before reset or after
        finish."""
        self._require_open()
        error = None
        try:
            done = parse(action, self._actions)
            self._do(done)
        except ActionError as exc:
            error = str(exc)
        except PlaywrightError as exc:  # the page refused it (a hidden element, a dead link)
            error = exc.message.splitlines()[0]
        return self._observe(self._chat[0]["message"], action, error), 0.0, False, False, {
            "action_error": error}

    def finish(self) -> dict[str, Any]:
        """End the episode, its answer the last message sent to the user (if any); its
        reward report."""
        self._require_open()
        assert self.episode is not None
        report = self.episode.finish(answer=self.answer)
        self._finished = True
        return report

    @property
    def observation(self) -> Observation:
        """The episode as the gym created it (its token, apps' URLs, instruction)."""
        if self.episode is None or self.episode.observation is None:
            raise RuntimeError("no episode yet: call reset(task=...) first")
        return self.episode.observation

    def close(self) -> None:
        """Drop an unfinished episode, close the browser (and the gym it started)."""
        self._close_episode()
        self._stack.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_open(self) -> None:
        if self.episode is None or self._context is None:
            raise RuntimeError("no episode yet: call reset(task=...) first")
        if self._finished:
            raise RuntimeError("the episode is finished: call reset() for a new one")

    def _close_episode(self) -> None:
        if self._context is not None:
            self._context.close()
            self._context, self._cdp = None, {}
        if self.episode is not None:
            self.episode.close()
            self.episode = None

    # -- pages --------------------------------------------------------------------------------
    @property
    def pages(self) -> list[Page]:
        assert self._context is not None
        return self._context.pages

    @property
    def page(self) -> Page:
        """The active tab."""
        return self.pages[self._active]

    def _observe(self, goal: str, action: str, error: str | None) -> dict[str, Any]:
        page = self.page
        page.wait_for_load_state()
        axtree.mark(page)
        if id(page) not in self._cdp:
            assert self._context is not None
            self._cdp[id(page)] = self._context.new_cdp_session(page)
        return {
            "goal": goal,
            "chat_messages": [dict(m) for m in self._chat],
            "screenshot": screenshot(page) if self.screenshots else None,
            "axtree_txt": axtree.text(self._cdp[id(page)]),
            "url": page.url,
            "open_pages_urls": [p.url for p in self.pages],
            "open_pages_titles": [p.title() for p in self.pages],
            "active_page_index": self._active,
            "last_action": action,
            "last_action_error": error or "",
            "elapsed_time": time.monotonic() - self._started,
        }

    def element(self, bid: Any) -> Locator:
        """The active page's element of ``bid``; ActionError when there is none."""
        found = self.page.locator(f'[{axtree.BID_ATTRIBUTE}="{bid_of(bid)}"]')
        if found.count() != 1:
            raise ActionError(f"no element with bid {bid!r} on this page")
        return found

    # -- the actions (their parameters are the action strings') ------------------------------
    def _do(self, action: Action) -> None:
        self._actions[action.name](**action.arguments)

    def _click(self, bid: str, button: str = "left") -> None:
        if button not in BUTTONS:
            raise ActionError(f"click(): button must be left, middle or right, not {button!r}")
        self.element(bid).click(button=BUTTONS[button])

    def _fill(self, bid: str, value: str) -> None:
        self.element(bid).fill(text_of(value, "fill(): value"))

    def _select_option(self, bid: str, options: str | list[str]) -> None:
        chosen = [options] if isinstance(options, str) else options
        if not isinstance(chosen, list) or not all(isinstance(o, str) for o in chosen):
            raise ActionError(f"select_option(): options must be a string or a list of them, "
                              f"not {options!r}")
        self.element(bid).select_option(chosen)

    def _press(self, bid: str, key_comb: str) -> None:
        self.element(bid).press(text_of(key_comb, "press(): key_comb"))

    def _goto(self, url: str) -> None:
        self.page.goto(text_of(url, "goto(): url"))

    def _new_tab(self) -> None:
        assert self._context is not None
        self._context.new_page()
        self._active = len(self.pages) - 1

    def _tab_focus(self, index: int) -> None:
        if not isinstance(index, int) or not 0 <= index < len(self.pages):
            raise ActionError(f"tab_focus(): no tab {index!r} (there are {len(self.pages)})")
        self._active = index
        self.page.bring_to_front()

    def _scroll(self, delta_x: float, delta_y: float) -> None:
        if not all(isinstance(d, int | float) for d in (delta_x, delta_y)):
            raise ActionError("scroll(): delta_x and delta_y must be numbers")
        self.page.mouse.wheel(delta_x, delta_y)

    def _send_msg_to_user(self, text: str) -> None:
        said = text_of(text, "send_msg_to_user(): text")
        self._chat.append({"role": "assistant", "message": said})

    def _noop(self, wait_ms: float = 0) -> None:
        if not isinstance(wait_ms, int | float) or wait_ms < 0:
            raise ActionError(f"noop(): wait_ms must be a number >= 0, not {wait_ms!r}")
        if wait_ms:
            self.page.wait_for_timeout(wait_ms)


def screenshot(page: Page, attempts: int = 3) -> NDArray[np.uint8]:
    """The visible part of ``page`` as an H×W×3 RGB array. A loaded machine's Chromium now
    and then fails a capture ("Unable to capture screenshot"): it is tried ``attempts``
    times before the error is raised."""
    for attempt in range(attempts):
        try:
            png = page.screenshot()
            break
        except PlaywrightError:
            if attempt == attempts - 1:
                raise
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
