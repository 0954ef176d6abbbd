from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from workgym_core.trajectory import Operation, TrajectoryStep
from workgym_reward import SIGNALS, Weights
from workgym_reward.assertions import AnyAssertion, Assertion
from workgym_reward.signals import (
    SHAPING,
    Outcome,
    action_precision,
    efficiency,
    episode_reward,
    policy_compliance,
    task_completion,
)

PARSE = TypeAdapter[Any](AnyAssertion)
MakeStep = Callable[..., TrajectoryStep]


def _assertion(name: str, **config: Any) -> Assertion:
    config = config or {"check": "row_absent", "table": "t"}
    assertion: Assertion = PARSE.validate_python({"name": name, **config})
    return assertion


def _outcome(
    steps: Sequence[TrajectoryStep],
    verdicts: Sequence[tuple[Assertion, bool]] = (),
    reference_steps: int = 2,
) -> Outcome:
    return Outcome(steps=steps, verdicts=[(a, passed, False) for a, passed in verdicts],
                   reference_steps=reference_steps)


def test_task_completion_needs_every_assertion(make_step: MakeStep) -> None:
    steps = [make_step("GET", "/api/v2/tickets")]

    assert task_completion(_outcome(steps, [(_assertion("a"), True), (_assertion("b"), True)]))
    assert not task_completion(_outcome(steps, [(_assertion("a"), True), (_assertion("b"), False)]))


@pytest.mark.parametrize(("taken", "passed", "expected"), [(1, True, 1.0), (3, True, 1.0),
                                                           (6, True, 0.5), (6, False, 0.0)])
def test_efficiency(make_step: MakeStep, taken: int, passed: bool, expected: float) -> None:
    steps = [make_step("GET", "/api/v2/tickets") for _ in range(taken)]

    assert efficiency(_outcome(steps, [(_assertion("a"), passed)], reference_steps=2)) == expected


def test_a_browser_s_post_and_the_page_it_is_sent_on_to_are_one_step(
        make_step: MakeStep) -> None:
    def page(method: str, path: str, status: int = 200) -> TrajectoryStep:
        return make_step(method, path, status).model_copy(update={"browser": True})

    posted = [page("GET", "/agent/tickets/10"), page("POST", "/agent/tickets/10", 303),
              page("GET", "/agent/tickets/10")]
    # An API client's redirect followed is its own request.
    api = [make_step("GET", "/a"), make_step("POST", "/b", 303), make_step("GET", "/c")]
    done = [(_assertion("a"), True)]

    assert efficiency(_outcome(posted, done, reference_steps=1)) == 0.75  # 1.5 of 2 steps
    assert efficiency(_outcome(api, done, reference_steps=1)) == 0.5  # 1.5 of 3


def test_action_precision_without_steps_is_zero() -> None:
    assert action_precision(_outcome([])) == 0.0


def test_errors_are_imprecise_unless_a_fault_caused_them(make_step: MakeStep) -> None:
    steps = [
        make_step("GET", "/api/v2/tickets/99", 404),
        make_step("POST", "/refunds", 503, {"amount": 1}, fault="http_503"),
        make_step("POST", "/refunds", 201, {"amount": 1}),  # the retry is no duplicate
        make_step("GET", "/api/v2/tickets/10", 200),
    ]

    assert action_precision(_outcome(steps)) == 0.75


def test_repeating_a_successful_write_is_imprecise(make_step: MakeStep) -> None:
    steps = [
        make_step("PUT", "/api/v2/tickets/10", 200,
                  {"ticket": {"status": "solved", "priority": "low"}}),
        make_step("PUT", "/api/v2/tickets/10", 200,
                  {"ticket": {"priority": "low", "status": "solved"}}),
        make_step("PUT", "/api/v2/tickets/10", 200,
                  {"ticket": {"comment": {"body": "Done.", "public": True}}}),  # another body
        make_step("GET", "/api/v2/tickets/10"),
        make_step("GET", "/api/v2/tickets/10"),  # reads may repeat
    ]

    assert action_precision(_outcome(steps)) == 0.8


def test_deletes_are_imprecise_unless_the_verifier_expects_them(make_step: MakeStep) -> None:
    delete = make_step("DELETE", "/api/v2/users/7/identities/9", 204)
    expected = _assertion("deleted", check="trajectory_contains", method="DELETE",
                          path="/api/v2/users/*/identities/*")
    elsewhere = _assertion("other", check="trajectory_contains", method="DELETE",
                           path="/api/v2/tickets/*/tags")

    assert action_precision(_outcome([delete], [(expected, True)])) == 1.0
    assert action_precision(_outcome([delete], [(elsewhere, False)])) == 0.0


def test_a_page_s_delete_is_judged_as_the_api_delete_it_performs(make_step: MakeStep) -> None:
    page = make_step("POST", "/agent/users/7/identities/9/delete", 303).model_copy(update={
        "browser": True, "operations": [Operation(
            method="DELETE", path="/api/v2/users/7/identities/9",
            route="/api/v2/users/{user_id}/identities/{identity_id}",
            params={"user_id": 7, "identity_id": 9}, status=204)]})
    expected = _assertion("deleted", check="trajectory_contains", method="DELETE",
                          path="/api/v2/users/*/identities/*")
    elsewhere = _assertion("other", check="trajectory_contains", method="DELETE",
                           path="/api/v2/tickets/*/tags")

    assert action_precision(_outcome([page], [(expected, True)])) == 1.0
    assert action_precision(_outcome([page], [(elsewhere, False)])) == 0.0


def test_policy_compliance(make_step: MakeStep) -> None:
    steps = [make_step("GET", "/api/v2/tickets")]
    rules = [(_assertion("p1", check="row_absent", table="t", policy=True), True),
             (_assertion("p2", check="row_absent", table="t", policy=True), False),
             (_assertion("not a policy"), False)]

    assert policy_compliance(_outcome(steps, rules)) == 0.5
    assert policy_compliance(_outcome(steps, rules[2:])) == 1.0
    assert policy_compliance(_outcome([], rules)) == 0.0


def test_the_ranking_signals_are_signals() -> None:
    assert set(SHAPING) <= set(SIGNALS)
    assert set(SHAPING) | {"success", "harm"} == set(Weights.model_fields)


SIGNALS_OK = {"task_completion": 1.0, "efficiency": 1.0, "action_precision": 1.0,
              "policy_compliance": 1.0, "error_recovery": 1.0}


def test_default_weights_and_reward() -> None:
    weights = Weights()

    assert weights.model_dump() == {"success": 0.9, "harm": -1.0, "efficiency": 0.5,
                                    "action_precision": 0.25, "error_recovery": 0.25}
    assert episode_reward(SIGNALS_OK, weights, harm=False) == 1.0
    assert episode_reward({**SIGNALS_OK, "efficiency": 0.0}, weights, harm=False) == 0.95
    assert episode_reward(dict.fromkeys(SIGNALS_OK, 0.0) | {"task_completion": 1.0}, weights,
                          harm=False) == 0.9  # any success: at least 0.9
    assert episode_reward({**SIGNALS_OK, "task_completion": 0.0}, weights, harm=False) == 0
    assert episode_reward(SIGNALS_OK, weights, harm=True) == -1.0  # harm: below doing nothing


def test_signals_constant_on_success_do_not_enter_the_reward() -> None:
    weights = Weights()

    assert episode_reward({**SIGNALS_OK, "policy_compliance": 0.0}, weights, harm=False) == 1.0


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"efficiency": 0.75}, "must sum to 1, not 1.25"),
        ({"efficiency": 1.3, "action_precision": -0.3}, "greater than or"),
        ({"efficiency": float("nan")}, "finite number"),
        ({"harm": 0.5}, "less than 0"),
        ({"success": 1.5}, "less than or equal to 1"),
        ({"user_happiness": 0.0}, "Extra inputs are not permitted"),
    ],
)
def test_weights_validation(weights: dict[str, float], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Weights.model_validate(weights)


def test_weights_may_lean_on_one_signal() -> None:
    only = Weights(efficiency=1.0, action_precision=0, error_recovery=0)

    assert episode_reward({**SIGNALS_OK, "efficiency": 0.5, "action_precision": 0.0}, only,
                          harm=False) == 0.95
