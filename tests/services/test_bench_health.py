"""Tool-call health (workgym.bench.health): each episode's tool calls as the bench records
them (the gym's steps, and what the agent counted as never sent), and the run's alarms (no
tool call, most calls malformed, a task that needs calls and got none), whatever the reward,
in the table, the metrics line, stderr and the HTML report. Models are scripted
(tests/scripted_model.py); the agent's loop and OpenAI's client are real."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from workgym.agents import resolve
from workgym.agents.openai_agent import ChatAgent
from workgym.bench.health import NO_CALLS, REFUSALS_KEPT, tool_calls
from workgym.bench.metrics import summarize
from workgym.bench.report import render
from workgym.bench.results import Results
from workgym.bench.runner import Planned, run_episode
from workgym.bench.summary import metrics_line, table
from workgym.errors import Refused, UnknownName
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym.tools import refused
from workgym_core.errors import InvalidRequest

from ..scripted_model import FakeModel, scripted_model

TASK = "tracker/start-work-on-bug"  # its reference takes 4 steps: an answer alone fails
KEY = "test-key"


def _call(turn: int, name: str, arguments: str) -> dict[str, Any]:
    return {"id": f"call_{turn}", "type": "function",
            "function": {"name": name, "arguments": arguments}}


def _calls_then_finish(*calls: tuple[str, str]) -> Callable[[list[dict[str, Any]]],
                                                              dict[str, Any]]:
    """A model that makes ``calls`` (name, arguments as written), one a turn, then finishes."""
    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        turn = sum(m["role"] == "assistant" for m in messages)
        name, arguments = calls[turn] if turn < len(calls) else ("finish", '{"answer": "ok"}')
        return {"role": "assistant", "content": None,
                "tool_calls": [_call(turn, name, arguments)]}
    return script


def talker(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Answers in text and never calls a tool (what a parser mismatch looks like)."""
    return {"role": "assistant", "content": "I started progress on the bug and took it."}


SCRIPTS = {
    "talk": talker,
    # Tool calls in the model's own format: not the JSON the endpoint's parser expects.
    "broken": _calls_then_finish(*[("tracker_get_myself", "<arguments>{}</arguments>")] * 3),
    "unknown": _calls_then_finish(("jira_get_myself", "{}"), ("tracker_get_myself", "{}")),
    "missing": _calls_then_finish(("tracker_get_issue", '{"issue": "NOPE-1"}'),
                                  ("tracker_get_issue", '{"isue": "SHOP-1"}')),
}


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with scripted_model(SCRIPTS) as fake:
        yield fake


def _episode(local: LocalServer, agent: Any, seed: int = 1) -> dict[str, Any]:
    """One episode's record, as the bench runs it (no faults)."""
    return run_episode(lambda task, s, faults: Env.inprocess(local, task, s, faults), agent,
                       Planned(catalogue().get(TASK), seed, 0, "none"))


def _chat(model: FakeModel, name: str) -> ChatAgent:
    return ChatAgent(name, base_url=model.url, api_key=KEY, max_retries=0, timeout=10)


def test_the_reference_agent_counts_its_steps_and_raises_no_alarm(local: LocalServer) -> None:
    record = _episode(local, resolve("reference"))
    calls = record["tool_calls"]
    assert record["success"] and calls["made"] == calls["reached_app"] == record["steps"] == 4
    assert (calls["malformed"], calls["unknown_tool"], calls["refused"]) == (
        0, 0, {"4xx": 0, "5xx": 0})
    assert sum(calls["statuses"].values()) == 4 and calls["refusals"] == []
    summary = summarize([record], 1)
    assert summary.alarms == [] and not summary.tasks[0].no_calls
    assert summary.health is not None and summary.health.per_episode_p50 == 4.0
    assert "ALARM" not in metrics_line(summary, 1) and NO_CALLS not in table(summary)


def test_a_model_that_only_talks_is_alarmed_whatever_its_reward(
        local: LocalServer, model: FakeModel) -> None:
    record = _episode(local, _chat(model, "talk"))
    assert record["reward"] <= 0 and record["error"] is None
    assert record["tool_calls"]["made"] == 0
    alarmed = summarize([record], 1)
    assert alarmed.alarms == ["the agent made no tool call (1 episode): is the model's "
                              "tool-call format the one its server's tool parser reads?"]
    assert alarmed.tasks[0].no_calls
    # The alarm is about the calls, not the reward: the same run scored 1.0 is alarmed alike.
    lucky = summarize([{**record, "reward": 1.0, "success": True}], 1)
    assert lucky.alarms == alarmed.alarms and lucky.pass_at_1 == 1.0
    line = metrics_line(lucky, 1)
    assert "0 tool calls (0 per episode, median) · - malformed" in line
    assert line.endswith(f"ALARM: {alarmed.alarms[0]}")
    assert table(lucky).splitlines()[-1].endswith(f"1/1    {record['duration_s']:>4.2f} s  "
                                                  f"{NO_CALLS}")


def test_a_model_whose_calls_are_all_malformed_is_alarmed(
        local: LocalServer, model: FakeModel) -> None:
    agent = _chat(model, "broken")
    record = _episode(local, agent)
    calls = record["tool_calls"]
    assert (calls["made"], calls["malformed"], calls["reached_app"]) == (3, 3, 0)
    assert agent.not_sent == {}  # the runner popped the episode's count
    summary = summarize([record], 1)
    assert summary.health is not None and summary.health.malformed_share == 1.0
    assert summary.alarms == ["3 of 3 tool calls malformed (100%): is the model's tool-call "
                              "format the one its server's tool parser reads?"]


def test_unknown_tools_and_refusals_are_counted_by_kind_and_status(
        local: LocalServer, model: FakeModel) -> None:
    unknown = _episode(local, _chat(model, "unknown"))["tool_calls"]
    assert (unknown["made"], unknown["unknown_tool"], unknown["reached_app"]) == (2, 1, 1)
    assert unknown["statuses"] == {"200": 1}
    missing = _episode(local, _chat(model, "missing"))["tool_calls"]
    assert (missing["made"], missing["malformed"], missing["reached_app"]) == (2, 1, 1)
    assert missing["refused"] == {"4xx": 1, "5xx": 0} and missing["statuses"] == {"404": 1}
    [refusal] = missing["refusals"]
    assert refusal == {"step": 0, "app": "tracker", "method": "GET",
                       "path": "/issue/NOPE-1", "status": 404,
                       "code": "issue_not_found", "fault": None}
    # Half the calls (not most) malformed or unknown: counted, no alarm
    assert summarize([{"task": TASK, "seed": 1, "trial": 0, "reward": 0.0, "success": False,
                       "duration_s": 1.0, "tool_calls": calls} for calls in (unknown, missing)],
                     1).alarms == []


def _record(task: str, made: int, malformed: int = 0, **more: Any) -> dict[str, Any]:
    steps = [{"app": "tracker", "method": "POST", "path": f"/x/{i}",
              "status": (200, 404, 503)[i % 3], "error_code": "E" if i % 3 else None}
             for i in range(made - malformed)]
    return {"task": task, "seed": 0, "trial": 0, "reward": 1.0, "success": True,
            "duration_s": 1.0, "tool_calls": tool_calls(steps, {"malformed": malformed}),
            **more}


def test_why_a_call_was_not_sent_is_told_by_the_refusal_once() -> None:
    assert [refused(exc)["not_sent"] for exc in (
        UnknownName("tool", "x", "this episode", []), InvalidRequest("no argument 'y'"),
        Refused(503, {"code": "unavailable", "message": "down"}))] == [
        "unknown_tool", "malformed", "gym_refused"]


def test_a_record_keeps_the_first_refusals_and_counts_them_all() -> None:
    calls = _record(TASK, 250, 10)["tool_calls"]
    assert (calls["made"], calls["reached_app"], calls["malformed"]) == (250, 240, 10)
    assert calls["refused"] == {"4xx": 80, "5xx": 80}
    assert calls["statuses"] == {"200": 80, "404": 80, "503": 80}
    assert len(calls["refusals"]) == REFUSALS_KEPT and calls["refusals"][:2] == [
        {"step": 1, "app": "tracker", "method": "POST", "path": "/x/1", "status": 404,
         "code": "E", "fault": None},
        {"step": 2, "app": "tracker", "method": "POST", "path": "/x/2", "status": 503,
         "code": "E", "fault": None}]


def test_run_alarms_count_scored_episodes_only_and_name_silent_tasks() -> None:
    other = "helpdesk/refund-standard"
    episodes = [_record(TASK, 4), _record(other, 0), _record("gone/task", 0),
                _record(other, 9, 9, infra_error="gym unreachable: x")]  # never counted
    summary = summarize(episodes, 1)
    assert summary.health is not None and summary.health.made == 4
    assert (summary.health.episodes, summary.health.without_calls) == (3, 2)
    # a task no longer in the catalogue is not known to need calls
    assert summary.alarms == [f"no tool call in the episodes of 1 task that need some: {other}"]
    assert [row.no_calls for row in summary.tasks] == [False, True, False]
    # Most calls malformed among the scored ones
    assert summarize([_record(TASK, 5, 3)], 1).alarms[0].startswith("3 of 5 tool calls "
                                                                   "malformed (60%)")
    # Results from before the counts: no figure, no alarm
    old = {**_record(TASK, 1), "tool_calls": None}
    assert summarize([old], 1).health is None and summarize([old], 1).alarms == []


def test_the_bench_cli_shows_the_alarm_in_its_output_and_report(
        model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from workgym.cli import main

    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "talk.json"
    assert main(["bench", "--tasks", TASK, "--seeds", "0,1", "--faults", "none", "--agent",
                 "openai:talk", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    alarm = ("the agent made no tool call (2 episodes): is the model's tool-call format the "
             "one its server's tool parser reads?")
    assert f"  FAIL  {NO_CALLS}\n" in captured.out
    assert f"· 2 episodes without a call · ALARM: {alarm}\n" in captured.out
    assert f"workgym: ALARM: {alarm}\n" in captured.err
    document = json.loads(out.read_text())
    assert [e["tool_calls"]["made"] for e in document["episodes"]] == [0, 0]
    html = out.with_suffix(".html").read_text()
    assert html.index('<section id="alarms"') < html.index('<div class="cards">')
    assert f'<li class="alarm">{alarm.replace(chr(39), "&#39;")}</li>' in html
    assert '<div class="value" id="tool-calls">0</div>' in html
    assert f"{TASK}: score 0.00 [0.00, 0.00], 0/2 passed, {NO_CALLS}</title>" in html  # its bar


def test_the_report_shows_each_episodes_calls(tmp_path: Path) -> None:
    episodes = [{**_record(TASK, 5, 1), "trial": 0, "harm": False, "signals": {},
                 "steps": 4, "faults": {"injected": 0, "recovered": 0, "met": []},
                 "episode_id": "ep", "episode_page": None, "tokens": None, "error": None,
                 "infra_error": None}]
    header = {"agent": "x", "suite": None, "selection": [TASK], "tasks": [TASK], "seeds": [0],
              "trials": 1, "faults": "none", "url": None, "started": "now",
              "finished": "now", "workgym_version": "0", "command": "workgym bench"}
    html = render(Results(tmp_path / "r.json", header, episodes))
    assert '<td class="num tool-calls">5: 1 malformed, 2 refused</td>' in html
    assert '<div class="value" id="malformed">20%</div>' in html
    assert 'id="alarms"' not in html
