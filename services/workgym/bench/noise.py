"""The noise floor of a bench run: the smallest difference of pass@1 between two runs of this
size that ``workgym compare`` would call significant at 95%, estimated from this run.

A problem is a task at a seed; its value is its success rate over its trials, c/n. Two runs
differ for two reasons:

* **trial noise**: an agent that samples (a model at temperature > 0, ``flaky``) passes a
  problem with some probability p_i, so n trials give c/n with variance p_i(1-p_i)/n: 0 for
  a deterministic agent. Two runs of one agent on the SAME problems differ by this alone.
  That is compare's case: it pairs problems, and its interval of B-A, about
  ±1.96·sd(d)/√N over the N per-problem differences d_i, excludes 0 past the **paired
  floor** 1.96·√(2·mean_i p_i(1-p_i)/n_i / N). p_i(1-p_i) is estimated without bias from
  a problem's own trials, c(n-c)/(n(n-1)): it needs n ≥ 2, so only problems with two
  trials or more enter it (their mean stands for every problem's).
* **problem sampling**: runs on two different samples of N problems (a benchmark's two
  releases, two subsets drawn from a pool) differ also by which problems were drawn:
  the variance of a problem's value across problems, s² (between problems, plus trial
  noise), gives the **sample floor** 1.96·√(2·s²/N), never below the paired one (an s²
  under the trial noise measured is the estimates' own noise: the problems' spread is
  taken as 0 then). This is the "7-11 points" two single runs of well-known benchmarks
  must differ by before the gap means anything.

With one trial per problem, trial noise cannot be told from the problems' spread: the
paired floor is unknown, and the sample floor is given as its bound (s² = mean p_i(1-p_i)
+ the variance of the p_i ≥ the paired case's mean p_i(1-p_i)). Run ``--trials 2`` or more
to measure it. Both are normal approximations of compare's bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import sqrt

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class NoiseFloor:
    paired: float | None  # two runs on these problems (None: one trial, unknown)
    sample: float  # two runs on two samples of this many problems
    problems: int


def noise_floor(problems: Iterable[tuple[int, int]]) -> NoiseFloor | None:
    """The noise floor of pass@1 over ``problems``, (trials, passed) each; None with fewer
    than two problems."""
    counts = list(problems)
    size = len(counts)
    if size < 2:
        return None
    values = [c / n for n, c in counts]
    mean = sum(values) / size
    spread = sum((v - mean) ** 2 for v in values) / (size - 1)
    repeated = [c * (n - c) / (n * (n - 1)) / n for n, c in counts if n >= 2]
    trial = sum(repeated) / len(repeated) if repeated else None
    if trial is None:
        return NoiseFloor(None, Z95 * sqrt(2 * spread / size), size)
    return NoiseFloor(Z95 * sqrt(2 * trial / size), Z95 * sqrt(2 * max(spread, trial) / size),
                      size)
