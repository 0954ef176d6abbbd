"""``workgym bench --agent`` with browser agents, on a served gym: ``browser-reference`` (the
task's ``browser:`` script; a task without one is that episode's error) and a policy of the
user's, ``browser:<module>:<callable>`` (BrowserGym's observation in, an action string out,
None when done): results, table and report as for API agents, with the seconds of each
browser step."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import BROWSER
from workgym.app import create_app
from workgym.cli import main
from workgym.tasks import catalogue
from workgym_core.settings import Settings

from ..serving import serving_app

pytestmark = BROWSER
SOLVED = "checkout/test-order-3ds"  # has a browser: solution
UNSOLVED = next(t.id for t in catalogue() if t.browser is None)
KEY = "wgk_test_bench_browser"
TOLD = "I have not placed the order."


def tell_then_stop(obs: dict[str, Any]) -> str | None:
    """A policy: checks BrowserGym's observation, tells the user one thing, then is done."""
    assert {"goal", "axtree_txt", "screenshot", "url", "open_pages_urls",
            "chat_messages"} <= set(obs)
    if any(message["role"] == "assistant" for message in obs["chat_messages"]):
        return None
    return f"send_msg_to_user({TOLD!r})"


def crash(obs: dict[str, Any]) -> str | None:
    raise RuntimeError("the policy crashed")


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("gym"), api_key=KEY,
                        internal_secret="test-secret")
    with serving_app(lambda url: create_app(settings.model_copy(
            update={"public_url": url}))) as url:
        yield url


@pytest.fixture(autouse=True)
def operator_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKGYM_API_KEY", KEY)


def _bench(gym: str, out: Path, agent: str, tasks: str, capsys: pytest.CaptureFixture[str]
           ) -> tuple[str, dict[str, dict[str, Any]]]:
    assert main(["bench", "--tasks", tasks, "--seeds", "0", "--agent", agent,
                 "--concurrency", "2", "--url", gym, "--out", str(out)]) == 0
    episodes = {e["task"]: e for e in json.loads(out.read_text())["episodes"]}
    return capsys.readouterr().out, episodes


def test_browser_reference_runs_the_tasks_browser_script_and_times_its_steps(
        gym: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.json"
    stdout, episodes = _bench(gym, out, "browser-reference", f"{SOLVED},{UNSOLVED}", capsys)

    solved, unsolved = episodes[SOLVED], episodes[UNSOLVED]
    assert solved["success"] is True and solved["error"] is None
    assert solved["steps"] > 0 and len(solved["step_s"]) > 5
    # Its page writes are its tool calls; its page loads (the start page too) are not.
    calls = solved["tool_calls"]
    assert calls["made"] == calls["reached_app"] > 0 and calls["page_loads"] > 0
    assert calls["made"] + calls["page_loads"] == solved["steps"]
    assert all(seconds > 0 for seconds in solved["step_s"])
    assert unsolved["error"] == f"ValueError: task {UNSOLVED} has no browser: solution"
    assert unsolved["success"] is False and unsolved["step_s"] is None
    lines = stdout.splitlines()
    assert lines[0].split() == ["task", "score", "status", "time", "step", "p50"]
    row = next(line.split() for line in lines if line.startswith(SOLVED))
    assert row[2] == "1/1" and float(row[5]) > 0 and row[6] == "s"
    steps = len(solved["step_s"])
    assert f"({steps} steps)" in stdout
    assert "browser step p50" in out.with_suffix(".html").read_text()


def test_a_policy_gets_browsergyms_observation_and_its_message_is_the_answer(
        gym: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = f"browser:{__name__}:tell_then_stop"
    stdout, episodes = _bench(gym, tmp_path / "run.json", agent, SOLVED, capsys)

    episode = episodes[SOLVED]
    assert episode["error"] is None and episode["success"] is False
    assert len(episode["step_s"]) == 1  # one action, then None: done
    assert episode["signals"]["task_completion"] == 0
    # It loaded pages (the start page) and wrote none: no tool call, and the task needs some
    assert episode["tool_calls"]["made"] == 0 and episode["tool_calls"]["page_loads"] > 0
    assert "ALARM: the agent made no tool call (1 episode)" in stdout


def test_a_crashing_policy_fails_its_episode(gym: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _, episodes = _bench(gym, tmp_path / "run.json", f"browser:{__name__}:crash", SOLVED, capsys)

    assert episodes[SOLVED]["error"] == "RuntimeError: the policy crashed"
    assert episodes[SOLVED]["step_s"] == []


def test_a_malformed_browser_agent_is_refused_by_the_command_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "--tasks", SOLVED, "--agent", "browser:no-such"])
    assert exited.value.code == 2
    assert "browser-reference or browser:<module>:<callable>" in capsys.readouterr().err


@pytest.mark.parametrize(("agent", "said"), [
    ("browser:no_such_module:act", "no module 'no_such_module' to import"),
    (f"browser:{__name__}:absent", f"{__name__} has no callable 'absent'"),
])
def test_a_policy_that_is_not_there_is_refused_before_the_run(
        gym: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], agent: str,
        said: str) -> None:
    out = tmp_path / "run.json"
    assert main(["bench", "--tasks", SOLVED, "--agent", agent, "--url", gym,
                 "--out", str(out)]) == 2
    assert said in capsys.readouterr().err and not out.exists()
