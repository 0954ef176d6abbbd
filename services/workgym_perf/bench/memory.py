"""`make bench`, live episodes: what an idle one costs, and whether 100,000 of them slow the
active ones; then, the idle ones still held (nothing freed yet for the measure to reuse), what
a written one costs (``written.py``).

An idle episode costs its replica instance an :class:`Episode` (no database until it writes)
and Redis its record. Measured apart, in one in-process server: the replica's share from
100,000 episodes created in its store (as the gym API would, minus the HTTP), Redis's from
``REDIS_EPISODES`` created through the gym API (``used_memory``), and the in-process step
before and after the 100,000 are there.
"""

from __future__ import annotations

import gc
import statistics
from typing import Any

from replicas.runtime.memory import resident_mb
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

from .stats import Refused
from .steps import reads
from .written import bench_written_episodes

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
IDLE = 100_000
REDIS_EPISODES = 5_000


def _redis_used(local: LocalServer) -> int:
    registry = local.server.registry
    assert registry is not None
    async def info() -> dict[str, Any]:
        return await registry.redis.info("memory")

    return int(local.run(info())["used_memory"])


def bench_live_episodes(local: LocalServer) -> None:
    try:
        _live_episodes(local)
    except Refused as exc:
        print(f"  {'live episodes':<44} NO FIGURE: {exc}")


def _live_episodes(local: LocalServer) -> None:
    task = catalogue().get(TASK)
    store = local.server.replicas["helpdesk"].state.store
    env = Env.inprocess(local, TASK, seed=7)
    before_steps = reads(env, 1000)

    # Redis: episodes through the gym API, left idle.
    operator = {"authorization": f"Bearer {local.server.settings.api_key}"}
    used = _redis_used(local)
    idle = [local.request("POST", "/v1/episodes", headers=operator, json={
        "task": TASK, "seed": 7}).json()["id"] for _ in range(REDIS_EPISODES)]
    redis_kb = (_redis_used(local) - used) / REDIS_EPISODES / 1024

    # The replica: episodes in its store, as the gym API makes them.
    gc.collect()
    rss = resident_mb()
    for i in range(IDLE):
        store.create(f"idle{i}", seed=7, setup=task.setup_of("helpdesk"),
                     script=task.actors_of("helpdesk"), ttl_s=3600)
    gc.collect()
    replica_kb = (resident_mb() - rss) / IDLE * 1024
    after_steps = reads(env, 1000)

    per_mb = (replica_kb + redis_kb) / 1024
    print(f"  {'memory per idle live episode':<44} {per_mb:8.3f} MB   (replica {replica_kb:.1f} "
          f"KB + Redis {redis_kb:.1f} KB; {1024 / per_mb:,.0f} per GiB)")
    bench_written_episodes(local)
    for i in range(IDLE):
        store.delete(f"idle{i}")
    for episode_id in idle:
        local.request("DELETE", f"/v1/episodes/{episode_id}", headers=operator)
    # The step without idle episodes: before them and after they are gone (drift on a shared
    # machine hits both sides alike).
    without = statistics.median(before_steps + reads(env, 1000))
    with_idle = statistics.median(after_steps)
    print(f"  {f'in-process step with {IDLE:,} idle episodes':<44} p50 {with_idle * 1e3:8.3f} ms"
          f"   = {with_idle / without:.2f}x the step without them (p50 {without * 1e3:.3f} ms;"
          " target: no slowdown)")
    env.close()
