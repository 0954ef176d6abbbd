"""``workgym factory tasks`` on the hand-written checkout and tracker: their rules files
(``replicas/<app>/source/rules.yaml``) give the families their app-specific routes (Jira's
transition ids read before the transition, the checkout telling in the final answer), and the
committed generated tasks re-derive from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym.factory.families import FAMILIES
from workgym.factory.synthesis import HEADER, Candidate, load_app, render
from workgym.tasks import TASKS_DIR

APPS = ("checkout", "tracker")


def candidates(app: str) -> dict[str, Candidate]:
    rules = load_app(app)
    return {c.task_id: c for family in FAMILIES for c in family.candidates(rules)}


@pytest.fixture(scope="module")
def built() -> dict[str, dict[str, Candidate]]:
    return {app: candidates(app) for app in APPS}


def generated(app: str) -> list[Path]:
    return [path for path in sorted((TASKS_DIR / app).glob("*.yaml"))
            if path.read_text().startswith(HEADER.split("{app}")[0] + f"{app} ")]


@pytest.mark.parametrize("app", APPS)
def test_the_apps_rules_give_several_families_unique_candidates(
        app: str, built: dict[str, dict[str, Candidate]]) -> None:
    found = built[app]
    assert len({c.family for c in found.values()}) >= 2
    again = {task_id: render(c, app) for task_id, c in candidates(app).items()}
    assert again == {task_id: render(c, app) for task_id, c in found.items()}


@pytest.mark.parametrize("app", APPS)
def test_each_committed_generated_task_re_derives_byte_for_byte(
        app: str, built: dict[str, dict[str, Candidate]]) -> None:
    files = generated(app)
    assert files
    for path in files:
        assert path.read_text() == render(built[app][f"{app}/{path.stem}"], app), path.name


def test_a_jira_transition_reads_its_id_first(
        built: dict[str, dict[str, Candidate]]) -> None:
    task = built["tracker"]["tracker/lookup-act-tell-ops-workflow-in-progress-by-key"].body
    read, move = task["reference"]["steps"][1:3]
    assert read["call"] == "GET /rest/api/3/issue/{{row.key}}/transitions"
    assert read["save"] == {"transition": "transitions[?to.name=='In Progress'] | [0].id"}
    assert move["call"] == "POST /rest/api/3/issue/{{row.key}}/transitions"
    assert move["json"] == {"transition": {"id": "{transition}"}} and move["expect"] == 204
    # The issue made under the ops workflow (its make_with: PLAT), in the transition's start.
    made = next(op for op in task["setup"] if op.get("bind") == "row")
    assert (made["project"], made["status"]) == ("PLAT", "Open")


def test_a_checkout_record_is_told_in_the_final_answer(
        built: dict[str, dict[str, Candidate]]) -> None:
    task = built["checkout"]["checkout/lookup-act-tell-payment-intent-succeeded-by-order"].body
    assert task["reference"]["answer"] == "We have captured the payment for order {number}."
    assert task["reference"]["steps"][-1]["call"] == "POST /v1/payment_intents/{{row.id}}/capture"
    told = next(check for check in task["verifier"] if check["name"] == "party_told")
    assert told == {"name": "party_told", "check": "answer_states",
                    "facts": [{"claim": "capture"}]}
    assert "final answer" in task["instruction"]
