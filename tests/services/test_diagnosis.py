"""Weakness diagnosis and the curriculum: the skill of every kind of check, fault and refusal;
the ranked skills of a synthetic run with their intervals; a real short run (the noop agent)
whose records, line and report carry the diagnosis; ``workgym curriculum``'s set (unseen
seeds, weights, the hard preset for faults), byte for byte the same twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from workgym.agents.noop import noop
from workgym.bench import diagnosis
from workgym.bench.diagnosis import (
    CHECK_SKILLS,
    SKILLS,
    diagnose,
    exercised,
    failures,
    weakest_line,
)
from workgym.bench.health import tool_calls
from workgym.bench.report import render
from workgym.bench.results import Results, now
from workgym.bench.runner import plan, product, run
from workgym.bench.stats import bootstrap_ci
from workgym.cli import main
from workgym.curriculum import curriculum
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym.tasksets import load
from workgym_core.settings import Settings
from workgym_reward.assertions import Assertion

TELEMETRY = "http://telemetry.test"
TASKS = ("tracker/start-work-on-bug", "helpdesk/refund-standard")


# -- the mapping -------------------------------------------------------------------------------

def _kinds(cls: type[BaseModel]) -> set[str]:
    """Every check kind the reward engine has: each Assertion class's ``check``."""
    found = set()
    for sub in cls.__subclasses__():
        if "check" in sub.model_fields:
            found.add(str(sub.model_fields["check"].default))
        found |= _kinds(sub)
    return found


def test_every_check_kind_of_the_reward_engine_maps_to_a_skill() -> None:
    import workgym_reward.engine  # noqa: F401  (the engine's own checks: all_said, disclosure)

    kinds = _kinds(Assertion)
    assert {"all_said", "nothing_disclosed", "only_changes", "told"} <= kinds
    assert set(CHECK_SKILLS) == kinds, "a new check kind: map it in bench/diagnosis.py"
    assert set(CHECK_SKILLS.values()) <= set(SKILLS)


def _check(name: str, check: str, *, harm: bool = False, policy: bool = False) -> dict[str, Any]:
    return {"name": name, "check": check, "passed": False, "harm": harm, "policy": policy,
            "detail": f"{name} failed"}


def _skills(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f["skill"], f.get("name") or f.get("kind") or f.get("path") or f["source"])
            for f in found]


def test_a_failed_check_shows_harm_then_policy_then_its_kind() -> None:
    report = {"success": False, "steps": 9, "assertions": [
        _check("lied", "told", harm=True), _check("refunded", "sum_changed", harm=True),
        _check("rule", "field_changed", policy=True), _check("order", "trajectory_order"),
        _check("value", "field_changed"), _check("sibling", "field_unchanged"),
        _check("silent", "told"), _check("count", "answer"),
        {**_check("fine", "row_exists"), "passed": True}],
        "faults": [{"kind": "server_error", "step": 1, "recovered": False},
                   {"kind": "state_drift", "step": 2, "recovered": False},
                   {"kind": "latency", "step": 3, "recovered": None},
                   {"kind": "rate_limit", "step": 4, "recovered": True}]}
    assert _skills(failures(report, [], reference_steps=5)) == [
        ("false communication", "lied"), ("unsafe action", "refunded"),
        ("missed policy", "rule"), ("missed policy", "order"), ("brittle parameters", "value"),
        ("wrong ids", "sibling"), ("missing communication", "silent"),
        ("false communication", "count"), ("unrecovered fault", "server_error"),
        ("stale state", "state_drift")]
    assert failures({**report, "success": True}, [], reference_steps=5) == []


def test_an_episode_stopped_short_gave_up_early_on_the_work_it_left() -> None:
    report = {"success": False, "steps": 1, "assertions": [
        _check("value", "field_changed"), _check("silent", "told"),
        _check("refunded", "sum_changed", harm=True), _check("rule", "row_exists", policy=True)]}
    assert _skills(failures(report, [], reference_steps=4)) == [
        ("gave up early", "value"), ("gave up early", "silent"), ("unsafe action", "refunded"),
        ("missed policy", "rule"), ("gave up early", "episode")]
    # An agent's crash is its error, not giving up; as many steps as the reference is not short.
    assert "gave up early" not in {f["skill"] for f in failures(report, [], 4, "Boom: x")}
    assert "gave up early" not in {f["skill"] for f in failures(report, [], 1)}


def test_refused_requests_show_a_skill_by_status_and_faulted_ones_none() -> None:
    steps = [{"app": "tracker", "method": "PUT", "path": f"/x/{i}", "status": status,
              "error_code": "e", "fault": fault}
             for i, (status, fault) in enumerate([
                 (404, None), (400, None), (422, None), (409, None), (412, None), (403, None),
                 (200, None), (401, None), (429, None), (500, None), (404, "server_error")])]
    refused = tool_calls(steps)["refusals"]  # the record's, as the runner passes them
    found = failures({"success": False, "steps": 20, "assertions": []}, refused, 5)
    assert [(f["skill"], f["step"], f["status"]) for f in found] == [
        ("wrong ids", 0, 404), ("brittle parameters", 1, 400), ("brittle parameters", 2, 422),
        ("stale state", 3, 409), ("stale state", 4, 412), ("missed policy", 5, 403)]
    episode = {"task": "s/a", "seed": 0, "trial": 0, "failures": found[:1]}
    assert [w.examples[0].detail for w in diagnose([episode])] == [
        "step 0: PUT /x/0 refused 404 (e)"]


# -- a run's diagnosis ---------------------------------------------------------------------------

def _episode(task: str, seed: int, trial: int, *skills: str, **extra: Any) -> dict[str, Any]:
    return {"task": task, "seed": seed, "trial": trial, "success": not skills,
            "reward": 0.0 if skills else 1.0, "harm": False, "steps": 3, "duration_s": 0.1,
            "error": None, "infra_error": None, "episode_id": f"ep_{task[-1]}{seed}{trial}",
            "episode_page": f"{TELEMETRY}/episodes/ep_{task[-1]}{seed}{trial}",
            "faults": {"injected": 0, "recovered": 0, "met": []}, "signals": {},
            "tokens": None, "final_state_hash": None, "step_s": None,
            "failures": [{"skill": s, "source": "check", "name": f"c{n}", "check": "told",
                          "detail": f"{s} here"} for n, s in enumerate(skills)], **extra}


SYNTHETIC = [
    # Problem (a, 0): both trials miss the policy; one also lies.
    _episode("s/a", 0, 0, "missed policy", "false communication"),
    _episode("s/a", 0, 1, "missed policy"),
    _episode("s/a", 1, 0, "missed policy"), _episode("s/a", 1, 1),  # (a, 1): half
    _episode("s/b", 0, 0), _episode("s/b", 0, 1),  # (b, 0): clean
    _episode("s/b", 1, 0, "wrong ids"), _episode("s/b", 1, 1),  # (b, 1): half
    # Never scored: its failures count nowhere.
    {**_episode("s/b", 2, 0, "unsafe action"), "infra_error": "gym unreachable: x"},
]


def test_skills_are_ranked_by_their_share_of_problems_with_intervals() -> None:
    found = diagnose(SYNTHETIC)
    assert [w.skill for w in found] == ["missed policy", "wrong ids", "false communication"]
    policy = found[0]
    assert policy.rate == bootstrap_ci([1.0, 0.5, 0.0, 0.0])
    assert policy.rate.mean == pytest.approx(0.375) and policy.episodes == 3
    assert policy.rate.low <= policy.rate.mean <= policy.rate.high
    assert found[1].rate.mean == found[2].rate.mean == pytest.approx(0.125)  # SKILLS order
    assert [(x.task, x.seed, x.trial, x.page, x.detail) for x in policy.examples[:1]] == [
        ("s/a", 0, 0, f"{TELEMETRY}/episodes/ep_a00", "c0 (told): missed policy here")]
    assert weakest_line(found, most=2) == (
        f"weakest skills: missed policy {policy.rate}, wrong ids {found[1].rate}")
    assert weakest_line(diagnose([_episode("s/a", 0, 0)])) is None


def _results(path: Path, episodes: list[dict[str, Any]], tasks: list[str],
             seeds: list[int]) -> Results:
    header = {"agent": "noop", "suite": None, "selection": tasks, "tasks": tasks,
              "seeds": seeds, "trials": 1, "faults": "task", "url": None, "started": now(),
              "workgym_version": "test", "command": "workgym bench ..."}
    results = Results.create(path, header)
    results.add(episodes)
    return results


def test_the_report_ranks_the_skills_with_examples_linking_their_pages(tmp_path: Path) -> None:
    html = render(_results(tmp_path / "r.json", SYNTHETIC, ["s/a", "s/b"], [0, 1, 2]))
    section = html[html.index('<section id="diagnosis">'):]
    section = section[:section.index("</section>")]
    skills = [s.split(">")[1].split("<")[0]
              for s in section.split('<td class="skill nowrap"')[1:]]
    assert skills == ["missed policy", "wrong ids", "false communication"]
    assert f'href="{TELEMETRY}/episodes/ep_a00"' in section
    assert "[0.00, " in section and "wrong ids here" in section
    clean = render(_results(tmp_path / "c.json", [_episode("s/a", 0, 0)], ["s/a"], [0]))
    assert "No scored episode failed" in clean


# -- from the task side ----------------------------------------------------------------------

def test_a_task_exercises_the_skills_its_checks_faults_and_customers_map_to() -> None:
    cancel = exercised(catalogue().get("checkout/cancel-subscription"))
    assert cancel["missed policy"][:2] == ["check ends_at_period_end", "check ended_now"]
    assert "check nothing_refunded" in cancel["unsafe action"]
    assert "check end_stated" in cancel["false communication"]
    assert "unrecovered fault" not in cancel
    flaky = exercised(catalogue().get("helpdesk/fault-flaky-billing-api"))
    assert flaky["unrecovered fault"] == ["fault server_error", "fault server_error"]
    assert list(flaky) == [s for s in SKILLS if s in flaky]


# -- a real run --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def noop_run(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The noop agent's results on TASKS, seeds 0 and 1 (every episode gives up)."""
    server = LocalServer(settings.model_copy(update={
        "telemetry_url": TELEMETRY, "api_key": "wgk_test_diagnosis"}))
    path = tmp_path_factory.mktemp("diagnosis") / "run.json"
    results = _results(path, [], list(TASKS), [0, 1])
    try:
        run(plan(product([catalogue().get(t) for t in TASKS], [0, 1]), 1),
            lambda task, seed, faults: Env.inprocess(server, task, seed, faults), noop, 2,
            results.add)
    finally:
        server.close()
    results.finish()
    yield path


@pytest.mark.slow
def test_a_real_runs_records_and_report_carry_the_diagnosis(noop_run: Path) -> None:
    results = Results.load(noop_run)
    assert len(results.episodes) == 4
    for episode in results.episodes:
        assert not episode["success"] and episode["failures"]
        assert {f["source"] for f in episode["failures"]} >= {"check", "episode"}
        assert all(f["skill"] in SKILLS for f in episode["failures"])
        checks = [f for f in episode["failures"] if f["source"] == "check"]
        assert all(f["check"] in CHECK_SKILLS and f["detail"] for f in checks)
    found = diagnose(results.episodes)
    assert found[0].skill == "gave up early" and found[0].rate.mean == 1.0
    html = render(results)
    assert '<section id="diagnosis">' in html and "gave up early" in html
    assert f'<a class="example" href="{TELEMETRY}/episodes/ep_' in html


# -- the curriculum ----------------------------------------------------------------------------

def test_the_curriculum_practises_the_weak_skills_at_unseen_seeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = _results(tmp_path / "run.json", [
        _episode(TASKS[0], 0, 0, "gave up early"), _episode(TASKS[0], 1, 0, "gave up early"),
        _episode(TASKS[1], 0, 0, "gave up early", "missed policy"), _episode(TASKS[1], 1, 0)],
        list(TASKS), [0, 1])
    out = tmp_path / "next.json"
    assert main(["curriculum", str(ran.path), "--size", "10", "--out", str(out)]) == 0
    first = out.read_bytes()
    assert main(["curriculum", str(ran.path), "--size", "10", "--out", str(out)]) == 0
    assert out.read_bytes() == first, "the same results write the same bytes"
    printed = capsys.readouterr().out
    taskset = load(out)
    assert 0 < len(taskset.instances) <= 10
    assert {i.seed for i in taskset.instances} <= {2, 3, 4, 5, 6}  # the run used 0 and 1
    apps = {app for t in TASKS for app in catalogue().get(t).apps}
    for instance in taskset.instances:
        task = catalogue().get(instance.task)
        assert set(task.apps) <= apps
        assert instance.info["skills"] and instance.info["why"]
        for skill in instance.info["skills"]:
            assert skill in exercised(task)
    # gave up early (rate 0.75) takes 7.5 of the 10, missed policy (0.25) 2.5: the tied
    # remainder goes to the weaker skill; weights 8 and 2.
    counts = {s: sum(s in i.info["skills"] for i in taskset.instances)
              for s in ("gave up early", "missed policy")}
    assert counts == {"gave up early": 8, "missed policy": 2}
    assert {i.weight for i in taskset.instances if i.info["skills"] == ["gave up early"]} == {8}
    assert "gave up early: 8 instances" in printed
    assert "not memorisation" in taskset.description
    assert taskset.made_by == {"command": f"workgym curriculum {ran.path} --size 10",
                               "results": str(ran.path)}
    assert taskset.env_version is None  # the run's (none recorded in this one)


def test_fault_recovery_is_practised_under_the_hard_preset(tmp_path: Path) -> None:
    flaky = "helpdesk/fault-flaky-billing-api"
    episodes = [{**_episode(flaky, 0, 0), "success": False, "failures": [
        {"skill": "unrecovered fault", "source": "fault", "kind": "server_error", "step": 2}]}]
    results = _results(tmp_path / "r.json", episodes, [flaky], [0])
    taskset = curriculum(results, "r.json", size=3, seeds=[7, 9])
    assert len(taskset.instances) == 3
    for instance in taskset.instances:  # tasks whose own plans ask for recoveries, at hard
        assert instance.faults == "hard" and instance.info["skills"] == ["unrecovered fault"]
        assert "unrecovered fault" in exercised(catalogue().get(instance.task))
    assert {i.seed for i in taskset.instances} <= {7, 9}
    assert "--seeds 7,9" in taskset.made_by["command"]


def test_a_run_without_failures_writes_no_set_and_seeds_it_ran_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = _results(tmp_path / "clean.json", [_episode(TASKS[0], 0, 0)], [TASKS[0]], [0])
    assert main(["curriculum", str(clean.path)]) == 0
    assert "no weak skill" in capsys.readouterr().err
    assert not list(tmp_path.glob("*curriculum*"))
    weak = _results(tmp_path / "weak.json", [_episode(TASKS[0], 3, 0, "wrong ids")],
                    [TASKS[0]], [3])
    assert main(["curriculum", str(weak.path), "--seeds", "1-3"]) == 2
    assert capsys.readouterr().err.startswith("workgym: error: --seeds 3: the run used them")
    assert main(["curriculum", str(weak.path), "--size", "0"]) == 2
    assert "--size must be at least 1" in capsys.readouterr().err
    drift = _results(tmp_path / "drift.json", [_episode(TASKS[0], 0, 0, "stale state")],
                     [TASKS[0]], [0])  # no tracker task has a state_drift fault
    assert main(["curriculum", str(drift.path)]) == 0
    assert capsys.readouterr().err == ("workgym: no task of the run's apps exercises stale "
                                       "state; no task set written\n")
    assert not list(tmp_path.glob("*curriculum*"))
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    assert main(["curriculum", str(broken)]) == 2
    assert "not a bench results file" in capsys.readouterr().err


def test_the_diagnosis_module_documents_every_skill() -> None:
    assert all(f"``{skill}``" in str(diagnosis.__doc__) for skill in SKILLS)
    assert json.dumps(list(SKILLS))  # plain strings, as the records hold them
