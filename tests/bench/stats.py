"""Timing helpers: medians and tails, never single samples."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def sample(fn: Callable[[], object], n: int, warmup: int = 5) -> list[float]:
    """Seconds per call of ``fn``, ``n`` samples after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, values: list[float], target: str = "") -> str:
    p50, p99 = statistics.median(values) * 1e3, pct(values, 0.99) * 1e3
    return f"  {name:<44} p50 {p50:8.3f} ms   p99 {p99:8.3f} ms   n={len(values)}  {target}"
