"""``workgym bench``: the metrics (pass@k, pass^k), the results file (atomic, resumable),
the runner's error handling, and the command itself in a fresh process, then resumed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import workgym_cli
from workgym.bench import metrics
from workgym.bench.metrics import pass_at_k, pass_hat_k, summarize
from workgym.bench.results import FORMAT, Results, ResultsError, claim_next_run
from workgym.bench.runner import Planned, plan, run, run_episode
from workgym.bench.summary import headline, metrics_line, table
from workgym.tasks import catalogue

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
    assert metrics_line(s, 3).startswith("pass@1 0.78 · pass@3 1.00 · pass^3 0.67 · ")
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
    planned = plan([a, b], [0, 1], 2, done={(a.id, 0, 0), (b.id, 1, 1)})
    assert [(p.task.id, p.seed, p.trial) for p in planned] == [
        (a.id, 1, 0), (b.id, 0, 0), (b.id, 1, 0), (a.id, 0, 1), (a.id, 1, 1), (b.id, 0, 1)]


# -- the runner, with a stand-in environment --------------------------------------------------

@dataclass
class _Obs:
    episode_id: str


class _FakeEnv:
    count = 0

    def __init__(self, task: str, seed: int) -> None:
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
    run(plan([task], [0, 1, 2], 1), _FakeEnv, agent, 2, recorded.extend)  # type: ignore[arg-type]
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


def test_an_environment_that_cannot_start_is_an_error_too() -> None:
    def broken(task: str, seed: int) -> Any:
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
    assert "pass@1 1.00 · pass@2 1.00 · pass^2 1.00 · avg score 1.00 · 4 episodes " \
        "(2 problems × 2 trials)" in stdout
    assert lines[-1] == (f"tasks {','.join(TASKS)} · 2 tasks · 2/2 passed · avg score 1.00 · "
                         f"report saved to {out} (HTML: {out.with_suffix('.html')})")

    document = json.loads(out.read_text())
    header = document["header"]
    assert (header["agent"], header["suite"], header["seeds"], header["trials"],
            header["faults"], header["url"]) == ("reference", None, [0], 2, "task", None)
    assert sorted(header["tasks"]) == sorted(TASKS) and header["finished"]
    assert header["command"].startswith("workgym bench --tasks ")
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
