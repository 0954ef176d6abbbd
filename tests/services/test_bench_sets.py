"""``workgym bench --set``: a task set's instances, each its own task, seed and fault plan,
recorded in the results header, resumed, refused with the options a set names itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workgym.cli import main
from workgym.envversion import current
from workgym.tasksets import Instance, TaskSet

TASKS = ("tracker/start-work-on-bug", "helpdesk/fault-refund-timeout-after")  # short ones


def _set(path: Path, *instances: Instance, version: Any = None) -> Path:
    TaskSet(list(instances), name="mine",
            env_version=version or current().as_dict()).save(path)
    return path


@pytest.mark.slow
def test_a_set_runs_its_instances_each_under_its_fault_plan(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The fault task's own plan meets it; under the preset "none" it meets no fault.
    taskset = _set(tmp_path / "set.json", Instance(TASKS[1], 0), Instance(TASKS[1], 2, "none"),
                   Instance(TASKS[0], 1, weight=3))
    out = tmp_path / "run.json"
    assert main(["bench", "--set", str(taskset), "--trials", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "bench 6 episodes of 6 (3 instances of set " in printed.err
    assert "another environment version" not in printed.err  # made here, now
    assert f"set {taskset} · 2 tasks · 2/2 passed" in printed.out
    assert "6 episodes (3 problems × 2 trials)" in printed.out

    document = json.loads(out.read_text())
    header = document["header"]
    assert header["set"] == {"path": str(taskset), "name": "mine", "instances": [
        {"task": TASKS[1], "seed": 0, "faults": "task"},
        {"task": TASKS[1], "seed": 2, "faults": "none"},
        {"task": TASKS[0], "seed": 1, "faults": "task"}]}  # weights are for trainers
    assert (header["tasks"], header["seeds"], header["faults"]) == (
        [TASKS[1], TASKS[0]], [0, 1, 2], "none, task")
    assert header["command"] == (f"workgym bench --set {taskset} --trials 2 --agent "
                                 "reference")
    episodes = {(e["task"], e["seed"], e["trial"]): e for e in document["episodes"]}
    assert sorted(episodes) == sorted((i["task"], i["seed"], trial)
                                      for i in header["set"]["instances"] for trial in (0, 1))
    assert all(e["success"] for e in episodes.values())
    assert episodes[(TASKS[1], 0, 0)]["faults"]["injected"] >= 1
    assert episodes[(TASKS[1], 2, 0)]["faults"]["injected"] == 0
    assert "set.json (3 instances)" in out.with_suffix(".html").read_text()

    # Cut short after the first trial: --resume runs the rest of the set.
    document["episodes"] = [e for e in document["episodes"] if e["trial"] == 0]
    document["header"]["finished"] = None
    out.write_text(json.dumps(document))
    assert main(["bench", "--resume", str(out)]) == 0
    assert "bench 3 episodes of 6" in capsys.readouterr().err
    resumed = json.loads(out.read_text())
    assert len(resumed["episodes"]) == 6 and resumed["header"]["finished"]
    assert main(["bench", "--resume", str(out), "--set", str(taskset)]) == 2
    assert "drop --suite, --split, --tasks, --set and --out" in capsys.readouterr().err


def test_a_set_names_its_seeds_and_fault_plans_and_one_problem_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taskset = _set(tmp_path / "set.json", Instance(TASKS[0], 1))
    out = tmp_path / "run.json"
    for extra, said in ((["--seeds", "0-2"], "drop --seeds"), (["--faults", "none"],
                                                               "drop --faults")):
        assert main(["bench", "--set", str(taskset), "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err
        assert err == (f"workgym: error: --set {taskset} names each instance's seed and fault "
                       f"plan: {said}\n")
    with pytest.raises(SystemExit) as exited:  # argparse: one selection at a time
        main(["bench", "--set", str(taskset), "--suite", "helpdesk"])
    assert exited.value.code == 2 and "not allowed with argument" in capsys.readouterr().err

    # Made on another environment version (its tasks changed since): a note, then the run.
    old = {"id": "wg-0000", "parts": {**current().parts, "tasks": "0000"}}
    twice = _set(tmp_path / "twice.json", Instance(TASKS[0], 1), Instance(TASKS[0], 1, "none"),
                 version=old)
    assert main(["bench", "--set", str(twice), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"workgym: note: task set {twice} was made on another environment version (tasks "
        "differ): what it says of its instances (their rates) may not hold here\n"
        f"workgym: error: --set {twice}: instances[1]: {TASKS[0]} seed 1 is listed under "
        "fault plans 'task' and 'none'; the bench scores a task at a seed once per trial: "
        "give one of them another seed\n")
    (tmp_path / "bad.json").write_text('{"format": "workgym-taskset/1", "instances": '
                                       '[{"task": "nope/x", "seed": 0}]}')
    assert main(["bench", "--set", str(tmp_path / "bad.json"), "--out", str(out)]) == 2
    assert "bad.json: instances[0].task: no task 'nope/x'" in capsys.readouterr().err
    assert not out.exists()
