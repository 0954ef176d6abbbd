"""``workgym report``: a real short bench run (two tasks, two trials, in-process, with a
telemetry URL so that episodes link their pages) rendered to HTML; its plots, numbers and
links, in Debian's headless Chromium; and the rendering of what such a run may hold
(errors, harm, tokens, no faults)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser import BROWSER
from workgym.agents.reference import reference
from workgym.bench.report import fault_bars, histogram, render, tokens, write_report
from workgym.bench.results import Results, now
from workgym.bench.runner import plan, product, run
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.settings import Settings

TASKS = ("tracker/start-work-on-bug", "helpdesk/fault-refund-timeout-after")
TELEMETRY = "http://telemetry.test"
SCREENSHOT = os.environ.get("WORKGYM_BENCH_SCREENSHOT")  # a .png path: to look at the page


@pytest.fixture(scope="module")
def results(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The results file of the reference agent on TASKS, seed 0, 2 trials."""
    server = LocalServer(settings.model_copy(update={
        "telemetry_url": TELEMETRY, "api_key": "wgk_test_bench_report"}))
    tasks = [catalogue().get(t) for t in TASKS]
    path = tmp_path_factory.mktemp("report") / "run.json"
    header = {"agent": "reference", "suite": None, "selection": list(TASKS),
              "tasks": list(TASKS), "seeds": [0], "trials": 2, "faults": "task", "url": None,
              "started": now(), "workgym_version": "test", "command": "workgym bench ..."}
    recorded = Results.create(path, header)
    try:
        run(plan(product(tasks, [0]), 2),
            lambda task, seed, faults: Env.inprocess(server, task, seed, faults),
            reference, 2, recorded.add)
    finally:
        server.close()
    recorded.finish()
    yield path


def test_report_is_written_next_to_the_results_and_holds_everything(results: Path) -> None:
    out = write_report(results)
    assert out == results.with_suffix(".html")
    html = out.read_text()
    for fragment in ("<svg class=\"chart histogram\"", "<svg class=\"chart curve\"",
                     "<svg class=\"chart tasks\"", "<svg class=\"chart faults\"",
                     'href="run.json"', f'href="{TELEMETRY}/episodes/ep_', "pass^2"):
        assert fragment in html
    assert "http://" not in html.replace(TELEMETRY, ""), "no URL but the episodes' pages"


def in_chromium(test: Callable[..., None]) -> Callable[..., None]:
    """A test of the page in Chromium: the BROWSER marks (this module's others need none)."""
    for mark in BROWSER:
        test = mark(test)
    return test


@in_chromium
def test_report_in_chromium_draws_its_plots_and_links(results: Path, browser: Browser,
                                                      tmp_path: Path) -> None:
    out = write_report(results, tmp_path / "report.html")
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: problems.append(str(e)))
    fetched: list[str] = []
    tab.on("request", lambda r: fetched.append(r.url))
    tab.goto(out.as_uri())

    charts = tab.locator("svg.chart")
    expect(charts).to_have_count(4)
    for i in range(4):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 50
    expect(tab.locator("svg.tasks rect.task-bar")).to_have_count(len(TASKS))
    expect(tab.locator("svg.tasks text").filter(has_text=TASKS[0])).to_have_count(1)
    bars = tab.locator("svg.histogram rect.bar")
    expect(bars).to_have_count(1)  # every reward is 1.0: one bin, the last
    box = bars.first.bounding_box()
    assert box is not None and box["height"] > 50
    expect(tab.locator("svg.curve circle")).to_have_count(4)  # pass^k, pass@k at k = 1, 2
    expect(tab.locator("svg.faults rect.fault-bar")).to_have_count(2)  # met, recovered
    expect(tab.locator("#pass-hat-k")).to_have_text("1.00")
    links = tab.locator("a.episode-page")
    expect(links).to_have_count(4)
    for i in range(4):
        assert (links.nth(i).get_attribute("href") or "").startswith(f"{TELEMETRY}/episodes/ep_")
    assert tab.locator("a.results").get_attribute("href") == os.path.relpath(results, tmp_path)
    if SCREENSHOT:
        tab.screenshot(path=SCREENSHOT, full_page=True)
    context.close()
    assert problems == []
    assert fetched == [out.as_uri()], "the report loads nothing else"


def test_render_shows_errors_harm_tokens_and_no_faults(tmp_path: Path) -> None:
    base = {"seed": 0, "signals": {}, "steps": 2, "duration_s": 0.1, "episode_page": None,
            "final_state_hash": None, "harm": False,
            "faults": {"injected": 0, "recovered": 0, "met": []}}
    episodes = [
        {**base, "task": "a/x", "trial": 0, "reward": -1.0, "success": False, "harm": True,
         "episode_id": "ep_1", "tokens": {"total_tokens": 321}, "error": None},
        {**base, "task": "a/x", "trial": 1, "reward": 0.0, "success": False, "steps": None,
         "episode_id": None, "tokens": None, "error": "RuntimeError: <model> said no"},
    ]
    header = {"agent": "openai:m", "suite": "a", "selection": [], "tasks": ["a/x"],
              "seeds": [0], "trials": 3, "faults": "none", "url": "http://gym:8000",
              "started": now(), "finished": None, "workgym_version": "test", "command": "c"}
    html = render(Results(tmp_path / "r.json", header, episodes))
    assert "RuntimeError: &lt;model&gt; said no" in html  # escaped
    assert "321" in html and "No fault was injected" in html and "unfinished" in html
    assert "2 of 3 episodes" in html
    assert fault_bars(episodes) is None
    assert tokens({"prompt_tokens": 3, "completion_tokens": 1}) == \
        "prompt_tokens 3, completion_tokens 1"
    bins = histogram([-1.0, 0.0, 0.95, 1.0])
    assert [b.kind for b in bins.bars] == ["fail", "partial", "pass"]  # 0.95 and 1.0 together


def test_render_shows_faults_that_ask_nothing_as_met_and_no_curve_for_one_trial(
        tmp_path: Path) -> None:
    """Latency asks nothing of the agent: met, never '0/3 recovered'; one trial: no pass^k
    plot, a line saying why; times that do not wrap; infra failures in a section apart."""
    latency = {"kind": "latency", "step": 0, "recovered": None}
    base = {"seed": 0, "signals": {}, "steps": 2, "duration_s": 12.3, "episode_page": None,
            "final_state_hash": None, "harm": False, "tokens": None, "error": None,
            "reward": 1.0, "success": True, "trial": 0}
    episodes = [
        {**base, "task": "a/x", "episode_id": "ep_1",
         "faults": {"injected": 3, "recovered": 0, "met": [latency] * 3}},
        {**base, "task": "a/y", "episode_id": "ep_2",
         "faults": {"injected": 2, "recovered": 1, "met": [
             latency, {"kind": "server_error", "step": 1, "recovered": True}]}},
        {**base, "task": "a/z", "episode_id": None, "reward": 0.0, "success": False,
         "faults": {"injected": 0, "recovered": 0, "met": []},
         "infra_error": "model endpoint unreachable: ModelEndpointError: down"},
    ]
    header = {"agent": "reference", "suite": "a", "selection": [], "tasks": ["a/x", "a/y"],
              "seeds": [0], "trials": 1, "faults": "task", "url": None, "started": now(),
              "finished": now(), "workgym_version": "test", "command": "c"}
    plot = fault_bars(episodes)
    assert plot is not None
    rows = {row.label: row for row in plot.rows}
    assert rows["latency"].value == "4 met" and len(rows["latency"].bars) == 1
    assert rows["latency"].bars[0].kind == "met asks-nothing"
    assert rows["server_error"].value == "1/1" and len(rows["server_error"].bars) == 2

    html = render(Results(tmp_path / "r.json", header, episodes))
    assert "0/4" not in html and "0/3" not in html
    cells = re.findall(r'<td class="num">([^<]*)</td>\s*<td class="num">12.30', html)
    assert cells == ["-", "1/1", "-"]  # latency alone asks nothing: no recovery to count
    assert '<svg class="chart curve"' not in html
    assert "One trial per problem: pass^k and pass@k are pass@1 (1.00)" in html
    assert "12.30&nbsp;s" in html and " s</td>" not in html
    assert re.search(r"td\.num \{[^}]*white-space:nowrap", html)
    infra = html[html.index('<section id="infra">'):]
    assert "model endpoint unreachable</td><td class=\"num\">1</td>" in infra
