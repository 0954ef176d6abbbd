"""`make bench`: WorkGym's performance figures, measured in one run and printed
(`python -m tests.bench stall`: only the stall figure, tests/bench/stall.py).

Figures are medians and tails over many samples; the machines are shared and
noisy, so read ratios within one run, not absolute numbers across runs.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from replicas.catalog import specs
from replicas.runtime.store import EpisodeStore
from workgym.agents import AGENTS
from workgym.local import LocalServer
from workgym.processes import serving
from workgym.sdk import Env, connect
from workgym.tasks import Task, catalogue
from workgym_core.settings import Settings

from .boot import bench_boot
from .memory import bench_live_episodes, reads
from .proxy import bench_proxy
from .stall import bench_stall
from .stats import line, sample, step_line
from .tracing import bench_tracing
from .tracker import bench_tracker_endpoints

# One task of each app (of that app alone): reset, steps and scoring are measured for each,
# side by side.
TASKS = ("helpdesk/stale-contact-update", "checkout/refund-returned-order",
         "tracker/start-work-on-bug")


def _create(store: EpisodeStore, task: Task, episode_id: str, ttl_s: float) -> None:
    """One episode of the (one-app) task straight in the replica's store."""
    app = task.apps[0]
    store.create(episode_id, seed=7, setup=task.setup_of(app), script=task.actors_of(app),
                 ttl_s=ttl_s)


def bench_reset(settings: Settings, task_id: str) -> None:
    task = catalogue().get(task_id)
    store = EpisodeStore(specs()[task.apps[0]], settings)
    _create(store, task, "warm", 60)
    counter = iter(range(10**9))

    def reset() -> None:  # an episode replaced by a fresh one, as a rollout loop does
        episode_id = f"e{next(counter)}"
        _create(store, task, episode_id, 60)
        store.delete(episode_id)

    times = sample(reset, 2000)
    size = len(store.get("warm").initial) / 2**20
    print(line(f"{task.apps[0]}: reset in the replica ({size:.1f} MB world)", times,
               "target p50 <= 1 ms"))


def bench_in_process(local: LocalServer, task_id: str) -> None:
    task = catalogue().get(task_id)
    app = task.apps[0]
    env = Env.inprocess(local, task_id, seed=7)

    resets, finishes = [], []
    for _ in range(200):  # the RL loop: reset, (act), finish
        start = time.perf_counter()
        env.reset()
        middle = time.perf_counter()
        env.finish()
        resets.append(middle - start)
        finishes.append(time.perf_counter() - middle)
    print(line(f"{app}: env.reset() in-process (the gym API)", resets, "target p50 <= 1 ms"))
    print(line(f"{app}: env.finish() in-process, no steps", finishes))
    print(step_line(f"{app}: in-process step (GET through proxy)", lambda: reads(env, 2000),
                    "target p50 <= 0.5 ms"))

    def episode() -> None:
        env.reset()
        AGENTS["reference"](env, task)
        env.finish()

    print(line(f"{app}: whole episode in-process ({task.reference_steps} steps + score)",
               sample(episode, 50, warmup=2)))


def bench_scoring(local: LocalServer, task_id: str) -> None:
    task = catalogue().get(task_id)
    app = task.apps[0]
    env = Env.inprocess(local, task_id, seed=7)
    env.reset()
    AGENTS["reference"](env, task)
    obs = env.observation
    assert obs is not None
    server = local.server
    store = server.replicas[app].state.store
    episode = store.get(obs.episode_id)
    registry = server.registry
    assert registry is not None
    trajectory = local.run(registry.trajectory(obs.episode_id))
    record = local.run(registry.get(obs.episode_id))
    final = episode.state()

    def run() -> None:
        task.score({app: (episode.initial, final)}, trajectory, None, record.vars)

    print(line(f"{app}: scoring one episode (diff, assertions, hash)", sample(run, 300),
               "target p50 <= 10 ms"))
    env.close()


def bench_http_create(data_dir: Path) -> None:
    with serving(env={**os.environ, "WORKGYM_DATA_DIR": str(data_dir)}) as url, \
            connect(url, TASKS[0], seed=7) as env:
        print(line("episode creation over HTTP (POST /v1/episodes)", sample(env.reset, 200)))
        print(step_line("HTTP step through the proxy, one client", lambda: reads(env, 1000),
                        "target p50 <= 1.0 ms"))


def main() -> int:
    if sys.argv[1:] == ["stall"]:  # `python -m tests.bench stall`: that figure alone
        bench_stall()
        return 0
    print(f"WorkGym benchmarks ({os.cpu_count()} cores; one process; medians of many samples)")
    with tempfile.TemporaryDirectory() as tmp:
        # The per-key quotas out of the way: the memory figure holds thousands of episodes.
        settings = Settings(data_dir=Path(tmp), max_live_episodes=10**6,
                            create_rate_per_s=10**6, create_burst=10**6)
        local = LocalServer(settings)
        try:
            bench_live_episodes(local)  # first: later ones leave freed memory malloc would reuse
            for task_id in TASKS:
                bench_in_process(local, task_id)
                bench_scoring(local, task_id)
            bench_tracker_endpoints(local)
        finally:
            local.close()
        for task_id in TASKS:
            bench_reset(settings, task_id)
        bench_http_create(Path(tmp))
        bench_proxy(Path(tmp))
        bench_boot(Path(tmp))
    bench_tracing()
    bench_stall()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak RSS of the benchmark process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
