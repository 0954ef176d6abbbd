"""The state machines a compiled app's rules declare, as the API enforces them: a guard the
product enforces refuses entering its state (naming the column), an effect sets its columns,
and changes that do not move the state pass as they are."""

from __future__ import annotations

import pytest

from replicas.runtime.machines import Guard, Machine, enter
from workgym_core.errors import RuleViolation

STAGE = Machine(
    "deal_stage", "deals", "dealstage",
    guards=(Guard("closedwon", {"amount": "present", "closedate": "present"}),
            Guard("closedlost", {"reason": "present"}, from_="contractsent")),
    effects={"closedwon": {"probability": "1.0"}})


def test_a_guard_refuses_entering_its_state_naming_the_column() -> None:
    with pytest.raises(RuleViolation) as refused:
        enter((STAGE,), {"dealstage": "contractsent", "amount": 5.0},
              {"dealstage": "closedwon"})
    assert (refused.value.field, refused.value.rule) == ("closedate", "deal_stage")
    # a guard from one state only: entering from another passes
    assert enter((STAGE,), {"dealstage": "qualifiedtobuy"}, {"dealstage": "closedlost"}) == {
        "dealstage": "closedlost"}


def test_an_effect_sets_its_columns_and_the_changes_win() -> None:
    row = {"dealstage": "contractsent", "amount": 5.0, "closedate": "2025-06-01T00:00:00Z"}
    assert enter((STAGE,), row, {"dealstage": "closedwon"}) == {
        "dealstage": "closedwon", "probability": "1.0"}
    assert enter((STAGE,), row, {"dealstage": "closedwon", "probability": "0.9"}) == {
        "dealstage": "closedwon", "probability": "0.9"}
    # a new record entering the state meets its guards too
    with pytest.raises(RuleViolation):
        enter((STAGE,), {}, {"dealstage": "closedwon"})


def test_changes_that_keep_the_state_pass_as_they_are() -> None:
    row = {"dealstage": "closedwon"}
    assert enter((STAGE,), row, {"amount": None}) == {"amount": None}
    assert enter((STAGE,), row, {"dealstage": "closedwon"}) == {"dealstage": "closedwon"}
