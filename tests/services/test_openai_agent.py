"""The model's agent (``openai:MODEL``, workgym.agents.openai_agent) against a scripted
OpenAI-compatible endpoint on loopback: OpenAI's real client and the agent's real loop, the
episode scored by the gym; the request it sends, retries, malformed tool calls, the step
budget, token accounting, and the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import workgym_cli
from workgym.agents import resolve
from workgym.agents.openai_agent import INSTALL, ChatAgent, ModelEndpointError
from workgym.processes import free_port, workgym
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.errors import ConfigError, WorkGymError

from ..scripted_model import FakeModel, scripted_model
from ..scripted_model import usage as scripted_usage

TASK = "tracker/start-work-on-bug"
KEY = "test-key"
START_PROGRESS = "4"  # the bug workflow's "Start progress" transition (test_session.py)
BAD_JSON = '{"issue": "SHOP-1", "body": {"transition": '


def _call(turn: int, index: int, name: str, arguments: str | dict[str, Any]) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{turn}_{index}", "type": "function",
            "function": {"name": name, "arguments": text}}


def solver(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Solves the task in four turns, reading what it needs from the conversation: who am I,
    a transition with broken JSON, the transition and the assignment in one turn, finish."""
    turn = sum(m["role"] == "assistant" for m in messages)
    found = re.search(r"Bug ([A-Z]+-\d+)", messages[1]["content"])
    assert found, messages[1]
    key = found.group(1)
    tool_texts = [m["content"] for m in messages if m["role"] == "tool"]
    if turn == 0:
        calls = [_call(0, 0, "tracker_get_myself", "")]  # no arguments: "" as some servers
    elif turn == 1:
        calls = [_call(1, 0, "tracker_do_transition", BAD_JSON)]
    elif turn == 2:
        me = re.search(r'"accountId"\s*:\s*"([^"]+)"', tool_texts[0])
        assert me, tool_texts[0]
        calls = [_call(2, 0, "tracker_do_transition",
                       {"issue": key, "body": {"transition": {"id": START_PROGRESS}}}),
                 _call(2, 1, "tracker_assign_issue",
                       {"issue": key, "body": {"accountId": me.group(1)}})]
    else:
        return {"role": "assistant", "content": "Done.", "tool_calls": [
            _call(turn, 0, "finish", {"answer": f"Started progress on {key}, assigned to me."})]}
    return {"role": "assistant", "content": None, "tool_calls": calls}


def looper(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Never finishes: asks who it is, forever."""
    turn = sum(m["role"] == "assistant" for m in messages)
    return {"role": "assistant", "content": "Let me check again.",
            "tool_calls": [_call(turn, 0, "tracker_get_myself", {})]}


def talker(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Answers in text, without a tool call."""
    return {"role": "assistant", "content": "  I would rather not.  "}


SCRIPTS: dict[str, Callable[[list[dict[str, Any]]], dict[str, Any]]] = {
    "fake": solver, "loop": looper, "talk": talker}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModel]:
    with scripted_model(SCRIPTS) as model:
        yield model


@pytest.fixture
def model(fake: FakeModel) -> FakeModel:
    fake.requests.clear()
    fake.keys.clear()
    fake.failures.clear()
    fake.dies_after = None
    return fake


def _agent(fake: FakeModel, name: str = "fake", **options: Any) -> ChatAgent:
    return ChatAgent(name, base_url=fake.url, api_key=KEY, max_retries=2, timeout=10,
                     **options)


def test_the_model_solves_a_task_through_the_real_client_and_loop(
        model: FakeModel, make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 3, "none")
    obs = env.reset()
    agent = _agent(model, seed=7)
    model.failures.append(500)  # the first request fails, the client retries it
    answer = agent(env, catalogue().get(TASK))
    report = env.finish(answer=answer)
    assert report["reward"] == 1.0, report
    assert answer is not None and answer.startswith("Started progress on SHOP-")

    # 4 turns, 5 requests: the 500 and its retry carried the same conversation.
    assert len(model.requests) == 5 and model.requests[0] == model.requests[1]
    first = model.requests[1]
    assert first["model"] == "fake" and first["temperature"] == 0 and first["seed"] == 7
    assert first["messages"] == [{"role": "system", "content": obs.brief},
                                 {"role": "user", "content": obs.instruction}]
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == [*(t["function"]["name"] for t in obs.tools), "finish"]
    assert set(model.keys) == {f"Bearer {KEY}"}

    # The broken JSON was said back as the tool's answer, and the loop went on.
    third = model.requests[3]["messages"]
    said = next(m for m in third if m.get("tool_call_id") == "call_1_0")
    assert said["role"] == "tool" and "not valid JSON" in said["content"]
    assert third[-1]["role"] == "tool"  # the conversation ends on the tool's answer
    # Both calls of one turn were run, each answered under its own id.
    last = model.requests[4]["messages"]
    assert [m["tool_call_id"] for m in last[-2:]] == ["call_2_0", "call_2_1"]
    assert all(m["content"].startswith("HTTP 204") for m in last[-2:]), last[-2:]
    assert last[-3]["role"] == "assistant" and len(last[-3]["tool_calls"]) == 2
    # get_myself (its "" arguments as {}), the two calls that changed the issue; never the
    # broken one
    assert report["steps"] == 3

    usage = agent.usage.pop(obs.episode_id)
    turns = [scripted_usage(turn) for turn in range(4)]
    assert usage == {"prompt_tokens": sum(u["prompt_tokens"] for u in turns),
                     "completion_tokens": sum(u["completion_tokens"] for u in turns),
                     "total_tokens": sum(u["total_tokens"] for u in turns),
                     "requests": 5, "turns": 4}
    assert agent.usage == {}


def test_the_step_budget_stops_a_model_that_never_finishes(
        model: FakeModel, make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    agent = _agent(model, "loop", max_steps=3)
    assert agent(env, catalogue().get(TASK)) is None
    assert env.state()["steps"] == 3  # three tool calls ran, the fourth never did
    assert agent.usage[obs.episode_id]["turns"] == 4
    assert env.finish()["reward"] == 0.0

    # Its last step spent, a model may still finish (4 calls, then finish on the 5th turn).
    env = make_env(TASK, 3, "none")
    env.reset()
    answer = _agent(model, max_steps=4)(env, catalogue().get(TASK))
    assert answer is not None and answer.startswith("Started progress")
    assert env.finish(answer=answer)["reward"] == 1.0

    # No budget given: the episode's own.
    env = make_env(TASK, 2, "none")
    obs = env.reset()
    agent = _agent(model, "loop")
    assert agent(env, catalogue().get(TASK)) is None
    assert env.state()["steps"] == obs.max_steps
    assert agent.usage[obs.episode_id]["turns"] == obs.max_steps + 1


def test_a_reply_without_a_tool_call_is_the_answer(
        model: FakeModel, make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    agent = _agent(model, "talk", temperature=None)
    assert agent(env, catalogue().get(TASK)) == "I would rather not."
    assert "temperature" not in model.requests[0] and "seed" not in model.requests[0]
    assert agent.usage[obs.episode_id] == {**scripted_usage(0), "requests": 1, "turns": 1}


def test_one_agent_runs_episodes_in_threads_each_counted_apart(
        model: FakeModel, make_env: Callable[..., Env]) -> None:
    agent, task = _agent(model), catalogue().get(TASK)
    envs = [make_env(TASK, seed, "none") for seed in (4, 5)]

    def run(env: Env) -> tuple[str, float]:
        episode = env.reset().episode_id
        return episode, env.finish(answer=agent(env, task))["reward"]

    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(run, envs))
    assert [reward for _, reward in done] == [1.0, 1.0]
    assert sorted(agent.usage) == sorted(episode for episode, _ in done)
    assert all(agent.usage.pop(episode)["turns"] == 4 for episode, _ in done)


def test_hard_failures_are_clear_errors(
        model: FakeModel, make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 1, "none")
    env.reset()
    task = catalogue().get(TASK)
    with pytest.raises(ModelEndpointError, match="HTTP 401: Incorrect API key.*OPENAI_API_KEY"):
        ChatAgent("fake", base_url=model.url, api_key="wrong")(env, task)
    with pytest.raises(ModelEndpointError, match="HTTP 404: The model `nope` does not exist"):
        _agent(model, "nope")(env, task)
    model.failures.extend([429, 429, 429])  # retried twice, then given up
    with pytest.raises(ModelEndpointError, match="HTTP 429: overloaded"):
        _agent(model)(env, task)
    assert len(model.requests) == 2 + 3
    unreachable = f"http://127.0.0.1:{free_port()}/v1"
    agent = ChatAgent("fake", base_url=unreachable, api_key=KEY, max_retries=1, timeout=2)
    with pytest.raises(ModelEndpointError,
                       match="did not answer model 'fake' .after 1 retries") as caught:
        agent(env, task)
    assert isinstance(caught.value, WorkGymError) and unreachable in str(caught.value)
    assert env.state()["steps"] == 0


def test_keys_and_the_missing_extra(model: FakeModel, make_env: Callable[..., Env],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ChatAgent("fake")
    # A local server (OPENAI_BASE_URL alone) gets a placeholder key; resolve() builds it.
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    agent = resolve("openai:talk")
    env = make_env(TASK, 1, "none")
    env.reset()
    assert agent(env, catalogue().get(TASK)) == "I would rather not."
    assert model.keys == ["Bearer EMPTY"]
    monkeypatch.setitem(sys.modules, "openai", None)  # not installed
    with pytest.raises(ConfigError, match=re.escape(INSTALL)):
        ChatAgent("fake")


def test_the_cli_runs_the_model(model: FakeModel, tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path), "OPENAI_BASE_URL": model.url,
           "OPENAI_API_KEY": KEY}
    out = workgym_cli("run", "--task", TASK, "--seed", "3", "--agent", "openai:fake", env=env)
    assert f"{TASK}  seed=3  agent=openai:fake" in out
    assert "reward: 1.000" in out, out
    assert len(model.requests) == 4
    failed = subprocess.run(workgym("run", "--task", TASK, "--agent", "openai:nope"), env=env,
                            capture_output=True, text=True, timeout=180, check=False)
    assert failed.returncode == 2, failed.stderr
    assert failed.stderr == (  # the preflight's line: no episode was started
        f"workgym: error: the model endpoint {model.url} does not serve model 'nope' (it "
        "serves fake, loop, talk): check the model's name in --agent openai:MODEL\n")


def test_bench_checks_the_model_endpoint_before_it_runs(
        model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A dead endpoint, then a live one without the model: one line each, exit 2, no
    results file, not one episode."""
    from workgym.cli import main

    out = tmp_path / "r.json"
    bench = ["bench", "--tasks", TASK, "--out", str(out), "--agent"]
    dead = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", dead)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert main([*bench, "openai:fake"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"workgym: error: the model endpoint {dead} did not answer GET /models (after 1 "
        "retries: Connection error.): check OPENAI_BASE_URL and that the server is up"), err
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    assert main([*bench, "openai:nope"]) == 2
    assert capsys.readouterr().err == (
        f"workgym: error: the model endpoint {model.url} does not serve model 'nope' (it "
        "serves fake, loop, talk): check the model's name in --agent openai:MODEL\n")
    assert not out.exists() and model.requests == []


def test_an_endpoint_that_dies_mid_run_stops_the_bench_and_resume_finishes_it(
        model: FakeModel, tmp_path: Path) -> None:
    """The model's server goes down after the first episode: the episodes it fails are infra
    failures (not scored: pass@1 stays 1.00), counted by what failed; past
    --max-infra-errors 1 the run stops (exit 3) with episodes left; once the server is back,
    --resume runs them and the failed ones again. With --trajectories, an episode carries the
    model's own conversation."""
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path / "gym"),
           "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": KEY}
    out = tmp_path / "run.json"
    model.dies_after = 4  # the solver's four turns: one episode
    stopped = subprocess.run(
        workgym("bench", "--tasks", TASK, "--seeds", "0-5", "--agent", "openai:fake",
                "--concurrency", "1", "--max-infra-errors", "1", "--faults", "none",
                "--trajectories", "--out", str(out)),
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert stopped.returncode == 3, stopped.stderr
    document = json.loads(out.read_text())
    assert document["header"]["finished"] is None
    passed, *failed = document["episodes"]
    n = len(failed)  # past 1: the 2nd stops the run (a 3rd may have started meanwhile)
    assert n in (2, 3)
    assert f"pass@1 1.00 [1.00, 1.00] · avg score 1.00 [1.00, 1.00] · {n + 1} episodes" \
        in stopped.stdout
    assert f"{n} infra failures (not scored): model endpoint HTTP 503 ×{n}" in stopped.stdout
    assert f"workgym: bench stopped early: {n} infra failures (not scored): model endpoint " \
        f"HTTP 503 ×{n}, more than --max-infra-errors 1; 5 of 6 episodes to run: once fixed, " \
        f"`workgym bench --resume {out}` runs them" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert passed["success"] is True and passed["infra_error"] is None
    assert [e["infra_error"].split(":")[0] for e in failed] == ["model endpoint HTTP 503"] * n
    assert all(e["error"] is None and e["reward"] == 0.0 for e in failed)
    conversation = passed["trajectory"]["messages"]
    assert conversation[:2] == model.requests[0]["messages"]
    assert conversation[-1]["tool_calls"][0]["function"]["name"] == "finish"
    assert passed["trajectory"]["tools"][-1]["function"]["name"] == "finish"

    model.dies_after = None
    stdout = workgym_cli("bench", "--resume", str(out), env=env)
    resumed = json.loads(out.read_text())
    assert resumed["header"]["finished"]
    assert sorted(e["seed"] for e in resumed["episodes"]) == list(range(6))
    assert all(e["success"] and e["infra_error"] is None for e in resumed["episodes"])
    assert "pass@1 1.00" in stdout and "infra" not in stdout
