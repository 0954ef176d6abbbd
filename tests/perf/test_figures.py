"""The figures table of `make bench` and `make load`: figures read back from the printed lines,
each beside its target, met or not, and the previous release's figure with the ratio ("—"
where the release lacks it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym_perf import figures
from workgym_perf.bench.stats import line

PRINTED = "\n".join([
    line("helpdesk: env.reset() in-process (the gym API)", [0.0005] * 10 + [0.009]),
    "  memory per idle live episode                    0.150 MB   (replica 1.0 KB)",
    "  16 episodes, through the proxy (aiohttp)      1,200 req/s =  60.0% of direct",
    "  proxy on the wire: a comment, never a figure 2 ms",
])


def test_printed_lines_are_read_back_as_figures() -> None:
    found = figures.parse(PRINTED)
    assert found == {
        "helpdesk: env.reset() in-process (the gym API) p50": figures.Figure(0.5, "ms"),
        "helpdesk: env.reset() in-process (the gym API) p99": figures.Figure(9.0, "ms"),
        "memory per idle live episode": figures.Figure(0.15, "MB"),
        "16 episodes, through the proxy (aiohttp)": figures.Figure(1200, "req/s"),
        "16 episodes, through the proxy (aiohttp): share of direct": figures.Figure(60, "%"),
        "proxy on the wire: a comment, never a figure": figures.Figure(2, "ms")}


def test_the_table_marks_met_and_unmet_and_the_ratio_to_the_previous_release() -> None:
    this = figures.parse(PRINTED)
    before = {"helpdesk: env.reset() in-process (the gym API) p50": figures.Figure(1.0, "ms")}
    rows = {row.name: row for row in figures.rows(this, before)}
    p50 = rows["helpdesk: env.reset() in-process (the gym API) p50"]
    assert (p50.target, p50.met, p50.ratio, p50.verdict) == ("<= 1 ms", True, "0.50x", "yes")
    p99 = rows["helpdesk: env.reset() in-process (the gym API) p99"]
    assert (p99.target, p99.met, p99.ratio, p99.verdict) == ("<= 5 ms", False, "—", "NO")
    share = rows["16 episodes, through the proxy (aiohttp): share of direct"]
    assert (share.target, share.met) == (">= 80 %", False)
    untargeted = rows["proxy on the wire: a comment, never a figure"]
    assert (untargeted.target, untargeted.verdict) == ("—", "—")
    printed = figures.table(list(rows.values()), "55b26ceae716")
    assert "2 targets met, 2 not met" in printed
    assert "previous release: 55b26ceae716" in printed


def test_a_relative_target_needs_the_previous_release() -> None:
    this = {"whole episodes/s at 64 agents": figures.Figure(120, "/s")}
    [alone] = figures.rows(this, None)
    assert (alone.target, alone.met, alone.verdict) == (">= 10 x previous", None, "?")
    [beside] = figures.rows(this, {"whole episodes/s at 64 agents": figures.Figure(12, "/s")})
    assert (beside.met, beside.ratio) == (True, "10.00x")


def test_the_markdown_goes_into_its_block_and_nowhere_else(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n<!-- bench-figures:begin -->\nold\n<!-- bench-figures:end -->\n"
                      "after\n")
    rows = figures.rows(figures.parse(PRINTED), None)
    figures.write_markdown(readme, "bench-figures", figures.markdown(rows, "not measured"))
    text = readme.read_text()
    assert text.startswith("# Title\n<!-- bench-figures:begin -->\n| figure | target |")
    assert "old" not in text and text.endswith("<!-- bench-figures:end -->\nafter\n")
    assert "| memory per idle live episode | <= 0.2 MB | — | 0.150 MB | yes |" in text
    assert "a comment" not in text  # only the figures with a target
    with pytest.raises(ValueError, match="no block <!-- load-figures:begin -->"):
        figures.write_markdown(readme, "load-figures", "x")
