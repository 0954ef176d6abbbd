"""The figures of a run of `make bench` or `make load` in one table: each beside its target
(``workgym_perf.targets``) and the previous release's figure measured in the same run.

A figure is a number with a unit under a name. The bench's sections print theirs as lines, and
:func:`parse` reads them back, from this checkout's output and the previous release's alike:

* ``  NAME  p50 X ms   p99 Y ms ...`` (``stats.line``): two figures, ``NAME p50``, ``NAME p99``;
* ``  NAME  VALUE UNIT ...`` (UNIT one of :data:`UNITS`): the figure ``NAME``;
* either, with ``= N% of WHAT`` further on: one more, ``NAME: share of WHAT`` in %.

Other lines are comments, never figures. A figure this checkout has and the previous release
lacks (a new section, a renamed line) shows "—" there, and no ratio.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from .targets import target_of

UNITS = ("ms", "us", "s", "MB", "KB", "req/s", "/s", "x", "%")
_NUMBER = r"-?[\d,]*\.?\d+"
_LATENCY = re.compile(rf"^  (?P<name>\S.*?)\s+p50\s+(?P<p50>{_NUMBER}) ms\s+"
                      rf"p99\s+(?P<p99>{_NUMBER}) ms\b")
_VALUE = re.compile(rf"^  (?P<name>\S.*?)\s+(?P<value>{_NUMBER}) "
                    rf"(?P<unit>{'|'.join(map(re.escape, UNITS))})(?=\s|$)")
_SHARE = re.compile(rf"= *(?P<share>{_NUMBER})% of (?P<what>\w+)")
MISSING = "—"


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str

    def __str__(self) -> str:
        if math.isnan(self.value):
            return MISSING
        size = abs(self.value)
        digits = 0 if size >= 100 or self.value.is_integer() and self.unit not in ("ms", "MB") \
            else 1 if size >= 10 else 3 if self.unit in ("ms", "MB") else 2
        return f"{self.value:,.{digits}f} {self.unit}".rstrip()


Figures = dict[str, Figure]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def parse(text: str) -> Figures:
    """The figures printed in ``text`` (see the module's docstring), by name."""
    found: Figures = {}
    for row in text.splitlines():
        if latency := _LATENCY.match(row):
            name = latency["name"]
            found[f"{name} p50"] = Figure(_number(latency["p50"]), "ms")
            found[f"{name} p99"] = Figure(_number(latency["p99"]), "ms")
        elif value := _VALUE.match(row):
            name = value["name"]
            found[name] = Figure(_number(value["value"]), value["unit"])
        else:
            continue
        if share := _SHARE.search(row):
            found[f"{name}: share of {share['what']}"] = Figure(_number(share["share"]), "%")
    return found


@dataclass(frozen=True)
class Row:
    """One figure of the table; ``previous`` None: not measured, or the release lacks it."""

    name: str
    target: str
    this: Figure
    previous: Figure | None
    met: bool | None  # None: no target, or one that cannot be told (no previous figure)

    @property
    def ratio(self) -> str:
        """This checkout's figure over the previous release's (``0.50x``: half of it)."""
        if self.previous is None or not self.previous.value or math.isnan(self.this.value):
            return MISSING
        return f"{self.this.value / self.previous.value:.2f}x"

    @property
    def verdict(self) -> str:
        return {True: "yes", False: "NO", None: MISSING if self.target == MISSING else "?"}[
            self.met]


def rows(this: Figures, previous: Figures | None) -> list[Row]:
    """This checkout's figures, in the order measured, beside their targets and the previous
    release's (``previous`` None: not measured this run)."""
    out = []
    for name, figure in this.items():
        before = (previous or {}).get(name)
        target = target_of(name)
        met = None
        if target is not None and not math.isnan(figure.value):
            met = target.met(figure.value, before.value if before else None)
        out.append(Row(name, str(target) if target else MISSING, figure, before, met))
    return out


HEADINGS = ("figure", "target", "this checkout", "previous release", "ratio", "met?")


def _cells(row: Row) -> tuple[str, ...]:
    return (row.name, row.target, str(row.this), str(row.previous or MISSING), row.ratio,
            row.verdict)


def table(found: list[Row], previous: str) -> str:
    """The figures table for a terminal; ``previous``: which release the ratios are to, or
    why there are none."""
    cells = [HEADINGS, *map(_cells, found)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADINGS))]
    lines = [f"Figures (previous release: {previous})"]
    for i, c in enumerate(cells):
        lines.append("  " + "  ".join(text.ljust(w) if k == 0 else text.rjust(w)
                                      for k, (text, w) in enumerate(zip(c, widths, strict=True)))
                     .rstrip())
        if i == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    unmet = sum(row.met is False for row in found)
    lines.append(f"  {sum(row.met is True for row in found)} targets met, {unmet} not met")
    return "\n".join(lines)


def markdown(found: list[Row], previous: str) -> str:
    """The figures that have a target, as a markdown table (the README's)."""
    targeted = [row for row in found if row.target != MISSING]
    lines = ["| figure | target | previous release | now | met? |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {row.name} | {row.target} | {row.previous or MISSING} | {row.this} | "
              f"{row.verdict} |" for row in targeted]
    return "\n".join([*lines, "", f"Previous release: {previous}."])


def write_markdown(path: Path, block: str, text: str) -> None:
    """``text`` into ``path`` between the lines ``<!-- BLOCK:begin -->`` and ``<!-- BLOCK:end
    -->`` (the README's), or as the whole file when it does not exist."""
    begin, end = f"<!-- {block}:begin -->", f"<!-- {block}:end -->"
    if not path.exists():
        path.write_text(text + "\n")
        return
    content = path.read_text()
    head, found, rest = content.partition(begin + "\n")
    _, closed, tail = rest.partition(end)
    if not found or not closed:
        raise ValueError(f"{path} has no block {begin} ... {end} to write the figures in")
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")
