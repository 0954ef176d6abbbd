"""Confidence intervals by the bootstrap over problems.

A bench's episodes are not independent draws: the trials of one problem (a task at a seed)
share its difficulty. So an interval resamples problems, not episodes: each of ``resamples``
draws takes as many problems as there are, with replacement, and takes the mean of their
values (one value per problem: its success rate over its trials, its pass^k, its mean
reward...); the interval is the ``level`` percentile range of those means. The draws come
from a seeded generator, so the same values give the same interval.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.mean:.2f} [{self.low:.2f}, {self.high:.2f}]"


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of sorted values, linearly interpolated."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def resampled_means(values: Sequence[float], resamples: int = 2000,
                    seed: int = 0) -> list[float]:
    """The sorted means of ``resamples`` draws of ``len(values)`` values with replacement."""
    choices = random.Random(seed).choices
    n = len(values)
    return sorted(sum(choices(values, k=n)) / n for _ in range(resamples))


def bootstrap_ci(values: Sequence[float], *, level: float = 0.95, resamples: int = 2000,
                 seed: int = 0) -> Interval:
    """The mean of ``values`` (one per problem) and its bootstrap percentile interval."""
    if not values:
        raise ValueError("no values: an interval needs at least one problem")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    n = len(values)
    mean = sum(values) / n
    if n == 1 or min(values) == max(values):
        return Interval(mean, mean, mean)
    means = resampled_means(values, resamples, seed)
    tail = (1 - level) / 2
    return Interval(mean, percentile(means, tail), percentile(means, 1 - tail))
