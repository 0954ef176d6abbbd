"""`make bench`, fork: a written episode forked mid-way (``env.fork()``, in-process: the gym
API's ``POST /v1/episodes/{id}/fork``), beside what reaching the same state took without
forks (a new episode and its steps replayed) and the replica's copy alone (where the time
goes). The machine is shared: read the ratios, measured side by side."""

from __future__ import annotations

import statistics
import time

from workgym.local import LocalServer
from workgym.sdk import Env

from .stats import line, sample

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
WRITES = 5  # the episode's steps before the fork: writes (it has a database of its own)
FORKS = 300


def bench_fork(local: LocalServer) -> None:
    env = Env.inprocess(local, TASK, seed=7)
    replay = Env.inprocess(local, TASK, seed=7)

    def prefix(on: Env) -> None:
        ticket = on.call("GET", "/api/v2/tickets", params={"per_page": 1}).json()["tickets"][0]
        for i in range(WRITES):
            on.call("PUT", f"/api/v2/tickets/{ticket['id']}", json={"ticket": {"comment": {
                "body": f"Note {i}.", "public": False}}})

    env.reset()
    prefix(env)
    forks, resets = [], []
    for _ in range(FORKS + 5):  # interleaved with resets, which meet the same load
        start = time.perf_counter()
        fork = env.fork()
        middle = time.perf_counter()
        replay.reset()
        resets.append(time.perf_counter() - middle)
        forks.append(middle - start)
        fork.close()  # untimed: the fork's episode dropped
    forks, resets = forks[5:], resets[5:]
    print(line(f"fork, env.fork() in-process ({WRITES + 1} steps, written)", forks))
    print(line("  env.reset() beside it (a new episode)", resets))

    def again() -> None:
        replay.reset()
        prefix(replay)

    replayed = sample(again, 100)
    print(line(f"  the same state replayed (reset + {WRITES + 1} steps)", replayed))
    for name, other in (("reset", resets), ("replay", replayed)):
        ratio = statistics.median(forks) / statistics.median(other)
        print(f"  {f'  fork / {name} (p50)':<44} {ratio:.2f}")

    store = local.server.replicas["helpdesk"].state.store
    assert env.observation is not None
    source = env.observation.episode_id
    counter = iter(range(10**9))

    def copy() -> None:
        episode_id = f"fork{next(counter)}"
        local.run(store.fork(source, episode_id, ttl_s=60))
        store.delete(episode_id)

    print(line("  of which the replica's copy (EpisodeStore.fork)", sample(copy, FORKS)))
    env.close()
    replay.close()

