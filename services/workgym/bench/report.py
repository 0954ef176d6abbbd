"""``workgym report``: a bench's results JSON as one self-contained HTML page (inline CSS
and SVG, no script, nothing fetched): the run's facts (its environment version among them),
its metrics with their 95% intervals and its noise floor, four plots (the reward
histogram, pass^k and pass@k over k (with two trials or more: with one, both are pass@1),
the score per task, the faults met and recovered per kind (met alone for a kind that asks
nothing of the agent)), the agent's tool calls (and above all, the alarms saying the figures
may not be its work: :mod:`workgym.bench.health`), the diagnosis (the weakest skills:
:mod:`.diagnosis`), the infra failures apart, and every episode with its page link.

The plots' geometry is computed here, in plain numbers; the template only draws it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from workgym_reward.recovery import RULES

from .diagnosis import diagnose
from .health import NO_CALLS, health_line
from .metrics import Summary, summarize
from .results import Results, planned
from .summary import bounds, noise_line, number, subject

TEMPLATES = Path(__file__).parent / "templates"
WIDTH = 640  # the histogram's and curve's width in SVG units (the page scales them)
ROW_WIDTH = 900  # the row plots' (tasks, faults), drawn no wider than this in pixels
LABEL_W = 300  # the row plots' label column
ROW_H = 18


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str  # the tooltip
    kind: str = ""  # a CSS class: pass, fail, partial, met, recovered


@dataclass(frozen=True)
class Tick:
    x: float
    y: float
    label: str


@dataclass(frozen=True)
class Row:
    """One labelled row of a row plot (a task's score, a fault kind's counts)."""

    y: float
    label: str
    bars: list[Bar]
    value: str
    span: tuple[float, float] | None = None  # a task's score interval, drawn as a whisker


@dataclass(frozen=True)
class Plot:
    height: float
    bars: list[Bar]
    ticks: list[Tick]
    rows: list[Row]
    lines: list[tuple[str, str]]  # (css class, SVG points) of a curve
    points: list[Bar]  # the curves' markers (x, y, title, kind); width/height unused
    zero: float | None = None  # where 0 lies on the value axis


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    return round(start + (value - low) / (high - low) * (end - start), 2)


def histogram(rewards: list[float], bins: int = 20) -> Plot:
    """Rewards over [-1, 1] in ``bins`` bins (1.0 falls in the last)."""
    counts = [0] * bins
    for r in rewards:
        counts[min(bins - 1, max(0, int((r + 1) / 2 * bins)))] += 1
    top, height, left, bottom = max(counts + [1]), 180, 40, 150
    width = (WIDTH - left - 10) / bins
    bars = []
    for i, count in enumerate(counts):
        low = -1 + 2 * i / bins
        h = _scale(count, 0, top, 0, bottom - 10)
        kind = "fail" if low < 0 else ("pass" if low >= 0.9 - 1e-9 else "partial")
        bars.append(Bar(round(left + i * width + 1, 2), bottom - h, round(width - 2, 2), h,
                        f"reward {low:.1f} to {low + 2 / bins:.1f}: {count} episodes", kind))
    ticks = [Tick(_scale(v, -1, 1, left, WIDTH - 10), bottom + 16, f"{v:g}")
             for v in (-1, -0.5, 0, 0.5, 1)]
    ticks += [Tick(left - 6, bottom, "0"), Tick(left - 6, 14, str(top))]
    return Plot(height, [b for b in bars if b.height > 0], ticks, [], [], [],
                zero=_scale(0, -1, 1, left, WIDTH - 10))


def pass_curve(curve: list[tuple[int, float | None, float | None]]) -> Plot:
    """pass^k and pass@k for k = 1..n."""
    height, left, right, top, bottom = 200, 40, WIDTH - 20, 14, 170
    most = max([k for k, _, _ in curve] + [2])

    def x(k: int) -> float:
        return _scale(k, 1, most, left, right)

    lines, points = [], []
    for kind in ("at", "hat"):  # pass^k drawn over pass@k
        known = [(k, value) for k, hat, at in curve
                 if (value := hat if kind == "hat" else at) is not None]
        coords = [(x(k), _scale(val, 0, 1, bottom, top), k, val) for k, val in known]
        lines.append((kind, " ".join(f"{cx},{cy}" for cx, cy, _, _ in coords)))
        symbol = "pass^" if kind == "hat" else "pass@"
        points += [Bar(cx, cy, 0, 0, f"{symbol}{k} = {number(val)}", kind)
                   for cx, cy, k, val in coords]
    ticks = [Tick(x(k), bottom + 16, str(k)) for k, _, _ in curve]
    ticks += [Tick(left - 6, _scale(v, 0, 1, bottom, top) + 4, f"{v:g}") for v in (0, 0.5, 1)]
    return Plot(height, [], ticks, [], lines, points)


def task_bars(summary: Summary) -> Plot:
    """Each task's mean reward, a bar from 0 (left of it when negative), with a whisker
    over its 95% interval when it has two problems or more."""
    left, right = LABEL_W, ROW_WIDTH - 50
    zero = _scale(0, -1, 1, left, right)
    rows = []
    for i, row in enumerate(summary.tasks):
        end = _scale(max(-1.0, min(1.0, row.score)), -1, 1, left, right)
        kind = "pass" if row.ok else ("partial" if row.passed else "fail")
        y = 10 + i * ROW_H
        bar = Bar(min(zero, end), y, max(abs(end - zero), 1), ROW_H - 4,
                  f"{row.task}: score {row.score:.2f} {bounds(row.score_ci)}".rstrip()
                  + f", {row.passed}/{row.scored} passed"
                  + (f", {NO_CALLS}" if row.no_calls else ""), kind)
        span = None if row.score_ci is None else (
            _scale(max(-1.0, row.score_ci.low), -1, 1, left, right),
            _scale(min(1.0, row.score_ci.high), -1, 1, left, right))
        rows.append(Row(y, row.task, [bar], f"{row.score:.2f}", span))
    ticks = [Tick(_scale(v, -1, 1, left, right), 10 + len(rows) * ROW_H + 14, f"{v:g}")
             for v in (-1, 0, 1)]
    return Plot(20 + len(rows) * ROW_H + 14, [], ticks, rows, [], [], zero=zero)


def asks_recovery(kind: str) -> bool:
    """Whether a fault of ``kind`` asks the agent to recover (the reward engine judges it:
    workgym_reward.recovery.RULES); the others (latency, schema drift, ...) ask nothing of
    it, and are shown as met, never as failed recoveries."""
    return kind in RULES


def judged(faults: dict[str, Any]) -> tuple[int, int]:
    """An episode's (recovered, judged) faults: those whose kind asks for a recovery."""
    asked = [f for f in faults["met"] if asks_recovery(f["kind"])]
    return sum(f.get("recovered") is True for f in asked), len(asked)


def fault_bars(episodes: list[dict[str, Any]]) -> Plot | None:
    """Per fault kind: faults met and recovered from, or met alone for a kind that asks
    nothing of the agent (None when no fault was injected)."""
    kinds: dict[str, list[int]] = {}
    for e in episodes:
        for f in e["faults"]["met"]:
            counts = kinds.setdefault(f["kind"], [0, 0])
            counts[0] += 1
            counts[1] += f.get("recovered") is True
    if not kinds:
        return None
    left, right = LABEL_W, ROW_WIDTH - 60
    top = max(met for met, _ in kinds.values())
    rows = []
    for i, (kind, (met, recovered)) in enumerate(sorted(kinds.items())):
        y = 10 + i * ROW_H * 2
        asks = asks_recovery(kind)
        bars = [Bar(left, y, max(_scale(met, 0, top, 0, right - left), 1), ROW_H - 6,
                    f"{kind}: {met} met" if asks else f"{kind}: {met} met; asks nothing of "
                    "the agent (the task's checks judge what it did)",
                    "met" if asks else "met asks-nothing")]
        if asks:
            bars.append(Bar(left, y + ROW_H - 4,
                            max(_scale(recovered, 0, top, 0, right - left), 1), ROW_H - 6,
                            f"{kind}: {recovered} recovered", "recovered"))
        rows.append(Row(y, kind, bars, f"{recovered}/{met}" if asks else f"{met} met"))
    return Plot(20 + len(rows) * ROW_H * 2, [], [], rows, [], [])


def tokens(usage: dict[str, Any] | None) -> str:
    """An episode's tokens as the agent counted them: the total, else every count."""
    if not usage:
        return "-"
    if "total_tokens" in usage:
        return str(usage["total_tokens"])
    return ", ".join(f"{name} {count}" for name, count in usage.items())


def percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def calls(counted: dict[str, Any] | None) -> str:
    """An episode's tool calls: those made, and what went wrong with them
    (``5: 1 malformed, 2 refused``)."""
    if not counted:
        return "-"
    wrong = [f"{counted[name]} {label}" for name, label in (
        ("malformed", "malformed"), ("unknown_tool", "unknown tool"))
        if counted.get(name)]
    if refused := sum(counted["refused"].values()):
        wrong.append(f"{refused} refused")
    return f"{counted['made']}" + (f": {', '.join(wrong)}" if wrong else "")


def render(results: Results, json_href: str | None = None) -> str:
    """The HTML report of ``results``."""
    header, episodes = results.header, results.episodes
    summary = summarize(episodes, int(header["trials"]))
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(
        default=True), undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html").render(
        header=header, subject=subject(header), summary=summary, number=number, tokens=tokens,
        calls=calls, percent=percent, health_line=health_line,
        bounds=bounds, noise=noise_line(summary, int(header["trials"])) if summary.noise else "",
        width=WIDTH, row_width=ROW_WIDTH, label_w=LABEL_W,
        episodes=sorted(episodes, key=lambda e: (e["task"], e["seed"], e["trial"])),
        histogram=histogram([float(e["reward"]) for e in episodes if not e.get("infra_error")]),
        curve=pass_curve(summary.curve) if len(summary.curve) > 1 else None,
        tasks=task_bars(summary), faults=fault_bars(episodes), judged=judged,
        diagnosis=diagnose(episodes),
        json_href=json_href,
        planned=planned(header))


def write_report(results_path: Path, out: Path | None = None) -> Path:
    """Render the results file at ``results_path`` to ``out`` (default: next to it, .html)."""
    out = out or results_path.with_suffix(".html")
    html = render(Results.load(results_path),
                  os.path.relpath(results_path.resolve(), out.resolve().parent))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out
