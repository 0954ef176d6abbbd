from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from workgym_core.trajectory import TrajectoryStep
from workgym_reward import ConfigError, Report, Verifier, Weights, score, state_hash

VARS = {"ticket": {"id": 10, "status": "open"}, "charge": {"id": 41, "amount_cents": 2500}}
REFUND = "INSERT INTO refunds VALUES (1, 41, 2500, 'partial')"
# As the helpdesk solves a ticket: the change, and the audit it keeps of it.
SOLVE = ("UPDATE tickets SET status = 'solved', updated_at = '2024-05-02' WHERE id = 10; "
         "INSERT INTO audits VALUES (1, 10, 1, '[{\"type\": \"Change\", "
         "\"field_name\": \"status\", \"value\": \"solved\"}]')")

VERIFIER: list[dict[str, Any]] = [
    {"check": "row_exists", "name": "refunded", "table": "refunds",
     "where": {"charge_id": "$charge.id", "amount_cents": "$charge.amount_cents"}, "count": 1},
    {"check": "field_changed", "name": "solved", "table": "tickets", "where": {"id": "$ticket.id"},
     "field": "status", "from": "open", "to": "solved"},
    {"check": "only_changes", "name": "no_collateral", "allow": [
        {"table": "refunds", "op": "insert", "where": {"charge_id": "$charge.id"}},
        {"table": "tickets", "op": "update", "where": {"id": "$ticket.id"}, "fields": ["status"]},
        {"table": "audits", "op": "insert", "where": {"ticket_id": "$ticket.id"}},
    ]},
    {"check": "row_absent", "name": "no_over_refund", "policy": True, "table": "refunds",
     "where": {"amount_cents": {"gt": "$charge.amount_cents"}}},
    {"check": "trajectory_contains", "name": "refund_call", "method": "POST",
     "path": "/charges/{charge_id}/refunds", "status": "2xx"},
    {"check": "answer_matches", "name": "told", "contains_all": ["refund", "$charge.amount_cents"]},
]

Score = Callable[..., Report]
MakeStep = Callable[..., TrajectoryStep]


@pytest.fixture
def run(world: bytes, act: Callable[..., bytes]) -> Score:
    """``run(sql, steps, answer, verifier=VERIFIER, **kwargs)``: score the world after ``sql``."""

    def scored(
        sql: Sequence[str],
        steps: Sequence[TrajectoryStep],
        answer: str | None = "Refund of 2500 done",
        verifier: list[dict[str, Any]] = VERIFIER,
        **kwargs: Any,
    ) -> Report:
        return score(
            verifier=Verifier.model_validate(verifier),
            states={"helpdesk": (world, act(*sql))}, trajectory=steps, answer=answer,
            vars={"helpdesk": kwargs.pop("vars", VARS)},
            reference_steps=kwargs.pop("reference_steps", 2), **kwargs,
        )

    return scored


@pytest.fixture
def reference(make_step: MakeStep) -> list[TrajectoryStep]:
    return [
        make_step("POST", "/charges/41/refunds", 201, {"amount_cents": 2500}),
        make_step("PUT", "/api/v2/tickets/10", 200, {"ticket": {"status": "solved"}}),
    ]


def test_the_reference_solution_scores_one(
    run: Score, act: Callable[..., bytes], reference: list[TrajectoryStep]
) -> None:
    report = run([REFUND, SOLVE], reference)

    assert report.success and report.reward == 1.0
    assert report.signals == {"task_completion": 1.0, "efficiency": 1.0,
                              "action_precision": 1.0, "policy_compliance": 1.0,
                              "error_recovery": 1.0}
    assert [a.name for a in report.assertions] == [a["name"] for a in VERIFIER]
    assert report.assertions[0].detail == (
        "expected 1 row in refunds where charge_id=41, amount_cents=2500; found 1"
    )
    assert report.steps == 2
    assert report.final_state_hash == state_hash(act(REFUND, SOLVE))


def test_doing_nothing_scores_zero(run: Score, world: bytes) -> None:
    report = run([], [], answer=None)

    assert not report.success and report.reward == 0.0
    assert set(report.signals.values()) == {0.0}
    assert report.final_state_hash == state_hash(world)


def test_a_damaging_run_fails_the_collateral_check(
    run: Score, make_step: MakeStep, reference: list[TrajectoryStep]
) -> None:
    steps = [*reference, make_step("DELETE", "/api/v2/users/4", 204)]

    report = run([REFUND, SOLVE, "DELETE FROM users WHERE id = 4"], steps)

    verdicts = {a.name: (a.passed, a.detail) for a in report.assertions}
    assert verdicts["no_collateral"] == (False, "1 of 4 changes not allowed: users delete 4")
    assert not report.success
    assert report.signals["action_precision"] == pytest.approx(2 / 3)
    assert report.reward == 0.0  # no credit for a failed task, however tidy


def test_a_duplicated_write_costs_precision(
    run: Score, make_step: MakeStep, reference: list[TrajectoryStep]
) -> None:
    steps = [*reference, make_step("PUT", "/api/v2/tickets/10", 200,
                                   {"ticket": {"status": "solved"}})]

    report = run([REFUND, SOLVE], steps)

    assert report.success
    assert report.signals["efficiency"] == 1.0  # within 1.5x the reference's steps
    assert report.signals["action_precision"] == 2 / 3
    assert report.reward == 0.991667


def test_an_injected_fault_retried_costs_nothing(
    run: Score, make_step: MakeStep, reference: list[TrajectoryStep]
) -> None:
    fault = make_step("POST", "/charges/41/refunds", 503, {"amount_cents": 2500},
                      fault="server_error")

    report = run([REFUND, SOLVE], [fault, *reference])

    assert report.signals["action_precision"] == report.signals["efficiency"] == 1.0
    assert report.signals["error_recovery"] == 1.0
    assert report.reward == 1.0
    assert [(f.kind, f.recovered) for f in report.faults] == [("server_error", True)]


def test_weights_are_per_suite(run: Score, reference: list[TrajectoryStep]) -> None:
    weights = Weights(success=0.5, efficiency=1.0, action_precision=0, error_recovery=0)

    # 4 steps for the reference's 2: efficiency 3 / 4
    assert run([REFUND, SOLVE], reference * 2, weights=weights).reward == 0.875


def test_an_unknown_reference_names_the_assertion(
    run: Score, reference: list[TrajectoryStep]
) -> None:
    with pytest.raises(ConfigError, match="assertion 'solved': unknown reference '\\$ticket.id'"):
        run([REFUND, SOLVE], reference, vars={**VARS, "ticket": {"status": "open"}})


def test_a_reference_of_the_wrong_type_names_the_assertion(
    run: Score, reference: list[TrajectoryStep]
) -> None:
    bad = {"ticket": {"id": 10}, "charge": {"id": 41, "amount_cents": None}}

    message = (
        "assertion 'no_over_refund': where: Value error, "
        "filter on 'amount_cents', operator 'gt': null only compares with eq or ne$"
    )
    with pytest.raises(ConfigError, match=message):
        run([REFUND, SOLVE], reference, vars=bad, verifier=VERIFIER[2:4] + VERIFIER[:1])


def test_an_unknown_table_names_the_assertion(run: Score, reference: list[TrajectoryStep]) -> None:
    verifier = [*VERIFIER[:2], {**VERIFIER[2], "allow": [{"table": "refund", "op": "insert"}]}]

    with pytest.raises(ConfigError, match="assertion 'no_collateral': unknown table 'refund'"):
        run([REFUND, SOLVE], reference, verifier=verifier)


def test_reference_steps_must_be_positive(run: Score, reference: list[TrajectoryStep]) -> None:
    with pytest.raises(ConfigError, match="reference_steps must be at least 1, not 0"):
        run([REFUND, SOLVE], reference, reference_steps=0)


def test_an_assertion_judges_only_the_outcome_its_when_names(
    run: Score, reference: list[TrajectoryStep]
) -> None:
    """A decision task judges each outcome the seed drew by its own assertions: the refund
    is required where the verdict is to refund, and absent where it is not."""
    by_outcome = [
        {**VERIFIER[0], "when": "$verdict.refund == 1"},
        {"check": "row_absent", "name": "not_refunded", "table": "refunds",
         "where": {"charge_id": "$charge.id"}, "harm": True, "when": "not $verdict.refund"},
        VERIFIER[1], VERIFIER[2],
    ]
    for refund in (1, 0):
        verdicts = {}
        for sql in ([REFUND, SOLVE], [SOLVE]):
            report = run(sql, reference[len(reference) - len(sql):], verifier=by_outcome,
                         vars={**VARS, "verdict": {"refund": refund}})
            verdicts[len(sql)] = (report.success, [a.name for a in report.assertions])
        judged = ["refunded" if refund else "not_refunded", "solved", "no_collateral"]
        assert verdicts == {2: (bool(refund), judged), 1: (not refund, judged)}
    with pytest.raises(ConfigError, match="assertion 'refunded': when"):
        run([REFUND, SOLVE], reference, verifier=by_outcome)  # no verdict bound
