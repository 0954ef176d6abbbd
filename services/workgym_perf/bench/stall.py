"""`python -m workgym_perf.bench stall`: one episode's worst requests against the others' steps.

A ``workgym serve`` of its own (all in one process, as ``make demo`` runs it). This process
times other episodes' steps (a helpdesk read through the proxy, over loopback HTTP) on the quiet
server, then the same while attacker processes, each an agent with one episode's token, send
the costliest requests that episode may, back to back, for the whole phase (past its 60 steps
the proxy refuses them; a 429, its CPU share spent, and those refusals are not counted):

* a tracker episode: the JQL of the most terms (``WORKGYM_MAX_QUERY_TERMS``), each an OR'ed
  ``text ~`` over every issue's summary, description and comments;
* a helpdesk episode: the search of the most free words, each a text search of every ticket
  and comment;

and then while the operator creates episodes on seeds never seen (each builds new worlds).
Prints p50/p99 per phase and the ratio of the p99s to the quiet one (goal: within 2x)."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import httpx

from workgym.processes import serving

from .stats import line, pct, sample_steps

HELPDESK = "helpdesk/stale-contact-update"
TRACKER = "tracker/start-work-on-bug"
N = 1000  # timed steps per phase
PER_EPISODE = 40  # steps of one episode before a fresh one (the tasks allow more)
MAX_QUERY_TERMS = 50  # the server's default WORKGYM_MAX_QUERY_TERMS
QUOTAS = {"WORKGYM_MAX_LIVE_EPISODES": "1000000", "WORKGYM_CREATE_RATE_PER_S": "1000000",
          "WORKGYM_CREATE_BURST": "1000000"}


class _Agent:
    """Requests of a task's episodes over HTTP, a fresh episode before the step budget runs
    out (its creation untimed)."""

    def __init__(self, url: str, api_key: str, task: str, seed: int = 1) -> None:
        self.client = httpx.Client(base_url=url, timeout=120, trust_env=False)
        self.api_key, self.task, self.seed = api_key, task, seed
        self.episode: dict[str, Any] = {}

    def fresh(self) -> None:
        self.episode = create(self.client, self.api_key, self.task, self.seed)

    def get(self, app: str, path: str, params: dict[str, Any]) -> int:
        return self.client.get(
            self.episode["apps"][app] + path, params=params,
            headers={"authorization": f"Bearer {self.episode['token']}"}).status_code


def create(client: httpx.Client, api_key: str, task: str, seed: int) -> dict[str, Any]:
    made = client.post("/v1/episodes", json={"task": task, "seed": seed, "faults": "none"},
                       headers={"authorization": f"Bearer {api_key}"})
    assert made.status_code == 201, made.text
    return dict(made.json())


def _attacker(url: str, api_key: str, kind: str, stop: Event,
              served: Synchronized[int]) -> None:
    """One attacker process: ``kind``'s worst request, back to back, until ``stop``. At the
    lowest CPU priority: an agent's client runs on its own machine, not on the server's
    cores (it still sends its next request the moment the last is answered)."""
    os.nice(19)
    jql = " OR ".join(f"text ~ w{i}" for i in range(MAX_QUERY_TERMS))
    words = " ".join(f"w{i}" for i in range(MAX_QUERY_TERMS))
    agent = _Agent(url, api_key, TRACKER if kind == "jql" else HELPDESK)
    seeds = iter(range(900_000 + 1000 * os.getpid() % 10**6, 10**9))
    if kind != "new worlds":
        agent.fresh()
    while not stop.is_set():
        if kind == "new worlds":
            create(agent.client, api_key, TRACKER, next(seeds))
            status = 200
        else:
            if kind == "jql":
                status = agent.get("tracker", "/rest/api/3/search/jql", {"jql": jql})
            else:
                status = agent.get("helpdesk", "/api/v2/search", {"query": words})
        if status == 200:  # not a 429 (the episode's CPU share spent) or a 503 (its budget)
            with served.get_lock():
                served.value += 1


@contextmanager
def _attack(url: str, api_key: str, kinds: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    spawn = multiprocessing.get_context("spawn")
    stop = spawn.Event()
    served = {kind: spawn.Value("i", 0) for kind in kinds}
    processes = [spawn.Process(target=_attacker, args=(url, api_key, kind, stop, served[kind]))
                 for kind in kinds]
    for process in processes:
        process.start()
    counts: dict[str, Any] = {}
    try:
        yield counts
    finally:
        stop.set()
        for process in processes:
            process.join(timeout=180)
            if process.is_alive():
                process.kill()
        counts.update({kind: value.value for kind, value in served.items()})


def bench_stall() -> None:
    print("One episode's worst requests vs other episodes' steps (workgym serve, loopback; "
          "attackers in processes of their own)")
    api_key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, **QUOTAS, "WORKGYM_API_KEY": api_key,
               "WORKGYM_DATA_DIR": str(Path(tmp) / "data"),
               "WORKGYM_CONFIG_DIR": str(Path(tmp) / "config")}
        with serving(env=env, log=Path(tmp) / "server.log") as url:
            other = _Agent(url, api_key, HELPDESK)
            for task in (TRACKER, HELPDESK):  # the attackers' own worlds: built before timing
                create(other.client, api_key, task, 1)

            def step() -> int:
                return other.get("helpdesk", "/api/v2/groups", {})

            def timed() -> list[float]:
                return sample_steps(step, N, PER_EPISODE, other.fresh)

            quiet = timed()
            with _attack(url, api_key, ("jql", "search")) as queries:
                loaded = timed()
            with _attack(url, api_key, ("new worlds",)) as worlds:
                building = timed()
    print(line("other episodes' step, quiet server", quiet))
    print(line("the same while the worst queries run", loaded))
    print(f"    worst queries answered 200 meanwhile: {queries}")
    print(line("the same while new seeds' worlds are built", building))
    print(f"    episodes created on new seeds meanwhile: {worlds['new worlds']}")
    for name, values in (("worst queries", loaded), ("new worlds", building)):
        print(f"  p99 ratio {name}/quiet: {pct(values, 0.99) / pct(quiet, 0.99):.2f}  "
              "(goal <= 2)")
