"""Running a bench: the planned episodes (task × seed × trial) on a few worker threads.

Each worker runs whole episodes (reset, the agent, finish) and hands a record to the
calling thread, the only one that writes the results file and draws the progress. Workers
are daemon threads: on Ctrl-C the caller returns at once and the episodes still running
are lost, never half-recorded. An episode whose agent (or environment) raises is recorded
as failed, with the error, and the run goes on; one the gym could not score is recorded with
its report's ``infra_error`` (the gym's failure, not the agent's).
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..sdk import Env
from ..tasks import Task

OpenEnv = Callable[[str, int], Env]  # (task id, seed) -> a new environment
Agent = Callable[[Env, Task], "str | None"]


@dataclass(frozen=True)
class Planned:
    task: Task
    seed: int
    trial: int


def plan(tasks: Sequence[Task], seeds: Sequence[int], trials: int,
         done: Iterable[tuple[str, int, int]] = ()) -> list[Planned]:
    """Every (task, seed, trial) not already ``done``, trials outermost: a run cut short
    has the first trial of every problem before any second one."""
    skip = set(done)
    return [Planned(task, seed, trial)
            for trial, task, seed in itertools.product(range(trials), tasks, seeds)
            if (task.id, seed, trial) not in skip]


def _faults(met: list[dict[str, Any]]) -> dict[str, Any]:
    return {"injected": len(met), "recovered": sum(f.get("recovered") is True for f in met),
            "met": [{"kind": f["kind"], "step": f["step"], "recovered": f.get("recovered")}
                    for f in met]}


def run_episode(open_env: OpenEnv, agent: Agent, planned: Planned) -> dict[str, Any]:
    """One episode's record; never raises for the agent's or the environment's errors."""
    record: dict[str, Any] = {
        "task": planned.task.id, "seed": planned.seed, "trial": planned.trial,
        "reward": 0.0, "success": False, "harm": False, "signals": {}, "steps": None,
        "faults": _faults([]), "duration_s": 0.0, "episode_id": None, "episode_page": None,
        "tokens": None, "error": None, "infra_error": None, "final_state_hash": None,
    }
    started = time.perf_counter()
    try:
        with open_env(planned.task.id, planned.seed) as env:
            record["episode_id"] = env.reset().episode_id
            report = env.finish(answer=agent(env, planned.task))
        record.update(
            reward=float(report["reward"]), success=bool(report["success"]),
            harm=bool(report.get("harm")), signals=report["signals"], steps=report["steps"],
            faults=_faults(report.get("faults") or []),
            episode_page=report.get("episode_page"), infra_error=report.get("infra_error"),
            final_state_hash=report.get("final_state_hash"))
    except Exception as exc:  # the agent's crash is this episode's failure, not the run's
        record["error"] = f"{type(exc).__name__}: {exc}"
        record["traceback"] = "".join(traceback.format_exception(exc)[-8:])
    record["duration_s"] = round(time.perf_counter() - started, 4)
    usage = getattr(agent, "usage", None)  # a model's agent: tokens per episode id
    if usage is not None and record["episode_id"] is not None:
        record["tokens"] = usage.pop(record["episode_id"], None)
    return record


def run(planned: Sequence[Planned], open_env: OpenEnv, agent: Agent, concurrency: int,
        record: Callable[[list[dict[str, Any]]], None],
        tick: Callable[[], None] = lambda: None) -> None:
    """Run ``planned`` on ``concurrency`` threads; ``record`` gets finished episodes (in
    batches, as they come) on the calling thread, ``tick`` is called there every half
    second without one. KeyboardInterrupt leaves the workers running as daemons, their
    episodes unrecorded."""
    todo: queue.SimpleQueue[Planned] = queue.SimpleQueue()
    for p in planned:
        todo.put(p)
    finished: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                p = todo.get_nowait()
            except queue.Empty:
                return
            finished.put(run_episode(open_env, agent, p))

    workers = [threading.Thread(target=work, name=f"bench-{i}", daemon=True)
               for i in range(max(1, min(concurrency, len(planned))))]
    for w in workers:
        w.start()
    try:
        remaining = len(planned)
        while remaining:
            try:
                batch = [finished.get(timeout=0.5)]
            except queue.Empty:
                tick()
                continue
            while True:
                try:
                    batch.append(finished.get_nowait())
                except queue.Empty:
                    break
            remaining -= len(batch)
            record(batch)
    finally:
        stop.set()
