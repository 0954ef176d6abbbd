"""Browser agents for ``workgym bench --agent``: an episode the bench created, worked through
its apps' pages in Chromium (:class:`workgym.browser.env.BrowserEnv`), never through its API.

* ``browser-reference``: the task's ``browser:`` script (its reference solution through the
  pages; a task without one is that episode's error).
* ``browser:<module>:<callable>``: a policy of yours, ``callable(obs) -> action | None``:
  BrowserGym's observation in (the env's), one BrowserGym action string out; None when it is
  done. At most the episode's ``max_steps`` actions.

The answer the bench finishes the episode with is the last message the agent sent the user
(``send_msg_to_user``). Each episode gets a browser of its own (Playwright's sync API belongs
to the thread that started it, and the bench's workers are threads); the seconds each browser
step took are kept by episode id (``step_seconds``), for the bench's record.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable
from typing import Any

from workgym_core.errors import ConfigError

from ..sdk import Env
from ..tasks import Task
from .env import BrowserEnv
from .script import run_browser_script

REFERENCE = "browser-reference"
KIND = "browser"
Policy = Callable[[dict[str, Any]], "str | None"]
_POLICY = re.compile(r"^browser:(?P<module>[A-Za-z_][\w.]*):(?P<name>[A-Za-z_]\w*)$")


def is_browser(spec: str) -> bool:
    """Whether ``spec`` names a browser agent (well formed or not)."""
    return spec == REFERENCE or spec.startswith(f"{KIND}:")


def check(spec: str) -> str:
    """``spec`` if it is a well-formed browser agent's name, else ValueError."""
    if spec == REFERENCE or _POLICY.match(spec):
        return spec
    raise ValueError(f"invalid browser agent {spec!r}: {REFERENCE} or "
                     f"{KIND}:<module>:<callable> (callable(obs) -> action string | None)")


def policy(spec: str) -> Policy:
    """The callable ``browser:<module>:<callable>`` names (imported); ConfigError when there
    is no such module or callable."""
    found = _POLICY.match(check(spec))
    assert found is not None
    try:
        module = importlib.import_module(found["module"])
    except ModuleNotFoundError as exc:
        raise ConfigError(f"{spec}: no module {exc.name!r} to import") from None
    named = getattr(module, found["name"], None)
    if not callable(named):
        raise ConfigError(f"{spec}: {found['module']} has no callable {found['name']!r}")
    return named  # type: ignore[no-any-return]


class _Timed(BrowserEnv):
    """A BrowserEnv that keeps the seconds each step took."""

    def __init__(self, gym_url: str) -> None:
        super().__init__(gym_url)
        self.seconds: list[float] = []

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        started = time.perf_counter()
        try:
            return super().step(action)
        finally:
            self.seconds.append(round(time.perf_counter() - started, 4))


class BrowserAgent:
    """A browser agent (see the module): ``policy`` None is the task's ``browser:`` script.
    ``gym_url``: the served gym the episodes are on (the bench sets it)."""

    serves_pages = True  # its episodes must be on a served gym: a browser reaches them over HTTP

    def __init__(self, spec: str, policy: Policy | None = None) -> None:
        self.spec = spec
        self.policy = policy
        self.gym_url: str | None = None
        self.step_seconds: dict[str, list[float]] = {}

    def __call__(self, env: Env, task: Task) -> str | None:
        if self.gym_url is None:
            raise RuntimeError(f"{self.spec}: no served gym (set gym_url)")
        if self.policy is None and task.browser is None:
            raise ValueError(f"task {task.id} has no browser: solution")
        assert env.observation is not None
        browser = _Timed(self.gym_url)
        with browser:
            try:
                obs, _ = browser.enter(env)
                if self.policy is None:
                    assert task.browser is not None
                    run_browser_script(browser, task.browser)
                else:
                    for _ in range(env.observation.max_steps):
                        action = self.policy(obs)
                        if action is None:
                            break
                        obs = browser.step(action)[0]
                return browser.answer
            finally:
                self.step_seconds[env.observation.episode_id] = browser.seconds
                browser.leave()


def resolve(spec: str) -> BrowserAgent:
    """The browser agent ``spec`` names."""
    return BrowserAgent(check(spec), None if spec == REFERENCE else policy(spec))
