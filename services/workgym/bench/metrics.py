"""The bench's metrics, pure functions of pass counts.

A problem is one task at one seed, run n times (trials), c of which passed (the reward
report's ``success``). For k trials drawn among the n without replacement:

* pass^k = C(c, k) / C(n, k): the chance that all k pass (τ-bench's reliability metric);
* pass@k = 1 - C(n - c, k) / C(n, k): the chance that at least one passes (Codex's).

Both are averaged over problems. Neither can be estimated from fewer than k trials: for a
problem with k > n they are None, and the averages leave such problems out (None when no
problem has k trials). An episode the infrastructure failed (its ``infra_error``: the gym or
the model's endpoint unreachable or failing, or the gym unable to score it) says nothing about
the agent: it is counted apart, by what failed, and left out of every metric and score,
interval and noise floor.

Every rate has its 95% interval, the bootstrap over problems (:mod:`.stats`): a problem's
value (its c/n, pass@k, pass^k, mean reward) resampled, as the problems of a run are one
draw of the task's worlds. A task's score has its interval over its problems (its seeds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from statistics import median
from typing import Any

from .health import Health, alarms, health, silent_tasks
from .noise import NoiseFloor, noise_floor
from .stats import Interval, bootstrap_ci


def _check(n: int, c: int, k: int) -> None:
    if k < 1 or not 0 <= c <= n:
        raise ValueError(f"need k >= 1 and 0 <= c <= n; got n={n}, c={c}, k={k}")


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """pass^k of one problem: n trials, c passed (None when k > n)."""
    _check(n, c, k)
    return None if k > n else comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """pass@k of one problem: n trials, c passed (None when k > n)."""
    _check(n, c, k)
    return None if k > n else 1.0 - comb(n - c, k) / comb(n, k)


def average(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None (None if there are none)."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


Counts = Mapping[Any, tuple[int, int]]  # problem -> (n trials, c passed)


def mean_pass_hat_k(problems: Counts, k: int) -> float | None:
    return average(pass_hat_k(n, c, k) for n, c in problems.values())


def mean_pass_at_k(problems: Counts, k: int) -> float | None:
    return average(pass_at_k(n, c, k) for n, c in problems.values())


def problem_counts(episodes: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], tuple[int, int]]:
    """(task, seed) -> (trials, passed) over episode records."""
    counts: dict[tuple[str, int], tuple[int, int]] = {}
    for e in episodes:
        n, c = counts.get((e["task"], e["seed"]), (0, 0))
        counts[(e["task"], e["seed"])] = (n + 1, c + bool(e["success"]))
    return counts


@dataclass(frozen=True)
class TaskRow:
    """One task over all its episodes (every seed and trial)."""

    task: str
    episodes: int
    passed: int
    score: float  # mean reward of the scored episodes (0 when none was)
    mean_s: float  # mean episode duration
    errors: int
    infra_errors: int  # episodes the infrastructure failed: not scored
    step_p50: float | None = None  # a browser agent's median seconds per browser step
    no_calls: bool = False  # it needs tool calls and its episodes made none (bench.health)
    score_ci: Interval | None = None  # its score's 95% interval over its problems (2 or more)

    @property
    def scored(self) -> int:
        return self.episodes - self.infra_errors

    @property
    def ok(self) -> bool:
        """A task passes when every one of its scored episodes passed (and one was)."""
        return self.scored > 0 and self.passed == self.scored


@dataclass(frozen=True)
class Intervals:
    """The 95% bootstrap intervals (:func:`.stats.bootstrap_ci`) of a run's rates, over its
    problems: each problem's pass@1 (c/n), pass@k, pass^k and mean reward, scored episodes
    alone (None where no problem has a value)."""

    pass_at_1: Interval | None = None
    pass_at_k: Interval | None = None
    pass_hat_k: Interval | None = None
    avg_score: Interval | None = None


def interval(values: Iterable[float | None]) -> Interval | None:
    """The bootstrap interval of the values that are not None (None if there are none)."""
    known = [v for v in values if v is not None]
    return bootstrap_ci(known) if known else None


def problem_rewards(scored: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], float]:
    """(task, seed) -> the mean reward of its (scored) episodes."""
    rewards: dict[tuple[str, int], list[float]] = {}
    for e in scored:
        rewards.setdefault((e["task"], e["seed"]), []).append(float(e["reward"]))
    return {problem: sum(values) / len(values) for problem, values in rewards.items()}


def intervals(problems: Counts, rewards: Mapping[Any, float], k: int) -> Intervals:
    counts = problems.values()
    return Intervals(interval(c / n for n, c in counts),
                     interval(pass_at_k(n, c, k) for n, c in counts),
                     interval(pass_hat_k(n, c, k) for n, c in counts),
                     interval(rewards.values()))


def task_interval(task: str, rewards: Mapping[tuple[str, int], float]) -> Interval | None:
    """A task's score interval over its problems (seeds); None with fewer than two."""
    values = [reward for (name, _), reward in rewards.items() if name == task]
    return bootstrap_ci(values) if len(values) > 1 else None


@dataclass(frozen=True)
class Summary:
    k: int
    episodes: int
    problems: int
    tasks: list[TaskRow]
    pass_at_1: float | None
    pass_at_k: float | None
    pass_hat_k: float | None
    avg_score: float | None
    errors: int
    infra_errors: int
    infra_reasons: list[tuple[str, int]]  # (what failed, episodes), most first
    tokens: int | None  # total tokens of the episodes whose agent counted them
    curve: list[tuple[int, float | None, float | None]]  # (k, pass^k, pass@k), k = 1..max n
    steps_timed: int = 0  # browser steps timed (a browser agent's), and their median seconds
    step_p50: float | None = None
    health: Health | None = None  # the agent's tool calls (None: not counted)
    alarms: list[str] = field(default_factory=list)  # what says the figures are not its work
    intervals: Intervals = Intervals()  # 95% bootstrap intervals of the rates, over problems
    noise: NoiseFloor | None = None  # the run's noise floor (pass@1)

    @property
    def tasks_passed(self) -> int:
        return sum(row.ok for row in self.tasks)


def infra_reasons(episodes: Iterable[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """(what failed, episodes), most first: an ``infra_error`` is ``"<what failed>: ..."``."""
    return Counter(str(e["infra_error"]).partition(":")[0] for e in episodes
                   if e.get("infra_error")).most_common()


def step_times(episodes: Iterable[Mapping[str, Any]]) -> list[float]:
    """The seconds of every browser step of ``episodes`` (a browser agent's ``step_s``)."""
    return [float(t) for e in episodes for t in e.get("step_s") or ()]


def summarize(episodes: Sequence[Mapping[str, Any]], k: int) -> Summary:
    """The summary of episode records (``results``' format) for k trials per problem."""
    scored = [e for e in episodes if not e.get("infra_error")]
    problems = problem_counts(scored)
    silent = silent_tasks(episodes)
    calls = health(episodes)
    rewards = problem_rewards(scored)
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for e in episodes:
        by_task.setdefault(e["task"], []).append(e)
    rows = [TaskRow(task, len(runs), sum(bool(e["success"]) for e in runs),
                    average(float(e["reward"]) for e in runs if not e.get("infra_error"))
                    or 0.0,
                    sum(float(e["duration_s"]) for e in runs) / len(runs),
                    sum(e.get("error") is not None for e in runs),
                    sum(bool(e.get("infra_error")) for e in runs),
                    median(timed) if (timed := step_times(runs)) else None,
                    task in silent, task_interval(task, rewards))
            for task, runs in sorted(by_task.items())]
    timed = step_times(episodes)
    most = max((n for n, _ in problems.values()), default=0)
    return Summary(
        k=k, episodes=len(episodes), problems=len(problems), tasks=rows,
        pass_at_1=mean_pass_hat_k(problems, 1), pass_at_k=mean_pass_at_k(problems, k),
        pass_hat_k=mean_pass_hat_k(problems, k),
        avg_score=average(float(e["reward"]) for e in scored),
        errors=sum(row.errors for row in rows),
        infra_errors=sum(row.infra_errors for row in rows),
        infra_reasons=infra_reasons(episodes),
        tokens=sum(int(e["tokens"].get("total_tokens", 0)) for e in counted)
        if (counted := [e for e in episodes if e.get("tokens")]) else None,
        curve=[(j, mean_pass_hat_k(problems, j), mean_pass_at_k(problems, j))
               for j in range(1, most + 1)],
        steps_timed=len(timed), step_p50=median(timed) if timed else None,
        health=calls, alarms=alarms(calls, silent),
        intervals=intervals(problems, rewards, k), noise=noise_floor(problems.values()),
    )
