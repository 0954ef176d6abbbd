"""`make bench`, browser: episodes driven through the apps' pages (``workgym.browser``, Debian's
headless Chromium against a ``workgym serve`` of its own): a step (one BrowserGym action, its
page loads through the proxy, and the observation: bids, AX tree, screenshot), a reset (the
episode and its tabs) and each task's whole ``browser:`` solution, on several seeds."""

from __future__ import annotations

import time
from typing import Any

from workgym.browser import BrowserEnv
from workgym.browser.script import solve
from workgym.sdk import FaultChoice
from workgym.tasks import catalogue

from .stats import line

SEEDS = range(5)


class TimedEnv(BrowserEnv):
    """A BrowserEnv that keeps how long each reset and step took."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[float] = []
        self.resets: list[float] = []

    def reset(self, task: str | None = None, seed: int = 0, faults: FaultChoice | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        start = time.perf_counter()
        found = super().reset(task, seed, faults)
        self.resets.append(time.perf_counter() - start)
        return found

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        start = time.perf_counter()
        found = super().step(action)
        self.steps.append(time.perf_counter() - start)
        return found


def bench_browser() -> None:
    tasks = [task for task in catalogue() if task.browser is not None]
    with TimedEnv() as env:
        for task in tasks:
            actions = len(env.steps)
            episodes = []
            for seed in SEEDS:
                start = time.perf_counter()
                solve(env, task, seed)
                episodes.append(time.perf_counter() - start)
            each = (len(env.steps) - actions) // len(SEEDS)
            print(line(f"browser: {task.id} ({each} actions)", episodes))
        print(line("browser: reset (episode, one tab per app)", env.resets))
        print(line("browser: step (action, page loads, observation)", env.steps))
