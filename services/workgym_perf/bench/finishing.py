"""`python -m workgym_perf.bench finishing`: scoring against serving.

A ``workgym serve`` of its own (all in one, its scoring as configured: WORKGYM_SCORING_WORKERS,
default the cores). Times other episodes' steps (a read through the proxy) and a finish (the
reference solution's episode) on the quiet server, then the same while FINISHERS agents play
and finish episodes back to back with ACTIVE more episodes live. Prints p50/p99 per phase and
the ratios of the p50s to the quiet ones (goal: within 2x).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from workgym.agents import AGENTS
from workgym.processes import serving
from workgym.sdk import Env, connect
from workgym.tasks import catalogue

from .stats import line
from .steps import reads

TASK = "checkout/refund-returned-order"
FINISHERS = 4  # agents finishing episodes back to back during the busy phase
ACTIVE = 64  # live episodes during the busy phase
STEPS, FINISHES = 300, 30


def _finish_times(env: Env, n: int) -> list[float]:
    """Seconds per ``finish`` of an episode the reference solution played."""
    task = catalogue().get(env.task)
    out = []
    for _ in range(n):
        env.reset()
        AGENTS["reference"](env, task)
        start = time.perf_counter()
        env.finish()
        out.append(time.perf_counter() - start)
    return out


@contextmanager
def _finishing(url: str) -> Iterator[list[float]]:
    """FINISHERS agents finishing episodes back to back for the block; their finish times."""
    stop, done = threading.Event(), []

    def agent(seed: int) -> None:
        with connect(url, TASK, seed=seed) as env:
            while not stop.is_set():
                done.extend(_finish_times(env, 1))

    threads = [threading.Thread(target=agent, args=(seed,)) for seed in range(FINISHERS)]
    for thread in threads:
        thread.start()
    try:
        yield done
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def _ratio(name: str, busy: list[float], quiet: list[float]) -> str:
    ratio = statistics.median(busy) / statistics.median(quiet)
    return f"  {name:<44} {ratio:5.2f} x   (of the quiet p50)"


def bench_finishing(tmp: Path) -> None:
    env_vars = {**os.environ, "WORKGYM_DATA_DIR": str(tmp / "finishing"),
                "WORKGYM_MAX_LIVE_EPISODES": "100000", "WORKGYM_CREATE_RATE_PER_S": "100000",
                "WORKGYM_CREATE_BURST": "100000"}
    with serving(env=env_vars, log=tmp / "finishing.log") as url, \
            connect(url, TASK, seed=10) as stepper, connect(url, TASK, seed=11) as finisher:
        _finish_times(finisher, 3)  # its scoring workers started and warm
        quiet_steps = reads(stepper, STEPS)
        quiet_finish = _finish_times(finisher, FINISHES)
        live = [connect(url, TASK, seed=100 + i) for i in range(ACTIVE)]
        try:
            for env in live:
                env.reset()
            with _finishing(url) as others:
                busy_steps = reads(stepper, STEPS)
                busy_finish = _finish_times(finisher, FINISHES)
        finally:
            for env in live:
                env.close()
    workers = os.environ.get("WORKGYM_SCORING_WORKERS", "default")
    print(f"  (scoring workers: {workers}; {FINISHERS} agents finishing, {ACTIVE} more live; "
          f"{len(others)} finishes by others)")
    print(line("step, quiet", quiet_steps))
    print(line("step, while episodes finish", busy_steps))
    print(_ratio("step while episodes finish", busy_steps, quiet_steps))
    print(line("finish, quiet", quiet_finish))
    print(line(f"finish, {ACTIVE} live + {FINISHERS} finishing", busy_finish))
    print(_ratio(f"finish at {ACTIVE} live", busy_finish, quiet_finish))
