"""The quality gate's shortcut columns (workgym.quality, workgym.shortcuts): targets that are
the newest or first record, the decision's split, answers that fit many seeds, faults every
solution meets, and the shortcut agents (a constant answer, the default outcome) that must
score 0 or less."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from workgym import quality, shortcuts
from workgym.agents.reference import Branch, run_script
from workgym.local import LocalServer
from workgym.quality import Verdict, check, inspector, table
from workgym.sdk import Env, Observation
from workgym.shortcuts import Target, World
from workgym.tasks import Reference, Task, catalogue

Make = Callable[..., Env]


def _task(apps: list[str], setup: dict[str, list[dict[str, Any]]],
          verifier: list[dict[str, Any]], **more: Any) -> Task:
    verifier = [*verifier, {"name": "nothing_else", "check": "only_changes", "allow": []},
                {"name": "told", "check": "answer_states", "facts": []}][:max(3, len(verifier) + 1)]
    return Task.model_validate({
        "id": "test/shortcut", "suite": "test", "apps": apps, "title": "A test task",
        "difficulty": "easy", "tags": ["test"],
        "instruction": "Do what the test task asks of you, and nothing else.",
        "setup": setup, "verifier": verifier,
        "reference": {"steps": [{"call": "GET /api/v2/tickets", "app": apps[0]}]}, **more})


def _db(table: str, columns: str, rows: list[tuple[Any, ...]]) -> bytes:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE {table} ({columns})")
    marks = ", ".join("?" for _ in rows[0])
    db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    db.commit()
    return db.serialize()


TICKETS = [(i, f"2025-06-{i:02d}T09:00:00Z") for i in range(1, 11)]
TICKET_TASK = _task(
    ["helpdesk"], {"helpdesk": [
        {"factory": "ticket", "bind": "ticket"},
        {"select": "groups", "where": {"name": "Billing"}, "bind": "billing"},
        {"bind": "d", "draw": {"n": {"between": [1, 9]}}}]},
    [{"name": "routed", "check": "field_changed", "table": "tickets",
      "where": {"id": "$ticket.id"}, "field": "group_id", "to": "$billing.id"},
     {"name": "counted", "check": "answer", "type": "count", "value": "$d.n"}])


def test_targets_are_the_bound_rows_the_verifier_names_with_their_tables() -> None:
    assert shortcuts.targets(TICKET_TASK) == [Target("helpdesk", "ticket", "tickets"),
                                              Target("helpdesk", "billing", "groups")]
    # The table's newest row at setup, whatever it is, marks what the episode adds after it:
    # a watermark, not the case's record.
    marked = _task(["helpdesk"], {"helpdesk": [
        {"factory": "ticket", "bind": "ticket"},
        {"select": "tickets", "order_by": "-id", "bind": "last"}]},
        [{"name": "none_new", "check": "row_absent", "table": "tickets",
          "where": {"id": {"gt": "$last.id"}}},
         {"name": "solved", "check": "field_changed", "table": "tickets",
          "where": {"id": "$ticket.id"}, "field": "status", "to": "solved"}])
    assert shortcuts.targets(marked) == [Target("helpdesk", "ticket", "tickets")]
    cross = catalogue().get("helpdesk/refund-standard")
    assert {str(t) for t in shortcuts.targets(cross)} >= {
        "checkout.charge (charges)", "checkout.order (orders)", "helpdesk.ticket (tickets)"}


def test_a_target_that_is_the_newest_or_first_record_stands_out() -> None:
    states = {"helpdesk": _db("tickets", "id INTEGER, created_at VARCHAR", TICKETS)}

    def standing(ticket: int) -> list[str]:
        world = World({"helpdesk": {"ticket": {"id": ticket}, "billing": {"id": 1}}}, states)
        return shortcuts.extremes(TICKET_TASK, world).get(
            Target("helpdesk", "ticket", "tickets"), [])

    assert standing(10) == ["newest id", "newest created_at"]
    assert standing(1) == ["first id", "first created_at"]
    assert standing(5) == []


def test_a_record_number_stands_out_within_its_prefix_and_configuration_never() -> None:
    task = _task(["checkout"], {"checkout": [{"factory": "order", "bind": "order"}]},
                 [{"name": "cancelled", "check": "field_changed", "table": "orders",
                   "where": {"id": "$order.id"}, "field": "status", "to": "canceled"}])
    rows = [(i, f"A-{13000 + i}", f"2025-0{1 + i % 5}-01") for i in range(1, 9)]
    states = {"checkout": _db("orders", "id INTEGER, number VARCHAR, placed_at VARCHAR",
                              [*rows, (9, "L-99999", "2025-03-02")])}
    order = Target("checkout", "order", "orders")
    assert shortcuts.extremes(task, World({"checkout": {"order": {"id": 8}}}, states)) == {
        order: ["highest number"]}
    assert shortcuts.extremes(task, World({"checkout": {"order": {"id": 6}}}, states)) == {}
    groups = {"helpdesk": _db("groups", "id INTEGER, name VARCHAR", [(1, "Billing")])}
    assert shortcuts.extremes(TICKET_TASK, World({"helpdesk": {"billing": {"id": 1}}},
                                                 groups)) == {}


def test_the_answer_key_is_what_the_question_checks_accept_in_the_instance() -> None:
    assert shortcuts.is_question(TICKET_TASK)
    key = shortcuts.answer_key
    four, five = {"helpdesk": {"d": {"n": 4}}}, {"helpdesk": {"d": {"n": 5}}}
    assert key(TICKET_TASK, four) == key(TICKET_TASK, {"helpdesk": {"d": {"n": 4}}})
    assert key(TICKET_TASK, four) != key(TICKET_TASK, five)
    # An outcome's own checks (their `when`) judge only its instances: two outcomes whose
    # answers state no value of the instance still accept different answers.
    either = _task(["helpdesk"], {"helpdesk": [{"bind": "v", "draw": {"yes": {"choice": [0, 1]}}}]},
                   [{"name": "yes", "check": "answer_states", "when": "$v.yes == 1",
                     "facts": [{"claim": "refunded"}]},
                    {"name": "no", "check": "answer_states", "when": "$v.yes == 0",
                     "facts": [{"claim": "not_refunded"}]}])
    yes, no = ({"helpdesk": {"v": {"yes": n}}} for n in (1, 0))
    assert key(either, yes) != key(either, no)
    assert key(either, yes) == key(either, {"helpdesk": {"v": {"yes": 1}}})
    # A report of what was done (no typed answer) asks no question: a constant one is the
    # default-outcome shortcut's to catch, not the answers column's.
    assert not shortcuts.is_question(either)
    issued = _task(["helpdesk"], {"helpdesk": [{"bind": "v", "draw": {"yes": {"choice": [0, 1]}}}]},
                   [{"name": "code", "check": "answer_matches", "when": "$v.yes == 1",
                     "contains_all": ["CREDIT-"]}])
    assert not shortcuts.is_question(issued)  # a value one outcome gives, not a question


def test_the_columns_judge_their_shares_of_the_seeds() -> None:
    verdict = Verdict("t", 3, sampled=10, target=2, answers=2,
                      outcomes=Counter({"0": 4, "1": 6}))
    assert verdict.target_hidden and verdict.answers_vary and verdict.decided
    assert (verdict.share(verdict.target), verdict.split) == ("2/10", "2/2 4:6")
    assert not Verdict("t", 3, sampled=10, target=3).target_hidden
    assert not Verdict("t", 3, sampled=10, answers=3).answers_vary
    lopsided = Verdict("t", 3, sampled=10, outcomes=Counter({"0": 8, "1": 2}))
    alone = Verdict("t", 3, sampled=10, outcomes=Counter({"1": 10}))
    assert (lopsided.decided, lopsided.split) == (False, "1/2 8:2")
    assert (alone.decided, alone.split) == (False, "1/2 10")
    assert Verdict("t", 3).target_hidden is None and Verdict("t", 3).split == "-"
    head, _, line, _, totals = table([verdict]).splitlines()
    assert head.split()[-9:] == ["target", "decision", "answers", "fault", "met", "const",
                                 "default", "browser", "gate"]
    assert line.split()[-8:-1] == ["2/10", "2/2", "4:6", "2/10", "-", "-", "-"]
    assert "targets hidden in 1/1 tasks, decisions split in 1/1, answers varied in 1/1" in totals


class _Scripted(Env):
    """An Env whose every call answers ``{"ok": true}``: the path of a script alone."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.observation = Observation("e", "t", 0, "", "check 1", [], {"app": "http://x"},
                                       10, "tok", "r")

    def call(self, method: str, path: str, json: Any = None, params: Any = None,
             app: str | None = None, headers: Any = None) -> httpx.Response:
        self.paths.append(path)
        return httpx.Response(200, json={"ok": True})


def test_a_forced_branch_runs_its_when_steps_whatever_was_read() -> None:
    script = Reference.model_validate({"given": {"flag": r"check (\d)"}, "steps": [
        {"call": "GET /read"},
        {"call": "POST /refund", "when": "saved('flag') == '1'"},
        {"call": "POST /decline", "when": "saved('flag') != '1'"}]})
    natural, forced = Branch(), Branch(forced=(False, True))
    env = _Scripted()
    run_script(env, script, branch=natural)
    assert (env.paths, natural.taken) == (["/read", "/refund"], [True, False])
    env = _Scripted()
    run_script(env, script, branch=forced)
    assert (env.paths, forced.taken) == (["/read", "/decline"], [False, True])


def test_the_inspector_reads_the_bound_rows_and_initial_states(
        make_env: Make, local: LocalServer) -> None:
    env = make_env("helpdesk/refund-standard", 3)
    env.reset()
    world = inspector(local)(env)
    assert world.vars["helpdesk"]["ticket"]["id"] and world.vars["checkout"]["order"]["number"]
    assert set(world.states) == {"checkout", "helpdesk"}
    db = sqlite3.connect(":memory:")
    db.deserialize(world.states["helpdesk"])
    assert db.execute("SELECT COUNT(*) FROM tickets WHERE id = ?",
                      (world.vars["helpdesk"]["ticket"]["id"],)).fetchone() == (1,)


def test_a_question_s_answers_are_counted_over_the_sample_and_a_constant_answer_fails(
        make_env: Make, local: LocalServer) -> None:
    verdict, = check([catalogue().get("tracker/jql-blocked-by-issue")], (0, 1), make_env,
                     restated=False, world=inspector(local))
    assert verdict.sampled == quality.SAMPLE and verdict.answers is not None
    assert verdict.target is not None
    passed, runs = verdict.counts["constant answer"]
    assert runs == 2 and passed == 2, verdict.failures  # each seed's answer on the other


def test_a_constant_answer_that_scores_is_a_failure(make_env: Make) -> None:
    task = catalogue().get("tracker/jql-blocked-by-issue")
    with make_env(task.id, 5) as env:
        env.reset()
        right = run_script(env, task.reference)
    verdict = Verdict(task.id, 1)
    quality._run(verdict, make_env, task, 5, "constant answer", "constant answer",
                 task.reference, False, None, answer=right)
    assert verdict.counts["constant answer"] == [0, 1] and not verdict.ok


def test_a_decision_is_split_and_the_default_outcome_fails_where_it_is_wrong(
        make_env: Make, local: LocalServer) -> None:
    task = catalogue().get("checkout/refund-requested-order")
    assert task.decision is not None
    verdict, seen = Verdict(task.id, 1), quality.Seen()
    world = inspector(local)
    seen.record(0, quality._run(verdict, make_env, task, 0, "reference", "reference",
                                task.reference, False, None, inspect=world))
    quality._shortcuts(verdict, make_env, task, (0,), seen, world)
    assert verdict.outcomes is not None and sum(verdict.outcomes.values()) == quality.SAMPLE
    passed, runs = verdict.counts["default outcome"]
    assert runs == len(verdict.outcomes) - 1  # seed 0 forced down each other outcome's steps
    assert sum("default outcome" in f for f in verdict.failures) == runs - passed
    # The branch the seed's own outcome takes is the reference: forced down it, it passes,
    # and a "default outcome" that passes fails the gate.
    natural = quality._run(Verdict(task.id, 1), make_env, task, 0, "reference", "reference",
                           task.reference, False, None).branch.taken
    forced = Verdict(task.id, 1)
    quality._run(forced, make_env, task, 0, "default", "default outcome", task.reference,
                 False, None, branch=Branch(forced=tuple(natural)))
    assert forced.counts["default outcome"] == [0, 1] and not forced.ok


def test_a_solution_that_meets_no_fault_fails_the_fault_column(
        make_env: Make, local: LocalServer) -> None:
    task = catalogue().get("checkout/refund-under-timeouts")
    solutions = [kind for kind, _, _ in task.solutions().values()]
    met, = check([task], (0,), make_env, restated=False, world=inspector(local))
    assert met.counts["fault met"][1] == len(solutions)
    assert met.counts["fault met"][0] >= 1  # the reference meets the refund's timeout
    unmet, = check([task], (0,), lambda t, s: make_env(t, s, "none"), restated=False,
                   world=inspector(local))
    assert unmet.counts["fault met"] == [0, len(solutions)] and not unmet.ok
    assert any("met none of the task's faults" in f for f in unmet.failures)


def test_without_the_world_the_gate_checks_no_shortcut(make_env: Make) -> None:
    verdict, = check([catalogue().get("tracker/jql-blocked-by-issue")], (0,), make_env,
                     restated=False)
    assert verdict.target is None and "constant answer" not in verdict.counts


def test_the_cli_gate_checks_every_task_named_with_the_world(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from workgym import cli

    monkeypatch.setenv("WORKGYM_DATA_DIR", str(tmp_path))
    seen: dict[str, Any] = {}

    def main_check(tasks: list[Task], seeds: int, make: Any, world: Any = None,
                   browser: Any = None) -> int:
        seen.update(tasks=[t.id for t in tasks], seeds=seeds, world=world, browser=browser)
        return 0

    monkeypatch.setattr(quality, "main_check", main_check)
    assert cli.main(["tasks", "check", "--task", "tracker/jql-blocked-by-issue",
                     "--task", "helpdesk/password-reset", "--seeds", "2"]) == 0
    assert seen["tasks"] == ["helpdesk/password-reset", "tracker/jql-blocked-by-issue"]
    assert seen["seeds"] == 2 and callable(seen["world"])
    assert seen["browser"] is None  # neither has a browser: solution


def test_a_decision_whose_reference_never_branches_fails(make_env: Make,
                                                        local: LocalServer) -> None:
    """The default outcome is the reference forced down another outcome's `when` steps: a
    reference that takes the same steps on every outcome leaves nothing to force."""
    branching = catalogue().get("tracker/perm-assign-requested")
    # Its reference with the branches taken on every outcome: the same steps whatever it read.
    steps = [step.model_copy(update={"when": None}) for step in branching.reference.steps]
    task = branching.model_copy(update={
        "reference": branching.reference.model_copy(update={"steps": steps})})
    assert task.decision is not None and not any(s.when for s in task.reference.steps)
    verdict, seen = Verdict(task.id, 1), quality.Seen()
    world = inspector(local)
    seen.record(0, quality._run(verdict, make_env, task, 0, "reference", "reference",
                                task.reference, False, None, inspect=world))
    quality._shortcuts(verdict, make_env, task, (0,), seen, world)
    assert verdict.decided and "default outcome" not in verdict.counts
    assert any("no default outcome can be forced" in f for f in verdict.failures)
