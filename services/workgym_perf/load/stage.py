"""One locust run at a fixed number of users (a locust process of its own: gevent patches the
process it runs in), and the figures read back from its reports."""

from __future__ import annotations

import csv
import json
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
    held_peak: int
    held_mean: float
    errors: list[str]  # each kind of failure once: "POST /apps/checkout/v1/refunds: 500 ..."
    generator_busy: bool  # locust warned that its own CPU was saturated

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / self.seconds

    @classmethod
    def read(cls, prefix: Path, users: int) -> Stage:
        entries: list[dict[str, Any]] = json.loads(Path(f"{prefix}.json").read_text())
        steps = [e for e in entries if e["name"].startswith(APPS_PREFIX)]
        episodes = [e for e in entries if e["method"] == EPISODE]
        histogram: dict[int, int] = {}
        for entry in steps:
            for ms, count in entry["response_times"].items():
                histogram[int(float(ms))] = histogram.get(int(float(ms)), 0) + count
        held = json.loads(Path(f"{prefix}_held.json").read_text())
        with open(f"{prefix}_failures.csv", newline="") as f:
            errors = [f"{row['Method']} {row['Name']}: {row['Error']}" for row in csv.DictReader(f)]
        return cls(
            users=users,
            seconds=max(e["last_request_timestamp"] for e in entries)
            - min(e["start_time"] for e in entries) if entries else 0.0,
            steps=sum(e["num_requests"] for e in steps),
            episodes=sum(e["num_requests"] for e in episodes),
            failures=sum(e["num_failures"] for e in entries if e["method"] != EPISODE),
            failed_episodes=sum(e["num_failures"] for e in episodes),
            p50_ms=percentile(histogram, 0.50), p99_ms=percentile(histogram, 0.99),
            held_peak=int(held["peak"]), held_mean=float(held["mean"]), errors=errors,
            generator_busy=GENERATOR_BUSY in Path(f"{prefix}.log").read_text(errors="replace"),
        )


def percentile(histogram: dict[int, int], q: float) -> float:
    """The ``q`` quantile of locust's response-time histogram (ms -> count); NaN when empty."""
    total, seen = sum(histogram.values()), 0
    for ms in sorted(histogram):
        seen += histogram[ms]
        if seen >= q * total:
            return float(ms)
    return float("nan")


def run_stage(host: str, prefix: Path, *, users: int, seconds: float, spawn_rate: float,
              steps: str, think: str, seeds: str) -> Stage:
    """Run the locustfile headless against ``host`` for ``seconds`` after ``users`` have
    spawned (statistics restart then), writing CSV, HTML and JSON reports and the locust log
    at ``prefix``."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--host", host,
        "--users", str(users), "--spawn-rate", str(spawn_rate), "--reset-stats",
        "--run-time", f"{users / spawn_rate + seconds:.0f}s", "--only-summary",
        "--exit-code-on-error", "0", "--csv", str(prefix), "--html", f"{prefix}.html",
        "--json-file", str(prefix), "--steps", steps, "--think", think, "--seeds", seeds,
        "--held-file", f"{prefix}_held.json",
    ]
    log = Path(f"{prefix}.log")
    with open(log, "wb") as out:
        path = os.pathsep.join(filter(None, (PACKAGES, os.environ.get("PYTHONPATH"))))
        done = subprocess.run(command, env={**os.environ, "PYTHONPATH": path}, stdout=out,
                              stderr=subprocess.STDOUT,
                              timeout=users / spawn_rate + seconds + 300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"locust exited with code {done.returncode}; see {log}:\n"
                           + log.read_text(errors="replace")[-2000:])
    return Stage.read(prefix, users)
