"""The bench's text output: the per-task table, the metrics line and the headline; every
rate with its 95% interval over problems (:mod:`.metrics`), and the run's noise floor
(:mod:`.noise`)."""

from __future__ import annotations

from typing import Any

from .health import NO_CALLS, health_line
from .metrics import Summary
from .stats import Interval


def number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def subject(header: dict[str, Any]) -> str:
    """What ran: ``suite helpdesk``, ``split test``, ``set sets/x.json`` or ``tasks a,b``."""
    return f"suite {header['suite']}" if header.get("suite") else \
        f"set {header['set']['path']}" if header.get("set") else \
        f"split {header['split']}" if header.get("split") else \
        f"tasks {','.join(header['selection'])}"


def bounds(interval: Interval | None) -> str:
    """``[0.40, 0.90]``: an interval's bounds (blank without one)."""
    return "" if interval is None else f"[{interval.low:.2f}, {interval.high:.2f}]"


def rate(value: float | None, interval: Interval | None) -> str:
    """``0.67 [0.40, 0.90]``: a rate and its 95% interval."""
    return f"{number(value)} {bounds(interval)}".rstrip()


def noise_line(summary: Summary, trials: int) -> str:
    """``noise floor ±0.03 paired, ±0.09 on new problems (pass@1, 108 problems × 3 trials)``
    (:mod:`.noise`); with one trial, the bound the sample floor gives."""
    noise = summary.noise
    assert noise is not None
    size = f"pass@1, {plural(noise.problems, 'problem')} × {plural(trials, 'trial')}"
    if noise.paired is None:
        return (f"noise floor ±{noise.sample:.2f} ({size}; one trial: a bound, trial noise "
                "not told from the problems' spread)")
    return (f"noise floor ±{noise.paired:.2f} paired, ±{noise.sample:.2f} on new problems "
            f"({size})")


def table(summary: Summary) -> str:
    """One row per task: its score (with its 95% interval over the task's problems when it
    has two or more), passed/scored, mean episode time and, for a browser agent, the median
    seconds per browser step."""
    width = max([len(row.task) for row in summary.tasks] + [4])
    timed = summary.step_p50 is not None
    spread = any(row.score_ci is not None for row in summary.tasks)
    lines = [f"{'task':<{width}}  {'score':>6}" + (f"  {'95% CI':<12}" if spread else "")
             + f"  {'status':>7}  {'time':>8}" + (f"  {'step p50':>8}" if timed else ""),
             "-" * (width + 33 + 10 * timed + 14 * spread)]
    for row in summary.tasks:
        note = "" if row.ok else "  FAIL" if row.scored else "  NOT SCORED"
        if row.errors:
            note += f" ({plural(row.errors, 'error')})"
        if row.infra_errors:
            note += f" ({plural(row.infra_errors, 'infra failure')}, not scored)"
        if row.no_calls:
            note += f"  {NO_CALLS}"
        step = "" if not timed else "  " + (
            f"{row.step_p50:>6.2f} s" if row.step_p50 is not None else f"{'-':>8}")
        lines.append(f"{row.task:<{width}}  {row.score:>6.2f}  "
                     + (f"{bounds(row.score_ci):<12}  " if spread else "")
                     + f"{f'{row.passed}/{row.scored}':>7}  {row.mean_s:>6.2f} s{step}{note}")
    return "\n".join(lines)


def metrics_line(summary: Summary, trials: int) -> str:
    """The rates, each with its 95% interval over problems, the run's size and noise floor,
    tokens, browser step times, errors."""
    k, ci = summary.k, summary.intervals
    parts = [f"pass@1 {rate(summary.pass_at_1, ci.pass_at_1)}"]
    if k > 1:
        parts += [f"pass@{k} {rate(summary.pass_at_k, ci.pass_at_k)}",
                  f"pass^{k} {rate(summary.pass_hat_k, ci.pass_hat_k)}"]
    parts += [f"avg score {rate(summary.avg_score, ci.avg_score)}",
              f"{plural(summary.episodes, 'episode')} ({plural(summary.problems, 'problem')} "
              f"× {plural(trials, 'trial')})"]
    if summary.noise is not None:
        parts.append(noise_line(summary, trials))
    if summary.tokens is not None:
        parts.append(f"{summary.tokens:,} tokens")
    if summary.step_p50 is not None:
        parts.append(f"browser step p50 {summary.step_p50:.2f} s "
                     f"({plural(summary.steps_timed, 'step')})")
    if summary.health is not None:
        parts.append(health_line(summary.health))
    if summary.errors:
        parts.append(f"{plural(summary.errors, 'agent error')}")
    if summary.infra_errors:
        parts.append(infra_line(summary))
    parts += [f"ALARM: {alarm}" for alarm in summary.alarms]
    return " · ".join(parts)


def infra_line(summary: Summary) -> str:
    """``3 infra failures (not scored): model endpoint unreachable ×3``."""
    reasons = ", ".join(f"{what} ×{count}" for what, count in summary.infra_reasons)
    return f"{plural(summary.infra_errors, 'infra failure')} (not scored): {reasons}"


def headline(summary: Summary, header: dict[str, Any], saved: str) -> str:
    tasks = len(summary.tasks)
    return (f"{subject(header)} · {plural(tasks, 'task')} · "
            f"{summary.tasks_passed}/{tasks} passed · avg score {number(summary.avg_score)} · "
            f"report saved to {saved}")
