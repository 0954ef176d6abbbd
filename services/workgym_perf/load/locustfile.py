"""Locust users that are agents doing WorkGym episodes (see ``workgym_perf/load/__init__.py``).
From the repository's root (it imports ``workgym_perf.load``):

    python -m locust -f services/workgym_perf/load/locustfile.py --host http://127.0.0.1:8000
        [--headless -u 16 -t 60s] [--steps 3-20] [--think 3-30] [--seeds 0-15]
        [--warmup-s 10] [--held-file held.json]

The operator's API key is found as the SDK finds it (``WORKGYM_API_KEY``, else this machine's
``~/.config/workgym/api-key``). Episodes run with faults "none": what is measured is the
platform, and a failure is one of ours (:func:`workgym_perf.load.recorder.failure`).
"""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import gevent
import httpx
from locust import User, constant, events, task
from locust.env import Environment

from workgym.errors import WorkGymClientError
from workgym.sdk import Env
from workgym_perf.load.agent import SetupError, Workload, take
from workgym_perf.load.recorder import Failed, Recorder

logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would cost locust CPU
TIMEOUT_S = 120.0  # an overloaded server answers late; a late answer is a slow one, not a loss
WORKLOAD: Workload | None = None
ENVIRONMENT: Environment | None = None  # locust's, once initialised


class Held:
    """Episodes the agents hold (created, not yet finished or dropped): now, at most, and on
    average over time since :meth:`restart`."""

    def __init__(self) -> None:
        self.now = self.peak = 0
        self._area = 0.0
        self._since = self._at = time.monotonic()

    def _tick(self) -> None:
        at = time.monotonic()
        self._area += self.now * (at - self._at)
        self._at = at

    def add(self, change: int) -> None:
        self._tick()
        self.now += change
        self.peak = max(self.peak, self.now)

    def restart(self) -> None:
        self._tick()
        self._area, self._since, self.peak = 0.0, self._at, self.now

    def summary(self) -> dict[str, float]:
        self._tick()
        return {"peak": self.peak, "mean": self._area / max(self._at - self._since, 1e-9)}


HELD = Held()


@events.init_command_line_parser.add_listener
def _arguments(parser: Any) -> None:
    parser.add_argument("--steps", default="3-20", help="steps per episode, drawn from LOW-HIGH")
    parser.add_argument("--think", default="0", help="seconds of think time before each step, "
                        "drawn from LOW-HIGH (0: none)")
    parser.add_argument("--seeds", default="0-15", help="seeds episodes are drawn from")
    parser.add_argument("--warmup-s", type=float, default=0.0, help="seconds after every user "
                        "has spawned before the statistics restart (worlds built, connections "
                        "open): not measured")
    parser.add_argument("--held-file", default="", help="write the episodes held (peak, "
                        "mean) as JSON here when the test stops")


@events.init.add_listener
def _discover(environment: Environment, **_: Any) -> None:
    global WORKLOAD, ENVIRONMENT
    ENVIRONMENT = environment
    options = environment.parsed_options
    assert options is not None
    if not environment.host:
        raise SystemExit("workgym load: --host is required (the gym API's URL)")
    try:
        WORKLOAD = Workload.discover(environment.host, steps=options.steps,
                                     think=options.think, seeds=options.seeds)
    except (SetupError, ValueError) as exc:
        raise SystemExit(f"workgym load: {exc}") from exc


@events.spawning_complete.add_listener
def _spawned(**_: Any) -> None:
    """The measured window starts: now (``--reset-stats`` restarts locust's statistics), or
    after the warm-up, when they restart again."""
    HELD.restart()
    assert ENVIRONMENT is not None and ENVIRONMENT.parsed_options is not None
    if ENVIRONMENT.parsed_options.warmup_s > 0:
        gevent.spawn_later(ENVIRONMENT.parsed_options.warmup_s, _measure, ENVIRONMENT)


def _measure(environment: Environment) -> None:
    environment.stats.reset_all()
    HELD.restart()


@events.test_stopping.add_listener
def _stopping(environment: Environment, **_: Any) -> None:
    held = HELD.summary()
    logging.info("episodes held: peak %d, mean %.1f", held["peak"], held["mean"])
    if environment.parsed_options and environment.parsed_options.held_file:
        Path(environment.parsed_options.held_file).write_text(json.dumps(held))


class Agent(User):
    """An agent doing episodes, one after another: create, steps, finish."""

    wait_time = constant(0)  # think time is before each step (--think), never between episodes

    def on_start(self) -> None:
        assert WORKLOAD is not None
        self.workload = WORKLOAD
        self.rng = random.Random()
        self.recorder = Recorder(self.environment.events.request, WORKLOAD.routes)
        client = httpx.Client(base_url=self.host or "", transport=self.recorder,
                              timeout=TIMEOUT_S)
        self.env = Env(client, WORKLOAD.tasks[0].id, faults="none", api_key=WORKLOAD.api_key)
        self.holding = False

    def _hold(self, holding: bool) -> None:
        if holding != self.holding:
            HELD.add(1 if holding else -1)
            self.holding = holding

    def _think(self) -> None:
        gevent.sleep(self.rng.uniform(*self.workload.think))

    @task
    def episode(self) -> None:
        chosen = self.rng.choice(self.workload.tasks)
        failures, started = self.recorder.failures, time.perf_counter()
        error: Exception | None = None
        try:
            self._hold(False)  # reset drops an episode left unfinished
            self.env.task = chosen.id
            self.env.reset(seed=self.rng.choice(self.workload.seeds))
            self._hold(True)
            take(self.env, chosen, self.workload.plan(chosen, self.rng), self._think)
            self.env.finish()
            self._hold(False)
        except (WorkGymClientError, httpx.TransportError) as exc:
            error = exc
        if error is None and self.recorder.failures > failures:
            error = Failed("a request of the episode failed")
        self.environment.events.request.fire(
            request_type="EPISODE", name=chosen.id, response_time=(time.perf_counter() - started)
            * 1e3, response_length=0, exception=error, context={})

    def on_stop(self) -> None:
        try:
            self.env.close()  # drops an unfinished episode
        except (WorkGymClientError, httpx.TransportError) as exc:
            logging.warning("could not drop an episode: %s", exc)  # its DELETE is in the stats
        self._hold(False)
