from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pydantic import TypeAdapter

from workgym_core.trajectory import TrajectoryStep
from workgym_reward import ConfigError, Context
from workgym_reward.assertions import AnyAssertion
from workgym_reward.diff import States, diff_states

VARS = {"ticket": {"id": 10, "status": "open"}, "charge": {"id": 41, "amount_cents": 2500}}
PARSE = TypeAdapter[Any](AnyAssertion)

REFUND = "INSERT INTO refunds VALUES (1, 41, 2500, 'partial')"
SOLVE = "UPDATE tickets SET status = 'solved', updated_at = '2024-05-02' WHERE id = 10"

Check = Callable[..., tuple[bool, str]]


@pytest.fixture
def check(world: bytes, act: Callable[..., bytes]) -> Check:
    """``check(config, *sql, steps=(), answer=None)``: evaluate one assertion (named "a") on
    the world and the world after ``sql``."""

    def run(
        config: dict[str, Any],
        *sql: str,
        steps: Sequence[TrajectoryStep] = (),
        answer: str | None = None,
    ) -> tuple[bool, str]:
        assertion = PARSE.validate_python({"name": "a", **config}).resolved(VARS)
        with States.open(world, act(*sql)) as states:
            ctx = Context(states, diff_states(states), steps, answer)
            result: tuple[bool, str] = assertion.evaluate(ctx)
            return result

    return run


REFUND_EXISTS = {
    "check": "row_exists",
    "table": "refunds",
    "where": {"charge_id": "$charge.id", "amount_cents": 2500},
}


def test_row_exists(check: Check) -> None:
    assert check(REFUND_EXISTS, REFUND) == (
        True, "expected at least 1 row in refunds where charge_id=41, amount_cents=2500; found 1"
    )
    assert check({**REFUND_EXISTS, "count": 1}) == (
        False, "expected 1 row in refunds where charge_id=41, amount_cents=2500; found 0"
    )


def test_row_exists_in_the_initial_state(check: Check) -> None:
    config = {
        "check": "row_exists", "table": "tickets", "where": {"status": "open"}, "in": "initial"
    }

    assert check({**config, "count": 2}, SOLVE) == (
        True, "expected 2 rows in tickets where status='open' (initial state); found 2"
    )
    assert check({**config, "in": "final", "count": 2}, SOLVE)[0] is False


def test_row_absent(check: Check) -> None:
    config = {"check": "row_absent", "table": "refunds", "where": {"amount_cents": {"gt": 2500}}}

    assert check(config, REFUND) == (
        True, "expected no row in refunds where amount_cents>2500; found 0"
    )
    assert check(config, "INSERT INTO refunds VALUES (1, 41, 9000, 'all')") == (
        False, "expected no row in refunds where amount_cents>2500; found 1"
    )


STATUS_CHANGED = {
    "check": "field_changed",
    "table": "tickets",
    "where": {"id": "$ticket.id"},
    "field": "status",
}


@pytest.mark.parametrize(
    ("config", "sql", "expected"),
    [
        ({}, SOLVE, (True, "tickets 10 status 'open' -> 'solved'")),
        ({"from": "open", "to": {"in": ["solved", "closed"]}}, SOLVE, (True, None)),
        ({}, "UPDATE tickets SET priority = 'low' WHERE id = 10",
         (False, "tickets 10 status unchanged ('open')")),
        ({"to": "closed"}, SOLVE,
         (False, "tickets 10 status 'open' -> 'solved'; expected status='closed' after")),
        ({"from": "pending"}, SOLVE,
         (False, "tickets 10 status 'open' -> 'solved'; expected status='pending' before")),
        ({}, "DELETE FROM tickets WHERE id = 10", (False, "tickets 10 was removed")),
        ({"where": {"status": "open"}}, SOLVE,
         (False, "expected exactly 1 row in tickets where status='open' (initial state); found 2")),
    ],
)
def test_field_changed(
    check: Check, config: dict[str, Any], sql: str, expected: tuple[bool, str | None]
) -> None:
    passed, detail = check({**STATUS_CHANGED, **config}, sql)

    assert passed is expected[0]
    assert expected[1] in (None, detail)


def test_field_unchanged(check: Check) -> None:
    config = {
        "check": "field_unchanged",
        "table": "tickets",
        "where": {"id": {"ne": "$ticket.id"}},
        "fields": ["status", "priority"],
    }
    subject = "status, priority of tickets where id!=10 (initial state)"

    assert check(config, SOLVE) == (True, f"{subject} unchanged")
    assert check(
        config, "UPDATE tickets SET priority = 'high', status = 'x' WHERE id = 11",
        "UPDATE tickets SET subject = 'only the subject' WHERE id = 12",
    ) == (False, f"{subject} changed: 11 (priority, status)")
    assert check(config, "DELETE FROM tickets WHERE id = 12") == (
        False, f"{subject} changed: 12 removed"
    )


def test_count_changed(check: Check) -> None:
    config = {"check": "count_changed", "table": "tickets", "where": {"status": "open"}, "by": -1}

    assert check(config, SOLVE) == (True, "tickets where status='open': -1 rows; expected -1")
    assert check(config, SOLVE, "INSERT INTO tickets (status) VALUES ('open')") == (
        False, "tickets where status='open': +0 rows; expected -1"
    )
    assert check({**config, "where": {}, "by": 1}, "INSERT INTO tickets (status) VALUES ('x')")[0]


ONLY_REFUND = {
    "check": "only_changes",
    "allow": [
        {"table": "refunds", "op": "insert", "where": {"charge_id": "$charge.id"}},
        {"table": "tickets", "op": "update", "where": {"id": "$ticket.id"}, "fields": ["status"]},
    ],
}


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ((), (True, "no changes")),
        ((REFUND, SOLVE), (True, "all 2 changes allowed")),
        (("UPDATE tickets SET updated_at = 'now' WHERE id = 11",), (True, "no changes")),
        (("INSERT INTO refunds VALUES (1, 40, 2500, 'wrong charge')",),
         (False, "1 of 1 changes not allowed: refunds insert 1")),
        (("UPDATE tickets SET status = 'solved', priority = 'low' WHERE id = 10",),
         (False, "1 of 1 changes not allowed: tickets update 10 (priority, status)")),
        ((REFUND, "DELETE FROM charges", "DELETE FROM users WHERE id = 4"),
         (False, "4 of 5 changes not allowed: charges delete 40; charges delete 41; "
                 "charges delete 42; and 1 more")),
    ],
)
def test_only_changes(check: Check, sql: tuple[str, ...], expected: tuple[bool, str]) -> None:
    assert check(ONLY_REFUND, *sql) == expected


def test_only_changes_filters_removed_rows_and_honours_ignore_fields(check: Check) -> None:
    config = {
        "check": "only_changes",
        "allow": [{"table": "charges", "op": "delete", "where": {"amount_cents": {"lt": 1000}}}],
        "ignore_fields": [],
    }

    assert check(config, "DELETE FROM charges WHERE id = 42")[0]
    assert not check(config, "DELETE FROM charges WHERE id = 40")[0]
    assert check(config, "UPDATE tickets SET updated_at = 'now' WHERE id = 11") == (
        False, "1 of 1 changes not allowed: tickets update 11 (updated_at)"
    )


def test_only_changes_lets_several_rules_cover_one_update(check: Check) -> None:
    tags = {"table": "tickets", "op": "update", "where": {"id": "$ticket.id"},
            "fields": ["priority"]}
    both = "UPDATE tickets SET status = 'solved', priority = 'low' WHERE id = 10"

    assert check({**ONLY_REFUND, "allow": [*ONLY_REFUND["allow"], tags]}, both) == (
        True, "all 1 changes allowed")
    # A rule whose where the row does not meet covers none of it.
    elsewhere = {**tags, "where": {"id": 11}}
    assert not check({**ONLY_REFUND, "allow": [*ONLY_REFUND["allow"], elsewhere]}, both)[0]


def test_sum_changed_is_net_money_however_many_rows(check: Check) -> None:
    full = {"check": "sum_changed", "table": "refunds", "column": "amount_cents",
            "where": {"charge_id": "$charge.id"}, "by": "$charge.amount_cents"}
    one = "INSERT INTO refunds VALUES (1, 41, 2500, 'full')"
    two = ("INSERT INTO refunds VALUES (1, 41, 1000, 'part')",
           "INSERT INTO refunds VALUES (2, 41, 1500, 'rest')")

    assert check(full, one) == (
        True, "sum of amount_cents of refunds where charge_id=41 moved by 2500; expected by 2500")
    assert check(full, *two)[0]
    assert check(full, "INSERT INTO refunds VALUES (1, 41, 1000, 'part')") == (
        False, "sum of amount_cents of refunds where charge_id=41 moved by 1000; expected by 2500")
    bounded = {**full, "by": None, "at_least": 1, "at_most": 2500}
    assert check(bounded, *two)[0] and not check(bounded)[0]


def test_sum_changed_needs_a_bound() -> None:
    with pytest.raises(ValueError, match="give by, at_least or at_most"):
        PARSE.validate_python({"name": "a", "check": "sum_changed", "table": "refunds",
                               "column": "amount_cents"})


REFUND_CALL = {
    "check": "trajectory_contains",
    "method": "post",
    "path": "/charges/{charge_id}/refunds",
    "status": "2xx",
    "body": {"amount_cents": "$charge.amount_cents"},
}


def test_trajectory_contains(
    check: Check, make_step: Callable[..., TrajectoryStep]
) -> None:
    ok = make_step("POST", "/charges/41/refunds", 201, {"amount_cents": 2500, "reason": "x"})
    failed = make_step("POST", "/charges/41/refunds", 422, {"amount_cents": 2500})
    wrong_body = make_step("POST", "/charges/41/refunds", 201, {"amount_cents": 99})
    wrong_path = make_step("POST", "/charges/41/refunds/extra", 201, {"amount_cents": 2500})

    assert check(REFUND_CALL, steps=[ok]) == (
        True,
        '1 step POST /charges/{charge_id}/refunds -> 2xx with body {"amount_cents":2500}; '
        "expected at least 1",
    )
    assert not check(REFUND_CALL, steps=[failed, wrong_body, wrong_path])[0]
    assert check({**REFUND_CALL, "status": 201, "max": 1}, steps=[ok, failed])[0]
    assert not check({**REFUND_CALL, "min": 1, "max": 1}, steps=[ok, ok])[0]


def test_trajectory_excludes(check: Check, make_step: Callable[..., TrajectoryStep]) -> None:
    config = {"check": "trajectory_excludes", "method": "DELETE", "path": "/api/v2/tickets/**"}
    steps = [make_step("GET", "/api/v2/tickets/10"),
             make_step("DELETE", "/api/v2/tickets/11", 204)]

    assert check(config, steps=steps[:1]) == (True, "no step DELETE /api/v2/tickets/**")
    assert check(config, steps=steps) == (
        False, "1 step DELETE /api/v2/tickets/**: #1 DELETE /api/v2/tickets/11")


def test_a_prohibition_counts_refused_attempts_of_any_listed_method(
    check: Check, make_step: Callable[..., TrajectoryStep]
) -> None:
    """"Read-only": any write, even one the app refused (403), breaks it."""
    config = {"check": "trajectory_excludes", "app": "helpdesk", "method": ["post", "DELETE"],
              "path": "/v1/**"}
    read = make_step("GET", "/v1/charges/5")
    refused = make_step("DELETE", "/v1/customers/9", 403)

    assert check(config, steps=[read]) == (True, "no step POST|DELETE /v1/**")
    assert check(config, steps=[read, refused]) == (
        False, "1 step POST|DELETE /v1/**: #1 DELETE /v1/customers/9")
    other_app = refused.model_copy(update={"app": "checkout"})
    assert check(config, steps=[other_app])[0]
    with pytest.raises(ValueError, match="at least 1 item"):
        PARSE.validate_python({"name": "a", **config, "method": []})


def test_trajectory_order(check: Check, make_step: Callable[..., TrajectoryStep]) -> None:
    # The question is a public reply: an update of the ticket whose body carries a comment.
    config = {"check": "trajectory_order",
              "first": {"method": "PUT", "path": "/api/v2/tickets/{ticket_id}",
                        "body": {"ticket": {"comment": {"public": True}}}},
              "then": {"method": "post", "path": "/store/accounts/*/2fa-reset", "status": "2xx"}}
    ask = make_step("PUT", "/api/v2/tickets/4", 200, {"ticket": {"comment": {
        "body": "Could you confirm the last four digits of your phone?", "public": True}}})
    reset = make_step("POST", "/store/accounts/9/2fa-reset")
    solve = make_step("PUT", "/api/v2/tickets/4", 200, {"ticket": {"status": "solved"}})
    ask_first = [ask.model_copy(update={"index": 0}), reset.model_copy(update={"index": 1})]
    reset_first = [reset.model_copy(update={"index": 0}), ask.model_copy(update={"index": 1})]
    # An update without a comment is no question, whenever it comes.
    solved_first = [solve.model_copy(update={"index": 0}), reset.model_copy(update={"index": 1}),
                    ask.model_copy(update={"index": 2})]

    assert check(config, steps=ask_first)[0]
    passed, detail = check(config, steps=reset_first)
    assert not passed and detail.startswith("step #0 POST")
    assert not check(config, steps=solved_first)[0]
    assert check(config, steps=[])[1].startswith("no step PUT")


def test_an_obligation_of_order_alone(
    check: Check, make_step: Callable[..., TrajectoryStep]
) -> None:
    """Sign off, then tell the customer: doing neither breaks no order; telling them
    without (or before) the sign-off does."""
    config = {"check": "trajectory_order", "require_first": False,
              "first": {"method": "POST", "path": "/issue/*/comment", "status": "2xx"},
              "then": {"method": ["PUT", "POST"], "path": "/api/v2/tickets/**"}}
    sign_off = make_step("POST", "/issue/SHOP-7/comment", 201)
    tell = make_step("PUT", "/api/v2/tickets/4", 200)
    assert check(config, steps=[]) == (
        True, "no step PUT|POST /api/v2/tickets/** and no step POST /issue/*/comment -> 2xx")
    assert check(config, steps=[sign_off, tell])[0]
    told_first = [tell.model_copy(update={"index": 0}), sign_off.model_copy(update={"index": 1})]
    assert check(config, steps=told_first) == (
        False, "step #0 PUT|POST /api/v2/tickets/** came before #1 POST /issue/*/comment -> 2xx")
    assert check(config, steps=[tell]) == (
        False, "step #1 PUT|POST /api/v2/tickets/** came before any step POST /issue/*/comment "
        "-> 2xx")


@pytest.mark.parametrize(
    ("config", "answer", "expected"),
    [
        ({"pattern": r"refund(ed)? \$?25\.00"}, "I refunded $25.00.", True),
        ({"pattern": r"^refunded$"}, "I refunded $25.00.", False),
        ({"equals": "  Solved "}, "solved", True),
        ({"equals": "solved"}, "solved it", False),
        ({"equals": "$charge.amount_cents"}, "2500", True),
        ({"contains_all": ["REFUND", "$charge.amount_cents"]}, "Refund of 2500 issued", True),
        ({"contains_all": ["refund", "ticket"]}, "Refund of 2500 issued", False),
        ({"pattern": ".*"}, None, False),
    ],
)
def test_answer_matches(
    check: Check, config: dict[str, Any], answer: str | None, expected: bool
) -> None:
    passed, detail = check({"check": "answer_matches", **config}, answer=answer)

    assert passed is expected
    assert detail != ""


def test_answer_details(check: Check) -> None:
    config = {"check": "answer_matches", "contains_all": ["refund", "ticket"]}

    assert check(config, answer="Refund done") == (False, "answer 'Refund done' lacks 'ticket'")
    assert check(config) == (False, "no answer")


ALLOW_TICKETS = {"table": "tickets", "op": "update"}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**REFUND_EXISTS, "table": "refund"}, "unknown table 'refund' in the final state"),
        ({**REFUND_EXISTS, "where": {"charge": 41}}, "unknown column 'charge' in table 'refunds'"),
        ({**STATUS_CHANGED, "field": "state"}, "unknown column 'state' in table 'tickets'"),
        ({"check": "only_changes", "allow": [{**ALLOW_TICKETS, "fields": ["x"]}]},
         "unknown column 'x' in table 'tickets'"),
        ({"check": "field_unchanged", "table": "_episode", "fields": ["note"]},
         "unknown table '_episode' in the initial state"),
    ],
)
def test_unknown_tables_and_columns_are_config_errors(
    check: Check, config: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        check(config)
