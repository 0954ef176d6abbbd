"""One locust run at a fixed number of users (a locust process of its own: gevent patches the
process it runs in), and the figures read back from its reports."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workgym_core.internal import APPS_PREFIX

# The folder workgym_perf is in (not in the wheel, nor the editable install): the locust
# process imports the locustfile's package from there.
PACKAGES = str(Path(__file__).resolve().parents[2])
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
EPISODE = "EPISODE"
CREATE, FINISH = "/v1/episodes", "/v1/episodes/{episode_id}/finish"  # their routes' names
PARTS = ("create", "step", "finish")
GENERATOR_BUSY = "CPU usage above"  # locust's warning when its own process is the bottleneck


@dataclass(frozen=True)
class Stage:
    """The figures of one run, from its reports (``<prefix>.json``, ``_failures.csv``)."""

    users: int
    seconds: float
    steps: int
    episodes: int
    failures: int  # failed requests
    failed_episodes: int
    p50_ms: float  # of steps: requests to the apps, through the proxy
    p99_ms: float
    create_p50_ms: float  # POST /v1/episodes
    finish_p50_ms: float  # POST /v1/episodes/{episode_id}/finish
    failed: dict[str, int]  # failed requests by part of the episode: create, step, finish
    held_peak: int
    held_mean: float
    errors: list[str]  # each kind of failure once: "POST /apps/checkout/v1/refunds: 500 ..."
    generator_busy: bool  # locust warned that its own CPU was saturated

    @property
    def steps_per_s(self) -> float:
        """NaN when the stage measured no request (too short to complete one)."""
        return self.steps / self.seconds if self.seconds else math.nan

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / self.seconds if self.seconds else math.nan

    @classmethod
    def read(cls, prefix: Path, users: int) -> Stage:
        entries: list[dict[str, Any]] = json.loads(Path(f"{prefix}.json").read_text())
        measured = [e for e in entries if e["num_requests"]]  # a stat reset leaves empty ones
        parts = {part: [e for e in entries if e["method"] != EPISODE and of(e["name"]) == part]
                 for part in PARTS}
        steps, episodes = parts["step"], [e for e in entries if e["method"] == EPISODE]
        histogram = _histogram(steps)
        held = json.loads(Path(f"{prefix}_held.json").read_text())
        with open(f"{prefix}_failures.csv", newline="") as f:
            errors = [f"{row['Method']} {row['Name']}: {row['Error']}" for row in csv.DictReader(f)]
        return cls(
            users=users,
            seconds=max(e["last_request_timestamp"] for e in measured)
            - min(e["start_time"] for e in measured) if measured else 0.0,
            steps=sum(e["num_requests"] for e in steps),
            episodes=sum(e["num_requests"] for e in episodes),
            failures=sum(e["num_failures"] for e in entries if e["method"] != EPISODE),
            failed_episodes=sum(e["num_failures"] for e in episodes),
            p50_ms=percentile(histogram, 0.50), p99_ms=percentile(histogram, 0.99),
            create_p50_ms=percentile(_histogram(parts["create"]), 0.50),
            finish_p50_ms=percentile(_histogram(parts["finish"]), 0.50),
            failed={part: sum(e["num_failures"] for e in found) for part, found in parts.items()},
            held_peak=int(held["peak"]), held_mean=float(held["mean"]), errors=errors,
            generator_busy=GENERATOR_BUSY in Path(f"{prefix}.log").read_text(errors="replace"),
        )


def of(name: str) -> str | None:
    """The part of an episode a request (by its route's name) is: a step (to an app, through
    the proxy), its creation, its finish, or None (the drop of an unfinished one)."""
    if name.startswith(APPS_PREFIX):
        return "step"
    return {CREATE: "create", FINISH: "finish"}.get(name)


def _histogram(entries: list[dict[str, Any]]) -> dict[int, int]:
    """Locust's response-time histograms of ``entries`` merged (ms -> count)."""
    histogram: dict[int, int] = {}
    for entry in entries:
        for ms, count in entry["response_times"].items():
            histogram[int(float(ms))] = histogram.get(int(float(ms)), 0) + count
    return histogram


def percentile(histogram: dict[int, int], q: float) -> float:
    """The ``q`` quantile of locust's response-time histogram (ms -> count); NaN when empty."""
    total, seen = sum(histogram.values()), 0
    for ms in sorted(histogram):
        seen += histogram[ms]
        if seen >= q * total:
            return float(ms)
    return float("nan")


def run_stage(host: str, prefix: Path, *, users: int, seconds: float, spawn_rate: float,
              steps: str, think: str, seeds: str, warmup_s: float = 0.0) -> Stage:
    """Run the locustfile headless against ``host`` for ``seconds`` after ``users`` have
    spawned and then run ``warmup_s`` more (statistics restart then: the warm-up is not
    measured), writing CSV, HTML and JSON reports and the locust log at ``prefix``."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    run_s = users / spawn_rate + warmup_s + seconds
    command = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--host", host,
        "--users", str(users), "--spawn-rate", str(spawn_rate), "--reset-stats",
        "--warmup-s", str(warmup_s), "--run-time", f"{math.ceil(run_s)}s", "--only-summary",
        "--exit-code-on-error", "0", "--csv", str(prefix), "--html", f"{prefix}.html",
        "--json-file", str(prefix), "--steps", steps, "--think", think, "--seeds", seeds,
        "--held-file", f"{prefix}_held.json",
    ]
    log = Path(f"{prefix}.log")
    with open(log, "wb") as out:
        path = os.pathsep.join(filter(None, (PACKAGES, os.environ.get("PYTHONPATH"))))
        done = subprocess.run(command, env={**os.environ, "PYTHONPATH": path}, stdout=out,
                              stderr=subprocess.STDOUT,
                              timeout=run_s + 300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"locust exited with code {done.returncode}; see {log}:\n"
                           + log.read_text(errors="replace")[-2000:])
    return Stage.read(prefix, users)
