"""Running a bench: the planned episodes (problem × trial; a problem is a task at a seed under
a fault plan) on a few worker threads.

Each worker runs whole episodes (reset, the agent, finish) and hands a record to the
calling thread, the only one that writes the results file and draws the progress. Workers
are daemon threads: on Ctrl-C the caller returns at once and the episodes still running
are lost, never half-recorded.

An episode whose agent raises (its own crash, a model's output it cannot use) is recorded as
failed, with the ``error``, and the run goes on. A failure of the infrastructure is never
the agent's: the gym unreachable or answering 5xx, the API key refused, the episode lost,
the model's endpoint unreachable or failing after its client's retries, or the gym unable
to score the episode (its report's ``infra_error``). Such an episode is recorded with an
``infra_error``, ``"<what failed>: <detail>"`` (what failed: a short phrase the summary
counts by), and scored nowhere. Starting an episode is retried with backoff
(``RETRY_PAUSES``): a new episode is a fresh one, so nothing is replayed. An episode that
fails once its agent has begun is not run again here: it is recorded as an infra failure,
and ``--resume`` runs it again from scratch.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import httpx

from ..errors import Refused
from ..export import Episode, transcript
from ..sdk import Env
from ..tasks import Task
from ..tools import FINISH_TOOL
from .diagnosis import failures
from .health import tool_calls

OpenEnv = Callable[[str, int, str], Env]  # (task id, seed, fault plan) -> a new environment
Agent = Callable[[Env, Task], "str | None"]
# Seconds to wait before each new attempt at starting an episode after an infra failure.
RETRY_PAUSES = (1.0, 4.0, 15.0)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from (or while handling)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def infra_failure(exc: BaseException) -> str | None:
    """What infrastructure ``exc`` says failed (a short phrase), or None when it is the
    agent's own error. A model endpoint's error names itself (``infra``, see
    :class:`workgym.agents.openai_agent.ModelEndpointError`)."""
    for cause in _causes(exc):
        if named := getattr(cause, "infra", None):
            return str(named)
        if isinstance(cause, Refused):
            if cause.status_code in (401, 403):
                return "gym refused the API key"
            if cause.error.get("code") == "episode_lost":
                return "episode lost"
            if cause.status_code == 429 or cause.status_code >= 500:
                return f"gym HTTP {cause.status_code}"
            return None
        if isinstance(cause, httpx.TransportError):
            return "gym unreachable"
    return None


@dataclass(frozen=True)
class Problem:
    """A task at a seed, under a fault plan (``task``: its own; or a preset's name)."""

    task: Task
    seed: int
    faults: str = "task"


@dataclass(frozen=True)
class Planned:
    task: Task
    seed: int
    trial: int
    faults: str = "task"


def product(tasks: Sequence[Task], seeds: Sequence[int], faults: str = "task") -> list[Problem]:
    """Every task at every seed, under one fault plan, task by task."""
    return [Problem(task, seed, faults) for task, seed in itertools.product(tasks, seeds)]


def plan(problems: Sequence[Problem], trials: int,
         done: Iterable[tuple[str, int, int]] = ()) -> list[Planned]:
    """Every (problem, trial) not already ``done`` (keyed by task id, seed, trial), trials
    outermost: a run cut short has the first trial of every problem before any second one."""
    skip = set(done)
    return [Planned(p.task, p.seed, trial, p.faults)
            for trial, p in itertools.product(range(trials), problems)
            if (p.task.id, p.seed, trial) not in skip]


def _faults(met: list[dict[str, Any]]) -> dict[str, Any]:
    return {"injected": len(met), "recovered": sum(f.get("recovered") is True for f in met),
            "met": [{"kind": f["kind"], "step": f["step"], "recovered": f.get("recovered")}
                    for f in met]}


def _start(open_env: OpenEnv, planned: Planned, pauses: Sequence[float]) -> Env:
    """A new environment of ``planned``, reset: after an infra failure, a new attempt after
    each of ``pauses`` (seconds), then the failure is raised."""
    for attempt in itertools.count():
        env = open_env(planned.task.id, planned.seed, planned.faults)
        try:
            env.reset()
            return env
        except Exception as exc:
            env.close()
            if attempt >= len(pauses) or infra_failure(exc) is None:
                raise
            time.sleep(pauses[attempt])
    raise AssertionError("unreachable")


def trajectory(env: Env, task: Task, report: dict[str, Any],
               messages: list[dict[str, Any]] | None,
               steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The episode as training data, a record of ``workgym export --format jsonl`` without
    its metadata (the bench's record is that): ``{"messages", "tools"}``. ``messages``: the
    model's own conversation when its agent kept it, else the conversation the gym's
    recorded ``steps`` make (:func:`workgym.export.transcript`: one tool call per step)."""
    obs = env.observation
    assert obs is not None
    if messages is not None:
        return {"messages": messages, "tools": [*obs.tools, FINISH_TOOL]}
    tools = {app: env._catalogue(app) for app in obs.apps}
    return {"messages": transcript(Episode(steps=steps, report=report), task, tools),
            "tools": obs.tools}


def _at_trial(agent: Agent, trial: int) -> Agent:
    """The agent for one trial: one that draws by the trial (``for_trial``, as
    :class:`workgym.agents.flaky.Flaky`) is given it; others are themselves."""
    for_trial = getattr(agent, "for_trial", None)
    return agent if for_trial is None else cast(Agent, for_trial(trial))


def run_episode(open_env: OpenEnv, agent: Agent, planned: Planned, *,
                trajectories: bool = False,
                pauses: Sequence[float] = RETRY_PAUSES) -> dict[str, Any]:
    """One episode's record (its ``trajectory`` too when asked); never raises for the
    agent's, the environment's or the infrastructure's errors."""
    record: dict[str, Any] = {
        "task": planned.task.id, "seed": planned.seed, "trial": planned.trial,
        "reward": 0.0, "success": False, "harm": False, "signals": {}, "steps": None,
        "faults": _faults([]), "duration_s": 0.0, "episode_id": None, "episode_page": None,
        "tokens": None, "error": None, "infra_error": None, "final_state_hash": None,
        "step_s": None, "tool_calls": None, "failures": [],
    }
    started = time.perf_counter()
    kept = getattr(agent, "transcripts", None)  # a model's agent: its conversations, if kept
    unsent = getattr(agent, "not_sent", None)  # a model's agent: calls never sent, by why
    steps = None
    report: dict[str, Any] | None = None
    try:
        with _start(open_env, planned, pauses) as env:
            assert env.observation is not None
            record["episode_id"] = env.observation.episode_id
            report = env.finish(answer=_at_trial(agent, planned.trial)(env, planned.task))
            steps = env.trajectory()
            if trajectories:
                messages = kept.pop(record["episode_id"], None) if kept is not None else None
                record["trajectory"] = trajectory(env, planned.task, report, messages, steps)
        record.update(
            reward=float(report["reward"]), success=bool(report["success"]),
            harm=bool(report.get("harm")), signals=report["signals"], steps=report["steps"],
            faults=_faults(report.get("faults") or []),
            episode_page=report.get("episode_page"), infra_error=report.get("infra_error"),
            final_state_hash=report.get("final_state_hash"))
    except Exception as exc:  # the agent's crash is this episode's failure, not the run's
        what = infra_failure(exc)
        if what is None:
            record["error"] = f"{type(exc).__name__}: {exc}"
        else:
            record["infra_error"] = f"{what}: {type(exc).__name__}: {exc}"
        record["traceback"] = "".join(traceback.format_exception(exc)[-8:])
    record["duration_s"] = round(time.perf_counter() - started, 4)
    usage = getattr(agent, "usage", None)  # a model's agent: tokens per episode id
    timed = getattr(agent, "step_seconds", None)  # a browser agent's: seconds of each step
    if record["episode_id"] is not None:
        if usage is not None:
            record["tokens"] = usage.pop(record["episode_id"], None)
        if timed is not None:
            record["step_s"] = timed.pop(record["episode_id"], None)
        not_sent = unsent.pop(record["episode_id"], None) if unsent is not None else None
        if steps is not None and report is not None:
            record["tool_calls"] = tool_calls(steps, not_sent)
            if not record["infra_error"]:
                record["failures"] = failures(report, record["tool_calls"]["refusals"],
                                              planned.task.reference_steps)
        if kept is not None:
            kept.pop(record["episode_id"], None)
    return record


def run(planned: Sequence[Planned], open_env: OpenEnv, agent: Agent, concurrency: int,
        record: Callable[[list[dict[str, Any]]], None],
        tick: Callable[[], None] = lambda: None, *,
        stop: Callable[[], bool] = lambda: False, trajectories: bool = False,
        pauses: Sequence[float] = RETRY_PAUSES) -> None:
    """Run ``planned`` on ``concurrency`` threads; ``record`` gets finished episodes (in
    batches, as they come) on the calling thread, ``tick`` is called there every half
    second without one. Once ``stop()`` (asked after each batch) is true, no episode starts:
    those running finish and are recorded, the rest are not run. KeyboardInterrupt leaves
    the workers running as daemons, their episodes unrecorded."""
    todo: queue.SimpleQueue[Planned] = queue.SimpleQueue()
    for p in planned:
        todo.put(p)
    finished: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
    halt = threading.Event()

    def work() -> None:
        while not halt.is_set():
            try:
                p = todo.get_nowait()
            except queue.Empty:
                return
            finished.put(run_episode(open_env, agent, p, trajectories=trajectories,
                                     pauses=pauses))

    workers = [threading.Thread(target=work, name=f"bench-{i}", daemon=True)
               for i in range(max(1, min(concurrency, len(planned))))]
    for w in workers:
        w.start()
    try:
        while any(w.is_alive() for w in workers) or not finished.empty():
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
            record(batch)
            if stop():
                halt.set()
    finally:
        halt.set()
