"""``workgym factory tasks crm``: the CRM's families (its rules' records, links, follow-ups,
assigns, merges and what customers ask in the helpdesk) and the tasks they wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym.factory.families import FAMILIES
from workgym.factory.synthesis import HEADER, Candidate, gate, load_app, render
from workgym.tasks import TASKS_DIR

APP = "crm"
KINDS = {"lookup-act", "question", "link", "follow-up", "assign", "guarded-act", "merge",
         "cross-act-tell", "cross-settle"}


@pytest.fixture(scope="module")
def candidates() -> dict[str, Candidate]:
    app = load_app(APP)
    return {c.task_id: c for family in FAMILIES for c in family.candidates(app)}


def generated(suite: str) -> list[Path]:
    """The committed task files of ``suite`` that `workgym factory tasks crm` wrote."""
    return [path for path in sorted((TASKS_DIR / suite).glob("*.yaml"))
            if path.read_text().startswith(HEADER.split("{app}")[0] + f"{APP} ")]


def test_the_crm_rules_make_candidates_of_nine_family_kinds(
        candidates: dict[str, Candidate]) -> None:
    assert {c.family for c in candidates.values()} == KINDS
    cross = [c for c in candidates.values() if c.family == "cross-act-tell"]
    assert cross and all(c.body["apps"] == ["crm", "helpdesk"] for c in cross)


def test_the_crm_candidates_are_deterministic(candidates: dict[str, Candidate]) -> None:
    again = {c.task_id: render(c, APP) for family in FAMILIES
             for c in family.candidates(load_app(APP))}
    assert again == {task_id: render(c, APP) for task_id, c in candidates.items()}


@pytest.mark.parametrize(("suite", "least"), [("crm", 60), ("cross", 10)])
def test_each_committed_crm_task_re_derives_byte_for_byte(
        candidates: dict[str, Candidate], suite: str, least: int) -> None:
    files = generated(suite)
    assert len(files) >= least
    for path in files:
        candidate = candidates[f"{suite}/{path.stem}"]
        assert path.read_text() == render(candidate, APP), path.name
        assert {"factory", candidate.family} <= set(candidate.body["tags"])


def test_a_policy_decision_is_gated_on_both_outcomes(candidates: dict[str, Candidate]) -> None:
    """The won-deal policy's decision passes on a seed of each outcome; made to act whatever
    the amount (its reference's guard dropped), it fails: acting without one is harm."""
    good = candidates[f"{APP}/guarded-act-deal-dealstage-closedwon-without-amount"]
    steps = [{k: v for k, v in step.items() if k != "when"}
             for step in good.body["reference"]["steps"]]
    careless = Candidate(f"{APP}/guarded-act-careless", good.family, {
        **good.body, "reference": {**good.body["reference"], "steps": steps}})
    results = gate([good, careless], 2, APP)
    assert [(g.candidate.task_id, g.ok) for g in results] == [
        (good.task_id, True), (careless.task_id, False)]
