"""``workgym tasks calibrate`` against the scripted model server: a model that solves each
seed of a task on chosen attempts; the set written holds exactly the instances solved
``low``..``high`` times, with their rates, and runs with ``workgym bench --set``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workgym.bench.calibrate import judge
from workgym.bench.results import Results
from workgym.cli import main
from workgym.envversion import current
from workgym.tasksets import load

from ..scripted_model import FakeModel, scripted_model
from .test_openai_agent import KEY, TASK, solver

# Seed -> the attempts (0-based) the model solves: 3, 0, 5, 1 and 2 of 5.
SOLVES = {0: {0, 1, 2}, 1: set(), 2: {0, 1, 2, 3, 4}, 3: {4}, 4: {1, 3}}


class Sometimes:
    """Solves an instance (told by its instruction, seeds met in order: --concurrency 1) on
    the attempts ``SOLVES`` gives it; on the others answers at once, without a tool call."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.attempts: Counter[str] = Counter()

    def __call__(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        if len(messages) > 2:  # a solving episode goes on
            return solver(messages)
        instruction = messages[1]["content"]
        if instruction not in self.seen:
            self.seen.append(instruction)
        attempt = self.attempts[instruction]
        self.attempts[instruction] += 1
        if attempt in SOLVES[self.seen.index(instruction)]:
            return solver(messages)
        return {"role": "assistant", "content": "I cannot do this."}


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with scripted_model({"sometimes": Sometimes()}) as fake:
        yield fake


@pytest.mark.slow
def test_calibrate_writes_the_instances_solved_sometimes_and_bench_runs_them(
        model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "sets" / "calibrated.json"
    assert main(["tasks", "calibrate", "--tasks", TASK, "--agent", "openai:sometimes",
                 "--faults", "none", "--concurrency", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "bench 25 episodes of 25 (1 task × 5 seeds × 5 trials)" in printed.err
    assert ("calibrated 5 instances × 5 attempts: 2 in band (solved 2-4 times), 1 always "
            "solved, 1 never solved, 1 solved fewer than 2 times") in printed.out
    assert f"task set of 2 instances written to {out}" in printed.err
    assert {r["temperature"] for r in model.requests} == {1.0}  # a baseline samples

    taskset = load(out)
    assert [(i.task, i.seed, i.faults, i.weight, dict(i.info)) for i in taskset.instances] == [
        (TASK, 0, "none", 1, {"solved": 3, "attempts": 5, "rate": 0.6}),
        (TASK, 4, "none", 1, {"solved": 2, "attempts": 5, "rate": 0.4})]
    results = out.with_suffix(".results.json")
    assert taskset.name == "calibrated" and taskset.env_version == current().as_dict()
    assert taskset.made_by == {
        "command": f"workgym tasks calibrate --tasks {TASK} --seeds 0,1,2,3,4 --faults none "
                   f"--attempts 5 --agent openai:sometimes --temperature 1.0 --low 2 --high 4 "
                   f"--out {out}",
        "results": str(results), "agent": "openai:sometimes", "temperature": 1.0,
        "attempts": 5, "low": 2, "high": 4}
    header = json.loads(results.read_text())["header"]
    assert (header["trials"], header["temperature"]) == (5, 1.0)

    # Judged again from its results file (nothing left to run), with another band.
    assert main(["tasks", "calibrate", "--resume", str(results), "--low", "1", "--high", "5",
                 "--out", str(tmp_path / "wide.json")]) == 0
    assert [i.seed for i in load(tmp_path / "wide.json").instances] == [0, 2, 3, 4]
    assert "bench 0 episodes of 25" in capsys.readouterr().err

    assert main(["bench", "--set", str(out), "--out", str(tmp_path / "run.json")]) == 0
    episodes = json.loads((tmp_path / "run.json").read_text())["episodes"]
    assert sorted((e["task"], e["seed"], e["success"]) for e in episodes) == [
        (TASK, 0, True), (TASK, 4, True)]  # the reference solves them


def test_a_baseline_that_always_solves_writes_no_set_and_bad_bands_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ref.json"
    assert main(["tasks", "calibrate", "--tasks", TASK, "--seeds", "0", "--attempts", "2",
                 "--agent", "reference", "--out", str(out)]) == 1
    printed = capsys.readouterr()
    assert printed.out.endswith("calibrated 1 instance × 2 attempts: 0 in band (solved "
                                "once), 1 always solved, 0 never solved\n")
    assert printed.err.endswith(
        "workgym: no instance solved once of 2: no task set written (a set holds what "
        "reference solves only sometimes; a model at --temperature 1, or other tasks or seeds, "
        "give some)\n")
    assert not out.exists() and out.with_suffix(".results.json").exists()

    for band, said in ((["--low", "3", "--high", "2"], "--low 3 --high 2"),
                       (["--high", "6"], "--low 2 --high 6")):
        assert main(["tasks", "calibrate", "--tasks", TASK, "--agent", "reference",
                     "--out", str(out), *band]) == 2
        assert capsys.readouterr().err == (
            f"workgym: error: {said}: need 0 <= low <= high <= attempts (5)\n")
    assert main(["tasks", "calibrate", "--tasks", TASK, "--attempts", "1", "--agent",
                 "reference"]) == 2
    assert "--attempts 1: a rate needs 2 attempts or more" in capsys.readouterr().err
    assert main(["tasks", "calibrate", "--tasks", TASK]) == 2
    assert "choose the baseline, --agent openai:MODEL" in capsys.readouterr().err


def test_an_instance_with_an_attempt_the_infrastructure_failed_is_not_judged(
        tmp_path: Path) -> None:
    """Seed 0: 2 of 3 solved, one attempt an agent's error (a failure); seed 1: 2 solved and
    an infra failure (not scored: its 2 of 2 scored would be a different rate): not judged
    until resumed."""
    header = {"suite": None, "selection": [TASK], "tasks": [TASK], "seeds": [0, 1],
              "faults": "task", "trials": 3}
    results = Results(tmp_path / "r.json", header, [
        {"task": TASK, "seed": seed, "trial": trial, "success": ok, "error": error,
         "infra_error": infra}
        for seed, trial, ok, error, infra in [
            (0, 0, True, None, None), (0, 1, False, "RuntimeError: x", None),
            (0, 2, True, None, None), (1, 0, True, None, None), (1, 1, True, None, None),
            (1, 2, False, None, "model endpoint HTTP 503: ...")]])
    judged = judge(results, 2, 2)
    assert [(i.seed, dict(i.info)) for i in judged.instances] == [
        (0, {"solved": 2, "attempts": 3, "rate": 0.6667})]
    assert judged.tally == {"in band": 1, "infra": 1}


def test_a_calibration_stopped_by_the_infrastructure_writes_no_set_until_resumed(
        model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's server dies after the first episode (4 turns): the run stops (exit 3) and
    no set is written; once it is back, --resume runs the rest and writes the set (seed 0:
    attempts 0-2 solved of 4)."""
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model.scripts["sometimes"] = Sometimes()
    model.dies_after = len(model.requests) + 4
    out = tmp_path / "set.json"
    results = tmp_path / "set.results.json"
    assert main(["tasks", "calibrate", "--tasks", TASK, "--seeds", "0", "--attempts", "4",
                 "--agent", "openai:sometimes", "--concurrency", "1", "--max-infra-errors",
                 "0", "--out", str(out)]) == 3
    assert capsys.readouterr().err.endswith(
        f"workgym: no task set written (the run did not end): `workgym tasks calibrate "
        f"--resume {results}` runs the rest\n")
    assert not out.exists()
    model.dies_after = None
    model.failures.clear()
    assert main(["tasks", "calibrate", "--resume", str(results), "--out", str(out)]) == 0
    assert "calibrated 1 instance × 4 attempts: 1 in band" in capsys.readouterr().out
    [instance] = load(out).instances
    assert dict(instance.info) == {"solved": 3, "attempts": 4, "rate": 0.75}
