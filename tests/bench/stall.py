"""`python -m tests.bench stall`: one episode's worst requests against the others' steps.

Other episodes' step latency (a helpdesk read through the proxy, in-process) on a quiet server,
then the same while, at once, one tracker episode sends the costliest JQL it may (the most
terms, each an OR'ed ``text ~`` over every issue's summary, description and comments), one
helpdesk episode the costliest search (the most free words, each a text search of every
ticket and comment), and new seeds' worlds are built (episodes created on seeds never seen).
Prints both p50/p99 and the ratio of the p99s (goal: within 2x)."""

from __future__ import annotations

import itertools
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workgym.local import LocalServer
from workgym_core.settings import Settings

from .stats import line, pct, sample

HELPDESK = "helpdesk/stale-contact-update"
TRACKER = "tracker/start-work-on-bug"
N = 400  # timed steps per phase
PER_EPISODE = 40  # steps of one episode before a fresh one (untimed; the tasks allow more)


class _Episodes:
    """Requests of a task's episodes, a fresh episode before the step budget runs out."""

    def __init__(self, local: LocalServer, task: str, seed: int = 1) -> None:
        self.local, self.task, self.seed, self.used = local, task, seed, PER_EPISODE
        self.episode: dict[str, Any] = {}

    def call(self, app: str, path: str, params: dict[str, Any]) -> int:
        if self.used >= PER_EPISODE:
            self.episode, self.used = create(self.local, self.task, self.seed), 0
        self.used += 1
        return self.local.request(
            "GET", self.episode["apps"][app] + path, params=params,
            headers={"authorization": f"Bearer {self.episode['token']}"}).status_code


def create(local: LocalServer, task: str, seed: int) -> dict[str, Any]:
    made = local.request("POST", "/v1/episodes", json={"task": task, "seed": seed,
                                                       "faults": "none"},
                         headers={"authorization": f"Bearer {local.server.settings.api_key}"})
    assert made.status_code == 201, made.text
    return dict(made.json())


@contextmanager
def _attack(local: LocalServer) -> Iterator[dict[str, int]]:
    """The worst requests, sent in a loop by three threads until the body is done."""
    most = local.server.settings.max_query_terms
    jql = " OR ".join(f"text ~ w{i}" for i in range(most))
    words = " ".join(f"w{i}" for i in range(most))
    tracker, helpdesk = _Episodes(local, TRACKER), _Episodes(local, HELPDESK)
    seeds = itertools.count(900_000)
    stop, counts = threading.Event(), {"jql": 0, "search": 0, "new worlds": 0}

    def loop(name: str, fn: Callable[[], object]) -> None:
        while not stop.is_set():
            fn()
            counts[name] += 1

    threads = [threading.Thread(target=loop, args=args) for args in (
        ("jql", lambda: tracker.call("tracker", "/rest/api/3/search/jql", {"jql": jql})),
        ("search", lambda: helpdesk.call("helpdesk", "/api/v2/search", {"query": words})),
        ("new worlds", lambda: create(local, TRACKER, next(seeds))),
    )]
    for thread in threads:
        thread.start()
    try:
        yield counts
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def bench_stall() -> None:
    print("One episode's worst requests vs other episodes' steps (in-process server)")
    with tempfile.TemporaryDirectory() as tmp:
        local = LocalServer(Settings(data_dir=Path(tmp), max_live_episodes=10**6,
                                     create_rate_per_s=10**6, create_burst=10**6))
        try:
            other = _Episodes(local, HELPDESK)
            create(local, TRACKER, 1)  # the attackers' own worlds: built before timing

            def step() -> None:
                assert other.call("helpdesk", "/api/v2/groups", {}) == 200

            quiet = sample(step, N)
            with _attack(local) as counts:
                loaded = sample(step, N)
        finally:
            local.close()
    print(line("other episodes' step, quiet server", quiet))
    print(line("the same while the worst requests run", loaded))
    print(f"  worst requests served meanwhile: {counts}")
    print(f"  p99 ratio loaded/quiet: {pct(loaded, 0.99) / pct(quiet, 0.99):.2f}  "
          "(goal <= 2)")
