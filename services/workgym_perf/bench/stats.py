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


def line(name: str, values: list[float]) -> str:
    """A latency figure as `make bench` prints it (``workgym_perf.figures.parse`` reads it
    back; its target is in ``workgym_perf.targets``)."""
    p50, p99 = statistics.median(values) * 1e3, pct(values, 0.99) * 1e3
    return f"  {name:<44} p50 {p50:8.3f} ms   p99 {p99:8.3f} ms   n={len(values)}"


class Refused(RuntimeError):
    """Some timed samples did not do what the figure's label says; no figure is printed."""


def sample_steps(step: Callable[[], int], n: int, budget: int, fresh: Callable[[], object],
                 warmup: int = 5) -> list[float]:
    """Seconds per step that reached the replica and succeeded: ``step`` returns the HTTP
    status; ``fresh`` (untimed) starts a new episode before ``budget`` steps are spent, so no
    sample times a refusal. Raises :class:`Refused`, saying how many samples were refused
    (4xx) or failed (5xx, status 0), when any were."""
    out, refused, failed, used = [], 0, 0, budget
    for i in range(warmup + n):
        if used >= budget:
            fresh()
            used = 0
        t = time.perf_counter()
        status = step()
        elapsed = time.perf_counter() - t
        used += 1
        if i < warmup:
            continue
        if 200 <= status < 400:
            out.append(elapsed)
        elif 400 <= status < 500:
            refused += 1
        else:
            failed += 1
    if refused or failed:
        raise Refused(f"{refused} of {n} samples refused, {failed} failed")
    return out


def step_line(name: str, run: Callable[[], list[float]]) -> str:
    """``line`` for a step loop, or why it has no figure."""
    try:
        return line(name, run())
    except Refused as exc:
        return f"  {name:<44} NO FIGURE: {exc}"
