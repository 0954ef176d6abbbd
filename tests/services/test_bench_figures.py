"""Figures you can trust: every rate of a bench with its interval over problems (infra
failures in none), the run's noise floor, ``workgym compare`` (paired, its refusals), the
environment version a run records, and the imperfect ``flaky`` agent."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from workgym.agents import check_spec, resolve
from workgym.agents.flaky import Flaky, Slip, parse
from workgym.bench.compare import compare, holm, sign_flip_p
from workgym.bench.metrics import summarize
from workgym.bench.noise import Z95, noise_floor
from workgym.bench.report import render
from workgym.bench.results import Results, now
from workgym.bench.runner import Planned, run_episode
from workgym.bench.summary import metrics_line, table
from workgym.cli import main
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

PARTS = {"code": "c1", "data": "d1", "tasks": "t1", "faults": "f1"}
VERSION: dict[str, Any] = {"id": "wg-0000000000000001", "parts": PARTS}


def _episode(task: str, seed: int, trial: int, success: bool, *,
             infra: bool = False) -> dict[str, Any]:
    return {"task": task, "seed": seed, "trial": trial, "success": success,
            "reward": 1.0 if success else 0.0, "duration_s": 0.1, "error": None,
            "infra_error": "gym unreachable: ConnectError: down" if infra else None,
            "faults": {"injected": 0, "recovered": 0, "met": []}, "signals": {}, "steps": 1,
            "episode_id": None, "episode_page": None, "tokens": None, "harm": False,
            "final_state_hash": None}


def _header(trials: int, version: dict[str, Any] | None = VERSION,
            faults: str = "task") -> dict[str, Any]:
    header = {"agent": "reference", "suite": "a", "selection": [], "tasks": [], "seeds": [0],
              "trials": trials, "faults": faults, "url": None, "started": now(),
              "finished": now(), "workgym_version": "test", "command": "c"}
    return header if version is None else {**header, "env_version": version}


def _save(path: Path, episodes: list[dict[str, Any]], trials: int = 1,
          **header: Any) -> Path:
    Results(path, _header(trials, **header), episodes).save()
    return path


# -- intervals and the noise floor -----------------------------------------------------------

def test_every_rate_has_its_interval_and_infra_failures_enter_none() -> None:
    rng = random.Random(1)
    episodes = [_episode(f"a/t{t}", seed, trial, rng.random() < 0.6)
                for t in range(3) for seed in range(10) for trial in range(2)]
    clean = summarize(episodes, 2)
    ci = clean.intervals
    for value, interval in ((clean.pass_at_1, ci.pass_at_1), (clean.pass_at_k, ci.pass_at_k),
                            (clean.pass_hat_k, ci.pass_hat_k),
                            (clean.avg_score, ci.avg_score)):
        assert interval is not None and value is not None
        assert interval.low < interval.mean < interval.high
        assert interval.mean == pytest.approx(value)
    assert all(row.score_ci is not None and row.score_ci.low < row.score_ci.high
               for row in clean.tasks)

    # Infra failures, every one a "failure" were it scored: no rate, interval or floor moves.
    failed = episodes + [_episode("a/t0", seed, 2, False, infra=True) for seed in range(10)]
    dirty = summarize(failed, 2)
    assert (dirty.intervals, dirty.noise) == (clean.intervals, clean.noise)
    assert [row.score_ci for row in dirty.tasks] == [row.score_ci for row in clean.tasks]
    assert dirty.infra_errors == 10

    line = metrics_line(clean, 2)
    overall, task = ci.pass_at_1, clean.tasks[0].score_ci
    assert overall is not None and task is not None
    assert f"pass@1 {clean.pass_at_1:.2f} [{overall.low:.2f}, {overall.high:.2f}]" in line
    assert "pass^2 " in line and " paired, ±" in line
    head, _, first = table(clean).splitlines()[:3]
    assert head.split()[:4] == ["task", "score", "95%", "CI"]
    assert f"[{task.low:.2f}, {task.high:.2f}]" in first


def test_a_task_with_one_problem_has_no_interval_column() -> None:
    summary = summarize([_episode("a/x", 0, 0, True), _episode("a/y", 0, 0, False)], 1)
    assert all(row.score_ci is None for row in summary.tasks)
    assert table(summary).splitlines()[0].split() == ["task", "score", "status", "time"]


def test_the_noise_floor_of_a_deterministic_agent_is_zero_paired() -> None:
    """Every problem passes all its trials or none: no trial noise, a paired floor of 0; the
    floor on new problems is the problems' spread: 1.96·√(2·s²/N)."""
    counts = [(3, 3)] * 50 + [(3, 0)] * 50
    floor = noise_floor(counts)
    assert floor is not None and floor.paired == 0 and floor.problems == 100
    spread = 0.25 * 100 / 99  # the sample variance of fifty 1s and fifty 0s
    assert floor.sample == pytest.approx(Z95 * (2 * spread / 100) ** 0.5)

    # Trial noise: each problem 1 of 2 passed: p(1-p) estimated c(n-c)/(n(n-1)) = 0.5.
    noisy = noise_floor([(2, 1)] * 100)
    assert noisy is not None and noisy.paired == pytest.approx(Z95 * (2 * 0.5 / 2 / 100) ** 0.5)
    # Every problem alike (no spread measured): a new sample differs by the trial noise still.
    assert noisy.sample == noisy.paired
    # One trial: the paired floor is unknown, the new-sample floor is its bound.
    single = noise_floor([(1, 1)] * 50 + [(1, 0)] * 50)
    assert single is not None and single.paired is None
    assert single.sample == pytest.approx(floor.sample)
    assert noise_floor([(1, 1)]) is None


def test_the_noise_floor_is_what_compare_calls_significant(tmp_path: Path) -> None:
    """Two runs of a sampled agent (each problem passed with its own chance) on the same 200
    problems, 4 trials each, differ by less than the paired floor, and compare finds no
    difference; a run that passes 0.2 more often on every problem is called better."""
    rng = random.Random(7)
    chances = [rng.choice([0.0, 0.4, 0.7, 1.0]) for _ in range(200)]

    def run(name: str, shift: float) -> Path:
        return _save(tmp_path / name, [
            _episode(f"a/t{i % 10}", i, trial, rng.random() < min(1.0, p + shift))
            for i, p in enumerate(chances) for trial in range(4)], trials=4)

    a, b, better = run("a.json", 0), run("b.json", 0), run("better.json", 0.2)
    floor = summarize(json.loads(a.read_text())["episodes"], 4).noise
    assert floor is not None and floor.paired is not None and 0.01 < floor.paired < floor.sample
    same = compare(a, b).overall[0]
    assert same.name == "pass@1" and abs(same.b - same.a) < floor.paired
    assert same.verdict == "no significant difference"
    assert compare(a, better).overall[0].verdict == "better"


# -- compare ---------------------------------------------------------------------------------

@pytest.fixture()
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """A: every problem of a/better fails, B: all pass (8 seeds); a/same: the same in both;
    a/only: in A alone; a/lost: B's episode an infra failure (compared nowhere)."""
    a = [_episode("a/better", s, 0, False) for s in range(8)]
    b = [_episode("a/better", s, 0, True) for s in range(8)]
    for s in range(8):
        a.append(_episode("a/same", s, 0, s % 2 == 0))
        b.append(_episode("a/same", s, 0, s % 2 == 0))
    a += [_episode("a/only", 0, 0, True), _episode("a/lost", 0, 0, True)]
    b.append(_episode("a/lost", 0, 0, False, infra=True))
    return _save(tmp_path / "a.json", a), _save(tmp_path / "b.json", b)


def test_compare_pairs_problems_and_says_what_is_significant(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = runs
    out = tmp_path / "c.json"
    assert main(["compare", str(a), str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = {line.split()[0]: line for line in printed.splitlines() if line.startswith("a/")}
    assert set(rows) == {"a/better", "a/same"}  # a/only and a/lost: not compared
    assert rows["a/better"].split()[1:4] == ["0.00", "1.00", "+1.00"]
    assert rows["a/better"].endswith("better") and rows["a/same"].endswith(
        "no significant difference")
    overall = next(line for line in printed.splitlines() if line.startswith("pass@1"))
    assert "A 0.25 · B 0.75 · Δ +0.50" in overall and overall.endswith(
        "better (paired over 16 problems)")
    assert "only in A (not compared): a/lost seed 0, a/only seed 0" in printed
    assert "only in B" not in printed and "warning" not in printed

    document = json.loads(out.read_text())
    assert document["format"] == "workgym-compare/1"
    assert document["env_version"] == VERSION["id"]
    assert [t["name"] for t in document["tasks"]] == ["a/better", "a/same"]
    assert document["tasks"][0]["p_holm"] == pytest.approx(2 * 2 / 2 ** 8)
    assert compare(a, b).as_json() == out.read_bytes()  # same inputs, same bytes


def test_compare_refuses_other_versions_and_fault_plans(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = runs
    episodes = json.loads(b.read_text())["episodes"]
    other = {"id": "wg-0000000000000002", "parts": {**PARTS, "tasks": "t2", "code": "c2"}}
    moved = _save(tmp_path / "moved.json", episodes, version=other)
    assert main(["compare", str(a), str(moved)]) == 2
    err = capsys.readouterr().err
    assert err == ("workgym: error: environment versions differ: code differ, tasks differ; "
                   "--allow-version-mismatch compares anyway\n")

    assert main(["compare", str(a), str(moved), "--allow-version-mismatch"]) == 0
    assert ("warning: environment versions differ: code differ, tasks differ; compared anyway"
            in capsys.readouterr().out)

    old = _save(tmp_path / "old.json", episodes, version=None)  # before versions were recorded
    assert main(["compare", str(old), str(b)]) == 2
    assert "no environment version recorded in the first" in capsys.readouterr().err

    chaos = _save(tmp_path / "chaos.json", episodes, faults="chaos")
    assert main(["compare", str(a), str(chaos)]) == 2
    assert "fault plans differ" in capsys.readouterr().err


def test_sign_flips_and_holm() -> None:
    assert sign_flip_p([1.0] * 6) == 2 / 64  # all agree: the two extreme patterns of 64
    assert sign_flip_p([1.0, 1.0]) == 0.5  # two problems can never be significant
    assert sign_flip_p([0.0, 0.0]) == 1.0
    many = sign_flip_p([0.5] * 20)
    assert many < 0.001 and many == sign_flip_p([0.5] * 20)  # sampled, seeded
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


# -- the environment version (a bench run's: tests/services/test_bench.py) -------------

def test_the_report_shows_intervals_noise_floor_and_version(tmp_path: Path) -> None:
    episodes = [_episode("a/x", seed, 0, seed % 2 == 0) for seed in range(6)]
    html = render(Results(tmp_path / "r.json", _header(1), episodes))
    summary = summarize(episodes, 1)
    assert summary.intervals.pass_at_1 is not None
    low, high = summary.intervals.pass_at_1.low, summary.intervals.pass_at_1.high
    assert f'id="pass-at-1-ci">[{low:.2f}, {high:.2f}]</div>' in html
    assert "The run's noise floor ±" in html
    assert html.count('<line class="ci"') == 1  # a/x's whisker: six seeds
    assert f"{VERSION['id']} <span" in html and "tasks t1" in html
    old = render(Results(tmp_path / "r.json", _header(1, version=None), episodes))
    assert "not recorded" in old


# -- the flaky agent -------------------------------------------------------------------------

def test_flaky_specs() -> None:
    assert parse("flaky") == Flaky(0.3, 0) and parse("flaky:0.5:7") == Flaky(0.5, 7)
    assert check_spec("flaky:0.2") == "flaky:0.2" and resolve("flaky:1") == Flaky(1.0, 0)
    for bad in ("flaky:2", "flaky:x", "flaky:0.1:y", "flaky:0.1:2:3"):
        with pytest.raises(ValueError, match="flaky"):
            check_spec(bad)


def test_flaky_draws_per_episode_reproducibly() -> None:
    tasks = list(catalogue())[:40]
    agent = Flaky(0.5, 1)

    def slips(a: Flaky) -> list[str | None]:
        return [(s.kind if (s := a.slip(t, seed)) else None) for t in tasks for seed in (0, 1)]

    first = slips(agent)
    assert first == slips(Flaky(0.5, 1))  # reproducible
    assert 20 < first.count(None) < 60 and {"drop a step", "stop early", "skip the reply"} \
        <= set(first)
    assert first != slips(agent.for_trial(1))  # another trial draws apart
    assert first != slips(Flaky(0.5, 2))  # and another seed of the agent
    assert set(slips(Flaky(0.0))) == {None}


def test_a_slip_fails_an_episode_the_reference_passes(local: LocalServer) -> None:
    task = catalogue().get("tracker/start-work-on-bug")
    open_env = lambda name, seed, faults: Env.inprocess(local, name, seed, faults)  # noqa: E731
    assert run_episode(open_env, Flaky(0.0), Planned(task, 0, 0))["success"] is True
    always = Flaky(1.0)
    trial = next(t for t in range(500) if (slip := always.for_trial(t).slip(task, 0))
                 and slip.kind == "stop early" and slip.stop == 0)
    record = run_episode(open_env, always, Planned(task, 0, trial))
    assert record["success"] is False and record["error"] is None


def test_a_slip_passes_over_a_step_whose_condition_reads_what_was_dropped() -> None:
    """Its ``when`` reads saved('order'), which the dropped step 1 would have saved: the
    step is passed over, as the rest of a near miss, not the agent's crash."""
    steps = catalogue().get("cross/incident-wrong-charge-filed-bug").reference.steps
    slip = Slip(kind="drop a step", dropped=1)
    assert [slip.runs(step, {"number": 1, "name": "x", "charge": 2, "diff": 3})
            for step in steps[:4]] == [True, False, True, False]
