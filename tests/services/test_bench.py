"""``workgym bench``: the metrics (pass@k, pass^k), the results file (atomic, resumable),
the runner's error handling, and the command itself in a fresh process, then resumed."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from tests.conftest import workgym_cli
from workgym.agents.openai_agent import ModelEndpointError
from workgym.agents.reference import reference
from workgym.app import create_app
from workgym.bench import metrics
from workgym.bench.metrics import pass_at_k, pass_hat_k, summarize
from workgym.bench.results import FORMAT, Results, ResultsError, claim_next_run
from workgym.bench.runner import OpenEnv, Planned, plan, product, run, run_episode
from workgym.bench.summary import headline, metrics_line, table
from workgym.envversion import current
from workgym.errors import Refused, refusal
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.settings import Settings

from ..serving import serving_app

TASKS = ("tracker/start-work-on-bug", "helpdesk/fault-refund-timeout-after")  # short ones


# -- metrics ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "c", "k", "hat", "at"), [
    (3, 3, 3, 1.0, 1.0),  # c = n
    (3, 0, 1, 0.0, 0.0),  # c = 0
    (3, 0, 3, 0.0, 0.0),
    (3, 2, 1, 2 / 3, 2 / 3),  # k = 1: both are c / n
    (3, 2, 2, 1 / 3, 1.0),  # C(2,2)/C(3,2); n - c < k: one of any 2 passes
    (4, 2, 2, 1 / 6, 5 / 6),
    (1, 1, 1, 1.0, 1.0),
])
def test_pass_hat_k_and_pass_at_k(n: int, c: int, k: int, hat: float, at: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(hat)
    assert pass_at_k(n, c, k) == pytest.approx(at)


def test_k_above_n_is_not_estimated_and_left_out_of_averages() -> None:
    assert pass_hat_k(2, 2, 3) is None and pass_at_k(2, 1, 3) is None
    problems = {"a": (3, 3), "b": (2, 2), "c": (3, 0)}  # b has only 2 trials
    assert metrics.mean_pass_hat_k(problems, 3) == pytest.approx(0.5)
    assert metrics.mean_pass_hat_k({"b": (2, 2)}, 3) is None
    assert metrics.average([]) is None


@pytest.mark.parametrize(("n", "c", "k"), [(2, 3, 1), (2, -1, 1), (2, 1, 0)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def _episode(task: str, seed: int, trial: int, success: bool, reward: float | None = None,
             **extra: Any) -> dict[str, Any]:
    return {"task": task, "seed": seed, "trial": trial, "success": success,
            "reward": (1.0 if success else 0.0) if reward is None else reward,
            "duration_s": 0.5, "error": None, "faults": {"injected": 0, "recovered": 0,
                                                          "met": []}, **extra}


def test_summary_problems_are_task_and_seed_and_a_task_passes_when_all_its_episodes_do() -> None:
    episodes = [_episode("a", seed, trial, True) for seed in (0, 1) for trial in range(3)]
    episodes += [_episode("b", 0, 0, True), _episode("b", 0, 1, False),
                 _episode("b", 0, 2, False, reward=-1.0, error="RuntimeError: boom")]
    s = summarize(episodes, k=3)
    assert (s.episodes, s.problems, s.tasks_passed, s.errors) == (9, 3, 1, 1)
    assert s.pass_at_1 == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert s.pass_hat_k == pytest.approx(2 / 3)  # b fails pass^3
    assert s.pass_at_k == pytest.approx(1.0)
    assert s.avg_score == pytest.approx(6 / 9)  # the harm counts -1
    assert s.tokens is None
    assert [k for k, _, _ in s.curve] == [1, 2, 3]
    assert [(r.task, r.passed, r.episodes, r.ok) for r in s.tasks] == [
        ("a", 6, 6, True), ("b", 1, 3, False)]
    assert "b  " in table(s) and "1/3" in table(s) and "FAIL (1 error)" in table(s)
    assert metrics_line(s, 3).startswith(
        "pass@1 0.78 [0.33, 1.00] · pass@3 1.00 [1.00, 1.00] · pass^3 0.67 [0.00, 1.00] · ")
    assert headline(s, {"suite": "helpdesk"}, "r.json") == (
        "suite helpdesk · 2 tasks · 1/2 passed · avg score 0.67 · report saved to r.json")


# -- results file ----------------------------------------------------------------------------

def test_runs_are_numbered_after_the_highest_and_never_shared(tmp_path: Path) -> None:
    directory = tmp_path / "results"
    assert claim_next_run(directory).name == "run-0001.json"
    (directory / "run-0046.json").write_text("{}")
    assert claim_next_run(directory).name == "run-0047.json"
    assert claim_next_run(directory).name == "run-0048.json"  # the claimed one is taken


def test_results_are_rewritten_whole_and_atomically(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    results = Results.create(path, {"trials": 1})
    assert json.loads(path.read_text()) == {"format": FORMAT, "episodes": [],
                                            "header": {"trials": 1, "finished": None}}
    results.add([_episode("a", 0, 0, True)])
    results.add([_episode("a", 1, 0, False, error="X: y")])
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left
    loaded = Results.load(path)
    assert loaded.done() == {("a", 0, 0), ("a", 1, 0)}
    assert loaded.drop_errors() == 1 and loaded.done() == {("a", 0, 0)}
    loaded.finish()
    assert Results.load(path).header["finished"]
    (tmp_path / "other.json").write_text('{"not": "results"}')
    with pytest.raises(ResultsError, match="not a bench results file"):
        Results.load(tmp_path / "other.json")


def test_plan_skips_what_is_done_and_runs_first_trials_first() -> None:
    a, b = (catalogue().get(t) for t in TASKS)
    planned = plan(product([a, b], [0, 1]), 2, done={(a.id, 0, 0), (b.id, 1, 1)})
    assert [(p.task.id, p.seed, p.trial) for p in planned] == [
        (a.id, 1, 0), (b.id, 0, 0), (b.id, 1, 0), (a.id, 0, 1), (a.id, 1, 1), (b.id, 0, 1)]


# -- the runner, with a stand-in environment --------------------------------------------------

@dataclass
class _Obs:
    episode_id: str


class _FakeEnv:
    count = 0

    def __init__(self, task: str, seed: int, faults: str) -> None:
        _FakeEnv.count += 1
        self.id = f"ep_{task}_{seed}_{_FakeEnv.count}"
        self.observation: _Obs | None = None

    def __enter__(self) -> _FakeEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    def reset(self) -> _Obs:
        self.observation = _Obs(self.id)
        return self.observation

    def finish(self, answer: str | None = None) -> dict[str, Any]:
        return {"reward": 0.95, "success": True, "signals": {"efficiency": 0.5}, "steps": 3,
                "final_state_hash": "h", "episode_page": f"http://t/episodes/{self.id}",
                "faults": [{"kind": "rate_limit", "step": 1, "recovered": True},
                           {"kind": "http_5xx", "step": 2, "recovered": None}]}

    def trajectory(self) -> list[dict[str, Any]]:
        return [{"app": "helpdesk", "method": "GET", "path": "/api/v2/tickets",
                 "status": status} for status in (200, 429, 200)]


# The fake stands in for the SDK's Env: it has what the runner uses of one.
FAKE_ENV = cast(OpenEnv, _FakeEnv)


class _ModelAgent:
    """Crashes on seed 1; counts tokens as a model's agent does."""

    def __init__(self) -> None:
        self.usage: dict[str, dict[str, int]] = {}

    def __call__(self, env: Any, task: Any) -> str:
        self.usage[env.id] = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if env.id.split("_")[-2] == "1":
            raise RuntimeError("the model returned nonsense")
        return "done"


def test_a_crashing_agent_fails_its_episode_and_the_run_goes_on() -> None:
    task = catalogue().get(TASKS[0])
    recorded: list[dict[str, Any]] = []
    agent = _ModelAgent()
    run(plan(product([task], [0, 1, 2]), 1), FAKE_ENV, agent, 2, recorded.extend)
    by_seed = {e["seed"]: e for e in recorded}
    assert sorted(by_seed) == [0, 1, 2]
    crashed = by_seed[1]
    assert crashed["success"] is False and crashed["reward"] == 0.0
    assert crashed["error"] == "RuntimeError: the model returned nonsense"
    assert "the model returned nonsense" in crashed["traceback"]
    ok = by_seed[0]
    assert ok["success"] is True and ok["error"] is None and ok["steps"] == 3
    assert ok["faults"] == {"injected": 2, "recovered": 1, "met": [
        {"kind": "rate_limit", "step": 1, "recovered": True},
        {"kind": "http_5xx", "step": 2, "recovered": None}]}
    assert ok["episode_page"] == f"http://t/episodes/{ok['episode_id']}"
    assert all(e["tokens"]["total_tokens"] == 12 for e in recorded)
    assert "36 tokens" in metrics_line(summarize(recorded, 1), 1)
    assert agent.usage == {}  # popped, episode by episode


class _Flaky(_FakeEnv):
    """Refuses to start its first ``fails`` episodes: the gym unreachable."""

    fails = 0

    def reset(self) -> _Obs:
        if _Flaky.fails:
            _Flaky.fails -= 1
            raise httpx.ConnectError("[Errno 111] Connection refused")
        return super().reset()


FLAKY_ENV = cast(OpenEnv, _Flaky)


def _refused(status: int, code: str) -> Refused:
    return refusal(httpx.Response(status, json={"error": {"code": code, "message": "no"}}))


def test_infra_failures_are_told_from_the_agents_errors_and_never_scored() -> None:
    task = catalogue().get(TASKS[0])
    _Flaky.fails = 2  # starting an episode is retried: a fresh episode replays nothing
    ok = run_episode(FLAKY_ENV, lambda env, task: "done", Planned(task, 0, 0), pauses=(0, 0))
    assert ok["success"] is True and ok["error"] is None and ok["infra_error"] is None
    _Flaky.fails = 3  # past its retries
    down = run_episode(FLAKY_ENV, lambda env, task: "done", Planned(task, 1, 0), pauses=(0, 0))
    assert down["infra_error"].startswith("gym unreachable: ConnectError") and \
        down["error"] is None

    def failing(exc: Exception) -> Any:
        def agent(env: Any, task: Any) -> str:
            raise exc
        return agent

    # Once an episode is under way, nothing is replayed: the failure is recorded.
    lost = run_episode(FAKE_ENV, failing(_refused(502, "episode_lost")), Planned(task, 2, 0))
    busy = run_episode(FAKE_ENV, failing(_refused(503, "service_unavailable")),
                       Planned(task, 3, 0))
    key = run_episode(FAKE_ENV, failing(_refused(401, "invalid_api_key")), Planned(task, 4, 0))
    model = run_episode(FAKE_ENV, failing(ModelEndpointError(
        "the model endpoint x did not answer", infra="model endpoint unreachable")),
        Planned(task, 5, 0))
    too_long = run_episode(FAKE_ENV, failing(ModelEndpointError("HTTP 400: too long")),
                           Planned(task, 6, 0))
    refused = run_episode(FAKE_ENV, failing(_refused(422, "invalid_request")),
                          Planned(task, 7, 0))
    assert [e["infra_error"].partition(":")[0] for e in (lost, busy, key, model)] == [
        "episode lost", "gym HTTP 503", "gym refused the API key", "model endpoint unreachable"]
    assert all(e["error"] is None for e in (lost, busy, key, model))
    for agents_own in (too_long, refused):  # the agent's request, refused: its error
        assert agents_own["infra_error"] is None and agents_own["error"]

    s = summarize([ok, down, lost, busy, key, model, too_long, refused], 1)
    assert (s.episodes, s.infra_errors, s.errors) == (8, 5, 2)
    assert (s.avg_score, s.pass_at_1) == pytest.approx((0.95 / 3, 1 / 3))
    assert s.tasks[0].scored == 3 and "1/3" in table(s)
    assert metrics_line(s, 1).endswith(
        "2 agent errors · 5 infra failures (not scored): gym unreachable ×1, episode lost ×1, "
        "gym HTTP 503 ×1, gym refused the API key ×1, model endpoint unreachable ×1")


def test_a_run_stops_starting_episodes_once_asked_and_records_those_running() -> None:
    task = catalogue().get(TASKS[0])
    recorded: list[dict[str, Any]] = []
    asked = threading.Semaphore(0)

    def stop() -> bool:
        asked.release()
        return len(recorded) >= 3

    def agent(env: Any, task: Any) -> str:  # one episode per stop(): none runs ahead
        if env.id.split("_")[-2] != "0":
            assert asked.acquire(timeout=60)
        return "done"

    run(plan(product([task], list(range(10))), 1), FAKE_ENV, agent, 1, recorded.extend, stop=stop)
    # Stopped after the 3rd; the one a worker had taken by then is recorded too.
    assert 3 <= len(recorded) <= 5


def test_infra_failures_are_run_again_on_resume(tmp_path: Path) -> None:
    results = Results.create(tmp_path / "r.json", {"trials": 1})
    results.add([_episode("a", 0, 0, True), _episode("a", 1, 0, False, infra_error="x: y")])
    assert Results.load(results.path).done() == {("a", 0, 0)}  # (a, 1, 0) is to run again
    results.add([_episode("a", 1, 0, True)])
    assert [(e["seed"], e["success"]) for e in Results.load(results.path).episodes] == [
        (0, True), (1, True)]


def test_trajectories_are_exports_records(local: LocalServer) -> None:
    """--trajectories: each episode as `workgym export --format jsonl` shapes it, from the
    steps the gym recorded, here of the reference agent on an in-process server."""
    task = catalogue().get(TASKS[0])
    recorded: list[dict[str, Any]] = []
    run(plan(product([task], [0]), 1), lambda t, seed, faults: Env.inprocess(local, t, seed),
        reference, 1, recorded.extend, trajectories=True)
    (episode,) = recorded
    assert episode["success"] is True and set(episode["trajectory"]) == {"messages", "tools"}
    messages, tools = episode["trajectory"]["messages"], episode["trajectory"]["tools"]
    names = {t["function"]["name"] for t in tools}
    assert [m["role"] for m in messages[:2]] == ["system", "user"]
    assert messages[0]["content"] == task.brief
    calls = [m["tool_calls"][0] for m in messages if m.get("tool_calls")]
    assert len(calls) == episode["steps"] and {c["function"]["name"] for c in calls} <= names
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    assert [r["status"] for r in results] and all(r["status"] < 300 for r in results)
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"]
    without = run_episode(lambda t, seed, faults: Env.inprocess(local, t, seed), reference,
                          Planned(task, 0, 0))
    assert "trajectory" not in without


def test_an_episodes_trajectory_is_the_operators(local: LocalServer) -> None:
    with Env.inprocess(local, TASKS[0], 0) as env:
        obs = env.reset()
        assert env.trajectory() == []  # not finished, no step yet
        env.call("GET", "/rest/api/3/myself")
        (step,) = env.trajectory()
        assert (step["method"], step["status"], step["route"]) == ("GET", 200, "/myself")
        refused = env._http.get(f"/v1/episodes/{obs.episode_id}/trajectory",
                                headers={"authorization": f"Bearer {obs.token}"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "operator_only"


def test_bench_checks_the_server_before_it_runs(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A dead server, then a live one with a wrong key: one line each, exit 2, no results
    file; with its key, the run goes (over HTTP, trajectories included), and records the
    SERVER's environment version (GET /v1/version), not this client's."""
    from workgym.cli import main
    from workgym.envversion import version_of
    from workgym.gym import routes

    served = version_of({"code": "c", "data": "d", "tasks": "t", "faults": "f"})
    monkeypatch.setattr(routes, "current", lambda: served)

    out = tmp_path / "r.json"
    monkeypatch.setenv("WORKGYM_API_KEY", "wgk_test_bench")
    bench = ["bench", "--tasks", TASKS[0], "--out", str(out), "--url"]
    assert main([*bench, "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "workgym: error: cannot reach the WorkGym server at http://127.0.0.1:9 (ConnectError")
    assert "check --url" in err and not out.exists()

    settings = Settings(data_dir=tmp_path / "gym", internal_secret="test-secret",
                        api_key="wgk_test_bench")
    with serving_app(lambda url: create_app(settings.model_copy(
            update={"public_url": url}))) as url:
        monkeypatch.setenv("WORKGYM_API_KEY", "wrong")
        assert main([*bench, url]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("workgym: error: 401 invalid_api_key")
        assert f"from {url}" in err and "WORKGYM_API_KEY" in err
        assert not out.exists()
        monkeypatch.setenv("WORKGYM_API_KEY", "wgk_test_bench")
        assert main([*bench, url, "--trajectories"]) == 0
    document = json.loads(out.read_text())
    (episode,) = document["episodes"]
    assert episode["success"] is True and episode["trajectory"]["messages"][-1]["content"]
    assert document["header"]["env_version"] == served.as_dict() != current().as_dict()


def test_an_environment_that_cannot_start_is_an_error_too() -> None:
    def broken(task: str, seed: int, faults: str) -> Any:
        raise ConnectionError("no server")

    record = run_episode(broken, lambda env, task: None, Planned(catalogue().get(TASKS[0]), 0, 0))
    assert record["error"] == "ConnectionError: no server" and record["episode_id"] is None
    assert record["tokens"] is None


# -- the command, in fresh processes ---------------------------------------------------------

@pytest.fixture(scope="module")
def benched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, dict[str, str]]]:
    """`workgym bench` on two short tasks, seed 0, 2 trials, in its own process: its stdout,
    its results file, its environment."""
    tmp = tmp_path_factory.mktemp("bench")
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp / "gym")}
    out = tmp / "results" / "run.json"
    stdout = workgym_cli("bench", "--tasks", ",".join(TASKS), "--seeds", "0", "--trials", "2",
                         "--out", str(out), env=env)
    yield stdout, out, env


def test_bench_prints_the_table_and_headline_and_writes_results_and_report(
        benched: tuple[str, Path, dict[str, str]]) -> None:
    stdout, out, _ = benched
    lines = stdout.splitlines()
    assert lines[0].split() == ["task", "score", "status", "time"]
    rows = {line.split()[0]: line.split() for line in lines[2:4]}
    assert set(rows) == set(TASKS)
    assert all(row[1:3] == ["1.00", "2/2"] for row in rows.values())
    assert "pass@1 1.00 [1.00, 1.00] · pass@2 1.00 [1.00, 1.00] · pass^2 1.00 [1.00, 1.00] · " \
        "avg score 1.00 [1.00, 1.00] · 4 episodes (2 problems × 2 trials) · noise floor " \
        "±0.00 paired, ±0.00 on new problems (pass@1, 2 problems × 2 trials)" in stdout
    assert lines[-1] == (f"tasks {','.join(TASKS)} · 2 tasks · 2/2 passed · avg score 1.00 · "
                         f"report saved to {out} (HTML: {out.with_suffix('.html')})")

    document = json.loads(out.read_text())
    header = document["header"]
    assert (header["agent"], header["suite"], header["seeds"], header["trials"],
            header["faults"], header["url"]) == ("reference", None, [0], 2, "task", None)
    assert sorted(header["tasks"]) == sorted(TASKS) and header["finished"]
    assert header["command"].startswith("workgym bench --tasks ")
    assert header["env_version"] == current().as_dict()  # this process's: it ran in-process
    assert current().id in out.with_suffix(".html").read_text()
    episodes = document["episodes"]
    assert sorted((e["task"], e["seed"], e["trial"]) for e in episodes) == sorted(
        (t, 0, trial) for t in TASKS for trial in (0, 1))
    for e in episodes:
        assert e["success"] is True and e["reward"] == 1.0 and e["error"] is None
        assert e["episode_id"].startswith("ep_") and e["steps"] > 0 and e["duration_s"] > 0
        assert e["episode_page"] is None and e["tokens"] is None  # no telemetry, no model
        assert set(e["signals"]) >= {"task_completion", "efficiency"}
    faulted = [e for e in episodes if e["task"] == TASKS[1]]
    assert all(e["faults"]["injected"] >= 1 and e["faults"]["recovered"] >= 1 for e in faulted)
    problems = metrics.problem_counts(episodes)
    assert metrics.mean_pass_hat_k(problems, 2) == 1.0
    assert "<svg" in out.with_suffix(".html").read_text()


def test_an_interrupted_run_resumes_only_its_missing_episodes(
        benched: tuple[str, Path, dict[str, str]], tmp_path: Path) -> None:
    _, out, env = benched
    document = json.loads(out.read_text())
    kept = [e for e in document["episodes"] if e["trial"] == 0]  # cut short after trial 0
    document["episodes"], document["header"]["finished"] = kept, None
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(document))

    stdout = workgym_cli("bench", "--resume", str(cut), "--trials", "2", env=env)

    resumed = json.loads(cut.read_text())
    assert resumed["episodes"][:len(kept)] == kept  # recorded ones are kept, not re-run
    ran = resumed["episodes"][len(kept):]
    assert sorted((e["task"], e["trial"]) for e in ran) == sorted((t, 1) for t in TASKS)
    assert resumed["header"]["finished"] and "pass^2 1.00" in stdout
    assert (tmp_path / "cut.html").exists()


def test_resume_refuses_another_plan(benched: tuple[str, Path, dict[str, str]]) -> None:
    from workgym.cli import main

    _, out, _ = benched
    assert main(["bench", "--resume", str(out), "--trials", "3"]) == 2
    assert main(["bench", "--resume", str(out), "--suite", "helpdesk"]) == 2


def test_resume_refuses_another_environment_version(
        benched: tuple[str, Path, dict[str, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from workgym.cli import main

    _, out, _ = benched
    document = json.loads(out.read_text())
    document["header"]["env_version"] = {"id": "wg-0000000000000000", "parts": {
        **document["header"]["env_version"]["parts"], "data": "another"}}
    document["header"]["finished"] = None
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(document))
    assert main(["bench", "--resume", str(moved)]) == 2
    assert capsys.readouterr().err == (
        f"workgym: error: --resume: {moved} was run on another environment version (data "
        "differ): its episodes and new ones would not be comparable; start a new run\n")
    del document["header"]["env_version"]  # a file from before versions were recorded
    moved.write_text(json.dumps(document))
    assert main(["bench", "--resume", str(moved)]) == 2
    assert "(it records none: written before versions were recorded)" in capsys.readouterr().err
