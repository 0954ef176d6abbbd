"""Task files: what the catalogue derives from them, what it adds (each app's benign
allowances), what it refuses, and what agents may see of them; and the script language
their solutions are written in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from replicas.runtime.spec import read_allowances
from workgym.agents.reference import ReferenceFailed, run_script
from workgym.task_files import TaskFileError
from workgym.tasks import Reference, Task, TaskDetail, load_task
from workgym_reward.assertions import OnlyChanges

SETUP = [{"bind": "ticket", "factory": "ticket"}]
BASE: dict[str, Any] = {
    "title": "A task", "difficulty": "easy", "tags": ["t"],
    "instruction": "Help {{ ticket.subject }} please, then solve the ticket.",
    "setup": SETUP,
    "reference": {"steps": [{"call": "GET /api/v2/tickets"},
                            {"call": "GET /api/v2/tickets/1", "when": "saved('x')"}]},
    "verifier": [
        {"name": "solved", "check": "field_changed", "table": "tickets",
         "where": {"id": "$ticket.id"}, "field": "status", "to": "solved"},
        {"name": "not_merged", "check": "row_absent", "table": "tickets",
         "where": {"merged_into_id": "$ticket.id"}},
        {"name": "nothing_else", "check": "only_changes", "allow": []},
    ],
}


def _load(tmp_path: Path, **changes: Any) -> Task:
    path = tmp_path / "helpdesk" / "a-task.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump({**BASE, **changes}))
    return load_task(path, tmp_path)


def _allowed(task: Task) -> list[tuple[str, str]]:
    check = next(a for a in task.verifier.root if isinstance(a, OnlyChanges))
    return [(rule.table, rule.op) for rule in check.allow]


def test_only_changes_gets_the_apps_benign_changes_on_the_case(tmp_path: Path) -> None:
    benign = [(rule["table"], rule["op"]) for rule in read_allowances("helpdesk")]
    assert benign[:2] == [("comments", "insert"), ("tickets", "update")]  # notes, tags
    assert _allowed(_load(tmp_path)) == benign  # every one of them, after the task's own


def test_a_task_may_refuse_them_and_a_task_without_a_case_gets_none(tmp_path: Path) -> None:
    strict = [*BASE["verifier"][:2],
              {"name": "nothing_else", "check": "only_changes", "benign": False}]
    assert _allowed(_load(tmp_path, verifier=strict)) == []
    # Without a bound `ticket`, only the allowances about no case at all (bulk jobs) remain.
    unbound = [(rule["table"], rule["op"]) for rule in read_allowances("helpdesk")
               if "$" not in str(rule)]
    assert len(unbound) < len(read_allowances("helpdesk"))
    no_case = [{"bind": "someone", "factory": "customer"}]
    assert _allowed(_load(tmp_path, setup=no_case,
                          instruction="Help {{ someone.name }} with their account.")) == unbound


def test_a_decision_is_the_seeds_and_judged_by_outcome(tmp_path: Path) -> None:
    verdict = {"bind": "verdict", "draw": {"solve": {"cycle": [1, 0]}}}
    judged = [{**BASE["verifier"][0], "when": "$verdict.solve == 1"}, *BASE["verifier"][1:]]
    task = _load(tmp_path, setup=[*SETUP, verdict], verifier=judged, decision="verdict.solve")
    assert task.outcome({"helpdesk": {"verdict": {"solve": 0}}}) == 0
    assert _load(tmp_path).outcome({}) is None  # no decision


def test_allowances_cover_only_the_case_s_records(tmp_path: Path) -> None:
    """An approval is benign only for the charge the setup binds, and a check judged in
    another app names it by its app (a task of the checkout and the helpdesk)."""
    two_apps = {
        "apps": ["checkout", "helpdesk"],
        "setup": {"checkout": [{"bind": "customer", "factory": "customer"},
                               {"bind": "order", "factory": "order",
                                "customer": "$customer.stripe_id"},
                               {"bind": "charge", "select": "charges",
                                "where": {"payment_intent": "$order.payment_intent"}}],
                  "helpdesk": SETUP},
        "verifier": [{**BASE["verifier"][0], "app": "helpdesk"},
                     {**BASE["verifier"][1], "app": "helpdesk"},
                     {"name": "nothing_else", "check": "only_changes", "app": "helpdesk"}],
    }
    check = next(a for a in _load(tmp_path, **two_apps).verifier.root
                 if isinstance(a, OnlyChanges))
    approvals = [(rule.op, rule.where) for rule in check.allow
                 if rule.app == "checkout" and rule.table == "refund_approvals"]
    assert approvals == [("insert", {"charge": "$checkout.charge.stripe_id"}),
                         ("update", {"charge": "$checkout.charge.stripe_id"})]
    notes = next(rule for rule in check.allow if rule.table == "comments")
    assert notes.app == "helpdesk" and notes.where["ticket_id"] == "$ticket.id"


def test_the_step_count_is_the_shortest_path(tmp_path: Path) -> None:
    assert _load(tmp_path).reference_steps == 1  # the step with a `when` is not counted


def test_agents_see_no_solution_nor_its_size(tmp_path: Path) -> None:
    detail = _load(tmp_path).detail()
    assert set(TaskDetail.model_fields) == {
        "id", "suite", "apps", "title", "difficulty", "tags", "instruction", "max_steps"}
    assert detail.instruction == BASE["instruction"]  # the template, never an instance


@pytest.mark.parametrize(("changes", "message"), [
    ({"near_misses": [{"name": "x", "drop": [7]}]}, "x: no reference step \\[7\\]"),
    ({"alternatives": [{"name": "x", "steps": [{"call": "GET /a"}]}],
      "near_misses": [{"name": "x", "steps": [{"call": "GET /b"}]}]}, "repeated: \\['x'\\]"),
    ({"reference": {"given": {"email": "(unclosed"}, "steps": [{"call": "GET /a"}]}},
     "given.email"),
    ({"setup": [{"bind": "t", "draw": {"x": {"between": [5, 1]}}}]}, "5 is above 1"),
    ({"decision": "verdict.refund"}, "the setup of helpdesk binds no 'verdict'"),
    ({"decision": "verdict.refund",
      "setup": [*SETUP, {"bind": "verdict", "draw": {"refund": {"cycle": [1, 0]}}}]},
     "no assertion judges by it"),
])
def test_bad_task_files_are_named(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(TaskFileError, match=message):
        _load(tmp_path, **changes)


# --- the script language -----------------------------------------------------------------

class _Observation:
    instruction = "Refund Ada (ada@example.com) for order A-10423."


class _Env:
    """Answers like an app would: what each path holds; records what was asked."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, str, Any, Any]] = []
        self.observation = _Observation()

    def call(self, method: str, path: str, json: Any = None, params: Any = None,
             app: str | None = None, headers: Any = None) -> httpx.Response:
        self.sent.append((method, path, json, params))
        return httpx.Response(201 if method == "POST" else 200, json=self.answers.get(path, {}))


def _script(**raw: Any) -> Reference:
    return Reference.model_validate(raw)


def test_a_script_knows_the_instruction_and_what_it_read() -> None:
    env = _Env({"/api/v2/users/search": {"users": [{"id": 7, "name": "Ada"}]},
                "/orders": {"data": [{"id": 3, "number": "A-10423", "total": 2900,
                                      "currency": "USD"}]}})
    script = _script(
        given={"email": r"\((\S+@\S+)\)", "number": r"A-\d+"},
        steps=[{"call": "GET /api/v2/users/search", "params": {"query": "{email}"},
                "save": {"customer": "users[0]"}},
               {"call": "GET /orders", "maybe": {
                   "order": "data[?number == saved('number')] | [0]",
                   "missing": "data[?number == 'Z-1'] | [0]"}},
               {"call": "POST /notes", "when": "saved('missing')", "json": {"x": 1}},
               {"call": "POST /refunds/{{order.id}}", "json": {
                   "customer": "{{ customer.id }}",
                   "text": "{{ order.total | money: order.currency }} for {{ customer.name }}"}}],
        answer="Refunded {number}")
    assert run_script(env, script) == "Refunded A-10423"  # type: ignore[arg-type]  # a fake Env
    assert env.sent == [
        ("GET", "/api/v2/users/search", None, {"query": "ada@example.com"}),
        ("GET", "/orders", None, None),
        ("POST", "/refunds/3", {"customer": 7, "text": "USD 29.00 for Ada"}, None),
    ]


def test_a_script_fails_on_what_it_cannot_find() -> None:
    with pytest.raises(ReferenceFailed, match="found nothing to save as order"):
        run_script(_Env({}), _script(steps=[  # type: ignore[arg-type]  # a fake Env
            {"call": "GET /orders", "save": {"order": "data[0]"}}]))
    with pytest.raises(ReferenceFailed, match="not in the instruction"):
        run_script(_Env({}), _script(given={"phone": r"\+\d+"},  # type: ignore[arg-type]  # a fake Env
                                     steps=[{"call": "GET /orders"}]))


def test_match_takes_a_part_of_a_text() -> None:
    env = _Env({"/api/v2/tickets/4/comments": {"comments": [
        {"body": "Sure, the code I got is 482913."}]}})
    script = _script(steps=[{"call": "GET /api/v2/tickets/4/comments", "save": {
        "code": "match(comments[-1].body, '(\\d{6})')"}, "maybe": {
        "order": "match(comments[-1].body, 'A-\\d+')"}}], answer="{code} {order}")
    assert run_script(env, script) == "482913 None"  # type: ignore[arg-type]  # a fake Env
