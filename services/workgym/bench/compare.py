"""``workgym compare A.json B.json``: which differences between two bench runs are real.

The runs are paired by problem (a task at a seed): a problem scored in both (at least one
episode without an ``infra_error`` in each) is compared, one scored in one run only is
listed apart, never compared. Infra-failed episodes enter nothing. The runs must have the
same fault plan (else the problems are not the same: refused) and the same environment
version (:mod:`workgym.envversion`; refused, naming what differs, unless
``--allow-version-mismatch``, and then the output says so). A file without a version (one
written before versions were recorded) counts as a different one.

* **Overall** (pass@1, avg score, and pass^k when both runs have k ≥ 2 trials: k the
  smaller): the per-problem differences d = B - A (each problem's c/n, mean reward,
  pass^k), their mean and its 95% paired bootstrap interval (:func:`.stats.bootstrap_ci`,
  problems resampled). B is *better* (or *worse*) when the interval lies above (below) 0,
  else *no significant difference*. The smallest difference this calls significant is the
  run's noise floor (:mod:`.noise`), printed by ``workgym bench``.
* **Per task** (pass@1 over its problems): a task has few problems (its seeds), where a
  bootstrap interval is too narrow (two problems that agree give a zero-width one). So
  each task's verdict comes from an exact paired test, the sign flip: under no difference,
  each problem's d is as likely -d, and the p-value is the share of the 2^m sign patterns
  of the m non-zero d whose |sum| reaches the observed (past 12, 2000 seeded random
  patterns). With many tasks some would pass 0.05 by chance: the p-values are adjusted by
  **Holm**'s step-down method, which keeps the chance of calling ANY task different by
  chance under 5% (the family-wise error; Benjamini-Hochberg would control only the share
  of false calls among the calls: weaker, for a check that a new checkpoint broke nothing
  we want each call trusted). A task is better or worse when its adjusted p < 0.05; its
  bootstrap interval of Δ is shown as a description. One task needs 6 problems that
  differ, all the same way, before it can be called different (2/2^6 < 0.05).

The output: the per-task table (task, A, B, Δ, interval, Holm p, verdict), the overall
lines, the problems in one run only; with ``--out``, the same as JSON (same inputs, same
bytes).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from workgym_core.errors import ConfigError

from ..envversion import differences
from .metrics import pass_hat_k, problem_counts, problem_rewards
from .results import Results
from .stats import Interval, bootstrap_ci

FORMAT = "workgym-compare/1"
ALPHA = 0.05
EXACT_UP_TO = 12  # non-zero differences: every sign pattern up to this many, else sampled
PATTERNS = 2000
BETTER, WORSE, SAME = "better", "worse", "no significant difference"

Problem = tuple[str, int]


@dataclass(frozen=True)
class Difference:
    """B - A of one measure (an overall rate, or one task's pass@1) over paired problems."""

    name: str
    problems: int
    a: float
    b: float
    delta: Interval
    verdict: str
    p_holm: float | None = None  # a task's sign-flip p-value, Holm-adjusted


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    env_version: str | None  # A's id
    warning: str | None  # the versions differ, compared anyway
    overall: list[Difference]
    tasks: list[Difference]
    only_a: list[Problem]
    only_b: list[Problem]

    def as_json(self) -> bytes:
        return orjson.dumps({"format": FORMAT, **asdict(self)}, option=orjson.OPT_INDENT_2)


@dataclass(frozen=True)
class Run:
    """A run's scored problems: (trials, passed) and mean reward each."""

    path: Path
    header: dict[str, Any]
    counts: dict[Problem, tuple[int, int]]
    rewards: dict[Problem, float]

    @classmethod
    def load(cls, path: Path) -> Run:
        results = Results.load(path)
        scored = [e for e in results.episodes if not e.get("infra_error")]
        return cls(path, results.header, problem_counts(scored), problem_rewards(scored))

    def rate(self, problem: Problem) -> float:
        n, c = self.counts[problem]
        return c / n


def sign_flip_p(deltas: Sequence[float], seed: int = 0) -> float:
    """The two-sided p-value of the paired sign-flip test of mean ``deltas`` = 0."""
    nonzero = [d for d in deltas if d != 0]
    if not nonzero:
        return 1.0
    observed = abs(sum(nonzero)) - 1e-12
    if len(nonzero) <= EXACT_UP_TO:
        patterns = list(itertools.product((1, -1), repeat=len(nonzero)))
        hits = sum(abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= observed
                   for signs in patterns)
        return hits / len(patterns)
    rng = random.Random(seed)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in nonzero)) >= observed
               for _ in range(PATTERNS))
    return (hits + 1) / (PATTERNS + 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the given order."""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def verdict(delta: Interval) -> str:
    return BETTER if delta.low > 0 else WORSE if delta.high < 0 else SAME


def paired(name: str, a: Mapping[Problem, float], b: Mapping[Problem, float],
           common: Sequence[Problem]) -> Difference:
    """The difference of a measure over the ``common`` problems, by the paired bootstrap."""
    delta = bootstrap_ci([b[p] - a[p] for p in common])
    mean_a, mean_b = (sum(x[p] for p in common) / len(common) for x in (a, b))
    return Difference(name, len(common), mean_a, mean_b, delta, verdict(delta))


def _check(run_a: Run, run_b: Run, allow_mismatch: bool) -> str | None:
    """Refuse runs of different fault plans, or (unless allowed) environment versions; the
    warning to print when compared anyway."""
    plans = run_a.header.get("faults"), run_b.header.get("faults")
    if plans[0] != plans[1]:
        raise ConfigError(f"fault plans differ: {run_a.path} ran {plans[0]!r}, {run_b.path} "
                          f"{plans[1]!r}: the problems are not the same; compare runs of one "
                          "fault plan")
    differ = differences(run_a.header.get("env_version"), run_b.header.get("env_version"))
    if not differ:
        return None
    said = f"environment versions differ: {', '.join(differ)}"
    if not allow_mismatch:
        raise ConfigError(f"{said}; --allow-version-mismatch compares anyway")
    return f"{said}; compared anyway (--allow-version-mismatch)"


def compare(path_a: Path, path_b: Path, allow_mismatch: bool = False) -> Comparison:
    run_a, run_b = Run.load(path_a), Run.load(path_b)
    warning = _check(run_a, run_b, allow_mismatch)
    common = sorted(run_a.counts.keys() & run_b.counts.keys())
    if not common:
        raise ConfigError(f"no problem (task at a seed) is scored in both {path_a} and "
                          f"{path_b}: nothing to compare")
    rates_a = {p: run_a.rate(p) for p in common}
    rates_b = {p: run_b.rate(p) for p in common}
    overall = [paired("pass@1", rates_a, rates_b, common),
               paired("avg score", run_a.rewards, run_b.rewards, common)]
    k = min(int(run_a.header["trials"]), int(run_b.header["trials"]))
    hat_a, hat_b = ({p: v for p in common if (v := pass_hat_k(*run.counts[p], k)) is not None}
                    for run in (run_a, run_b))
    if k > 1 and (both := [p for p in common if p in hat_a and p in hat_b]):
        overall.append(paired(f"pass^{k}", hat_a, hat_b, both))
    tasks = sorted({task for task, _ in common})
    by_task = [paired(task, rates_a, rates_b, [p for p in common if p[0] == task])
               for task in tasks]
    raw = [sign_flip_p([rates_b[p] - rates_a[p] for p in common if p[0] == task])
           for task in tasks]
    adjusted = holm(raw)
    rows = [Difference(d.name, d.problems, d.a, d.b, d.delta,
                       (BETTER if d.delta.mean > 0 else WORSE) if p < ALPHA else SAME, p)
            for d, p in zip(by_task, adjusted, strict=True)]
    version = run_a.header.get("env_version")
    return Comparison(str(path_a), str(path_b), version.get("id") if version else None,
                      warning, overall, rows, sorted(run_a.counts.keys() - run_b.counts.keys()),
                      sorted(run_b.counts.keys() - run_a.counts.keys()))


def _signed(value: float) -> str:
    return f"{value:+.2f}"


def _interval(delta: Interval) -> str:
    return f"[{_signed(delta.low)}, {_signed(delta.high)}]"


def text(comparison: Comparison) -> str:
    """The table, the overall lines and the unpaired problems, as printed."""
    width = max([len(d.name) for d in comparison.tasks] + [4])
    lines = [f"A {comparison.a} · B {comparison.b} · environment "
             f"{comparison.env_version or 'not recorded'}"]
    if comparison.warning:
        lines.append(f"warning: {comparison.warning}")
    head = (f"{'task':<{width}}  {'A':>4}  {'B':>4}  {'Δ':>5}  {'95% CI of Δ':<14}  "
            f"{'p Holm':>6}  verdict")
    lines += ["", head, "-" * (len(head) + len(SAME) - len("verdict"))]
    for d in comparison.tasks:
        lines.append(f"{d.name:<{width}}  {d.a:>4.2f}  {d.b:>4.2f}  {_signed(d.delta.mean):>5}"
                     f"  {_interval(d.delta):<14}  {d.p_holm or 0:>6.3f}  {d.verdict}")
    lines.append("")
    for d in comparison.overall:
        lines.append(f"{d.name:<9}  A {d.a:.2f} · B {d.b:.2f} · Δ {_signed(d.delta.mean)} "
                     f"{_interval(d.delta)} · {d.verdict} (paired over {d.problems} problems)")
    for side, only in (("A", comparison.only_a), ("B", comparison.only_b)):
        if only:
            lines.append(f"only in {side} (not compared): "
                         + ", ".join(f"{task} seed {seed}" for task, seed in only))
    return "\n".join(lines)
