"""``workgym factory tasks crm --family cross-settle``: a customer's deal settled by their
payment in the checkout and answered on their helpdesk ticket, and the tasks it wrote."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from workgym.factory.families.cross_settle import CrossSettle
from workgym.factory.synthesis import HEADER, Candidate, gate, load_app, render
from workgym.tasks import TASKS_DIR

APP = "crm"
FAMILY = CrossSettle()


@pytest.fixture(scope="module")
def candidates() -> dict[str, Candidate]:
    return {c.task_id: c for c in FAMILY.candidates(load_app(APP))}


def written() -> list[Path]:
    header = HEADER.format(app=APP, family=FAMILY.name)
    return [path for path in sorted((TASKS_DIR / "cross").glob("*.yaml"))
            if path.read_text().startswith(header)]


def test_the_candidates_span_the_crm_the_checkout_and_the_helpdesk(
        candidates: dict[str, Candidate]) -> None:
    assert len(candidates) >= 4
    for candidate in candidates.values():
        body = candidate.body
        assert body["apps"] == ["crm", "checkout", "helpdesk"]
        assert {step["app"] for step in body["reference"]["steps"]} == set(body["apps"])
        only = next(v for v in body["verifier"] if v["check"] == "only_changes")
        assert {rule.get("app", "crm") for rule in only["allow"]} == {"crm", "helpdesk"}


def test_a_drawn_outcome_makes_the_payment_each_way_and_judges_each(
        candidates: dict[str, Candidate]) -> None:
    body = candidates["cross/cross-settle-checkout-helpdesk-checked"].body
    assert body["decision"] == "crm.verdict.ok"
    assert body["setup"]["crm"][0] == {"bind": "verdict", "draw": {"ok": {"cycle": [1, 0]}}}
    payments = [op for op in body["setup"]["checkout"] if op.get("bind") == "payment"]
    assert [(op["status"], op["when"]) for op in payments] == [
        ("succeeded", "$crm.verdict.ok == 1"), ("requires_payment_method", "$crm.verdict.ok == 0")]
    judged = {(v["name"], v.get("when")) for v in body["verifier"]}
    assert {("dealstage_closedwon", "$crm.verdict.ok == 1"),
            ("values_copied", "$crm.verdict.ok == 1"),
            ("dealstage_kept", "$crm.verdict.ok == 0")} <= judged


def test_the_candidates_are_deterministic(candidates: dict[str, Candidate]) -> None:
    again = {c.task_id: render(c, APP) for c in FAMILY.candidates(load_app(APP))}
    assert again == {task_id: render(c, APP) for task_id, c in candidates.items()}


def test_each_committed_task_re_derives_byte_for_byte(
        candidates: dict[str, Candidate]) -> None:
    files = written()
    assert len(files) >= 4
    for path in files:
        candidate = candidates[f"cross/{path.stem}"]
        assert path.read_text() == render(candidate, APP), path.name
        assert {"factory", FAMILY.name, "cross-app"} <= set(candidate.body["tags"])


def test_the_gate_passes_a_paid_deal_and_refuses_one_that_copies_no_amount(
        candidates: dict[str, Candidate]) -> None:
    """Settling the deal without the payment's amount and currency is no solution: made the
    reference, the candidate fails the gate."""
    good = candidates["cross/cross-settle-checkout-helpdesk-paid"]
    body = copy.deepcopy(good.body)
    act = next(s for s in body["reference"]["steps"] if s["call"].startswith("PATCH"))
    act["json"]["properties"] = {"dealstage": "closedwon"}
    bad = Candidate("cross/cross-settle-copies-nothing", good.family, body)
    results = {g.candidate.task_id: g for g in gate([good, bad], 1, APP)}
    assert results[good.task_id].ok, results[good.task_id].line
    assert not results[bad.task_id].ok
    assert "values_copied" in results[bad.task_id].line
