"""WorkGym's tasks registered with BrowserGym (the ``browsergym`` extra: browsergym-core 0.13.x,
whose playwright range admits ours; 0.14 pins playwright 1.44). BrowserGym's own environment,
observations (its bids, AX tree, screenshot, chat) and action set drive a WorkGym episode::

    import gymnasium as gym
    from workgym.browser import browsergym

    browsergym.register("http://127.0.0.1:8000")  # a `workgym serve`; every task of the catalogue
    env = gym.make("browsergym/workgym.tracker.start-work-on-bug")
    obs, info = env.reset(seed=4)                 # the WorkGym seed
    obs, reward, terminated, truncated, info = env.step("click('42')")
    ...
    env.step('send_msg_to_user("I started progress on SHOP-7 and assigned it to myself.")')
    # terminated: reward is the episode's, info["task_info"] its reward report

Ids: ``browsergym/workgym.<app>.<name>`` (a gymnasium id has one ``/``: the task id's is a
``.``). The task (:class:`WorkGymTask`): ``setup`` creates the episode on the gym and enters
each of its apps in a tab of BrowserGym's browser, on the app's start page (the first app in
BrowserGym's own page), its goal :func:`workgym.browser.env.goal_of`'s; ``validate``, called
by BrowserGym after every action, finishes the episode once the agent has told the user
something (``send_msg_to_user``, or ``report_infeasible``): that message is the episode's
answer, scored like any other (on a task that asks nothing, what it claims must be true).

Chromium: BrowserGym launches its browsers (the task's and its chat's) through one global
Playwright, with no executable; :func:`register` gives it one whose chromium is ours
(:func:`workgym.browser.env.chromium`, Debian's), never a downloaded browser.
"""

from __future__ import annotations

from typing import Any

import browsergym.core  # type: ignore[import-untyped]
import gymnasium
from browsergym.core.registration import register_task  # type: ignore[import-untyped]
from browsergym.core.task import AbstractBrowserTask  # type: ignore[import-untyped]
from playwright.sync_api import BrowserType, Page, Playwright, sync_playwright

from ..sdk import Env, FaultChoice, connect
from ..tasks import catalogue
from .env import chromium, goal_of, open_apps

PREFIX = "workgym."


def env_id(task: str) -> str:
    """The gymnasium id BrowserGym registers ``task`` under."""
    return f"browsergym/{PREFIX}{task.replace('/', '.')}"


class WorkGymTask(AbstractBrowserTask):  # type: ignore[misc]
    """One WorkGym task as a BrowserGym task: an episode of ``task`` on ``seed`` (the one
    BrowserGym's ``reset`` is given) on the gym at ``gym_url``."""

    def __init__(self, seed: int, task: str, gym_url: str, api_key: str | None = None,
                 faults: FaultChoice = "task") -> None:
        super().__init__(seed)
        self.seed, self.task, self.gym_url = seed, task, gym_url
        self.api_key, self.faults = api_key, faults
        self.slow_mo = 0  # server-rendered pages: nothing to wait for between inputs
        self.viewport = {"width": 1280, "height": 900}
        self.episode: Env | None = None
        self.report: dict[str, Any] | None = None

    @classmethod
    def get_task_id(cls) -> str:
        return "workgym"

    def setup(self, page: Page) -> tuple[str, dict[str, Any]]:
        self.episode = connect(self.gym_url, self.task, self.seed, self.faults,
                               api_key=self.api_key)
        observation = self.episode.reset()
        open_apps(page.context, observation, first=page)
        page.bring_to_front()
        return goal_of(observation), {"episode_id": observation.episode_id}

    def validate(self, page: Page, chat_messages: list[dict[str, Any]]
                 ) -> tuple[float, bool, str, dict[str, Any]]:
        if self.report is not None:
            return float(self.report["reward"]), True, "", self.report
        goal = next((i for i, m in enumerate(chat_messages) if m["role"] == "user"), None)
        said = [m["message"] for m in chat_messages[goal + 1 if goal is not None else 0:]
                if m["role"] in ("assistant", "infeasible")]  # the agent's, after the goal
        if not said or self.episode is None:
            return 0.0, False, "", {}
        self.report = self.episode.finish(answer=said[-1])
        return float(self.report["reward"]), True, "", self.report

    def teardown(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


class _DebianChromium:
    """Playwright's chromium, launched from our executable whatever the caller passes."""

    def __init__(self, chromium_type: BrowserType) -> None:
        self._type = chromium_type

    def launch(self, **kwargs: Any) -> Any:
        return self._type.launch(**{**kwargs, "executable_path": str(chromium())})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._type, name)


class _Playwright:
    """A Playwright whose ``chromium`` is :class:`_DebianChromium` (BrowserGym's global)."""

    def __init__(self, playwright: Playwright) -> None:
        self._playwright = playwright
        self.chromium = _DebianChromium(playwright.chromium)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._playwright, name)


def register(gym_url: str, *, api_key: str | None = None, faults: FaultChoice = "task",
             tasks: list[str] | None = None) -> list[str]:
    """Register ``tasks`` (default: the whole catalogue) with BrowserGym, their episodes on
    the gym at ``gym_url`` (``api_key``: its operator key, default as :func:`connect`'s),
    and give BrowserGym a Playwright that launches our Chromium (until :func:`close`); the
    ids registered."""
    if not isinstance(browsergym.core._PLAYWRIGHT, _Playwright):
        browsergym.core._set_global_playwright(_Playwright(sync_playwright().start()))
    ids = []
    for task in tasks if tasks is not None else [t.id for t in catalogue()]:
        gymnasium.registry.pop(env_id(task), None)  # registered again: on this gym
        register_task(env_id(task).removeprefix("browsergym/"), WorkGymTask, task_kwargs={
            "task": task, "gym_url": gym_url, "api_key": api_key, "faults": faults})
        ids.append(env_id(task))
    return ids


def close() -> None:
    """Stop the Playwright :func:`register` gave BrowserGym (its environments closed first):
    another sync Playwright can then start in this thread. :func:`register` starts a new one.
    Playwright's test-id attribute, which BrowserGym's environment sets to its ``bid`` for the
    whole process, is ``data-testid`` again."""
    if isinstance(browsergym.core._PLAYWRIGHT, _Playwright):
        browsergym.core._PLAYWRIGHT.selectors.set_test_id_attribute("data-testid")
        browsergym.core._PLAYWRIGHT.stop()
        browsergym.core._set_global_playwright(None)
