"""Error recovery, judged from the trajectory alone: one rule per fault kind, each with a
recovered and a not-recovered case; and the efficiency signal not charging the faults' cost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import TypeAdapter

from workgym_core.trajectory import TrajectoryStep
from workgym_reward.assertions import AnyAssertion, Assertion
from workgym_reward.recovery import RULES, judge
from workgym_reward.signals import Outcome, efficiency, error_recovery

# (method, path, status, fault, request body)
Row = tuple[str, str, int, str | None] | tuple[str, str, int, str | None, Any]

# The helpdesk (Zendesk's API): a ticket is read and changed at one path; a reply is an
# update whose body carries the comment, and may change fields in the same request.
TICKET, TICKETS, USERS = "/api/v2/tickets/1", "/api/v2/tickets", "/api/v2/users"
COMMENTS = "/api/v2/tickets/1/comments"
COMMENT = {"ticket": {"comment": {"body": "Your refund is on its way.", "public": True}}}
SOLVE = {"ticket": {"status": "solved"}}
REPLY_AND_SOLVE = {"ticket": {"status": "solved", "comment": COMMENT["ticket"]["comment"]}}
REFUND = {"charge_id": 513, "currency": "USD", "kind": "full", "reason": "returned"}


def _steps(*rows: Row) -> list[TrajectoryStep]:
    """TrajectoryStep objects, indexed in order."""
    return [
        TrajectoryStep(index=i, app="helpdesk", method=row[0], path=row[1], status=row[2],
                       fault=row[3], request_body=row[4] if len(row) > 4 else None)
        for i, row in enumerate(rows)
    ]


def _verdicts(steps: Sequence[TrajectoryStep]) -> list[tuple[int, str, bool]]:
    return [(step.index, kind, recovered) for step, kind, recovered in judge(steps)]


def _first(*rows: Row) -> bool:
    """The verdict on the first judged fault of the trajectory."""
    return _verdicts(_steps(*rows))[0][2]


# What a lost reply changed (ticket 1, its comment 9), and reads that show it or not.
REPLIED = [{"table": "tickets", "op": "update", "id": 1, "ref": 1},
           {"table": "comments", "op": "insert", "id": 9, "ref": 9}]


def _read(step: TrajectoryStep, tables: list[str], body: Any) -> TrajectoryStep:
    return step.model_copy(update={"reads": tables, "response_body": body})


def _lost_reply(read_tables: list[str], body: Any) -> bool:
    """A lost reply, one read, the reply again: is the read a check?"""
    fault, read, again = _steps(("PUT", TICKET, 504, "timeout_after", COMMENT),
                                ("GET", COMMENTS, 200, None),
                                ("PUT", TICKET, 200, None, COMMENT))
    return _verdicts([fault.model_copy(update={"changes": REPLIED}),
                      _read(read, read_tables, body), again])[0][2]


def test_every_counted_kind_has_a_rule() -> None:
    assert set(RULES) == {"server_error", "timeout_before", "connection_reset", "timeout_after",
                          "truncated_body", "rate_limit", "token_expiry", "state_drift"}


# --- not applied: recovered when the same request later succeeds ------------------------------

UNAPPLIED = [("server_error", 500), ("server_error", 502), ("server_error", 503),
             ("timeout_before", 504), ("connection_reset", 0)]


@pytest.mark.parametrize(("kind", "status"), UNAPPLIED)
def test_unapplied_request_retried_successfully_is_recovered(kind: str, status: int) -> None:
    assert _first(("POST", "/refunds", status, kind, REFUND),
                  ("GET", "/refunds", 200, None),
                  ("POST", "/refunds", 201, None, REFUND))


@pytest.mark.parametrize(("kind", "status"), UNAPPLIED)
def test_unapplied_request_never_retried_is_not_recovered(kind: str, status: int) -> None:
    assert not _first(("POST", "/refunds", status, kind, REFUND),
                      ("GET", "/refunds", 200, None))  # another path: not a retry
    assert not _first(("GET", TICKET, status, kind))  # the last step


@pytest.mark.parametrize(("kind", "status"), UNAPPLIED)
def test_retry_that_fails_again_is_not_recovered(kind: str, status: int) -> None:
    assert not _first(("GET", TICKET, status, kind),
                      ("GET", TICKET, 500, None),  # failed without a fault
                      ("GET", TICKET, 429, None),  # refused
                      ("GET", TICKET, 401, None),  # refused
                      ("GET", TICKET, 200, kind),  # answered, but faulted itself
                      ("PUT", TICKET, 200, None, SOLVE))  # another method


@pytest.mark.parametrize(("kind", "status"), UNAPPLIED)
def test_another_write_to_the_same_path_is_no_retry(kind: str, status: int) -> None:
    # One path takes a reply, a status change or both: only a write that sets what the lost
    # one did (the reply sent again, in any words, maybe with the solve) retries it.
    assert not _first(("PUT", TICKET, status, kind, COMMENT), ("PUT", TICKET, 200, None, SOLVE))
    assert not _first(("PUT", TICKET, status, kind, REPLY_AND_SOLVE),
                      ("PUT", TICKET, 200, None, COMMENT))
    assert _first(("PUT", TICKET, status, kind, COMMENT),
                  ("PUT", TICKET, 200, None, REPLY_AND_SOLVE))
    reworded = {"ticket": {"comment": {"body": "Refund sent.", "public": True}}}
    assert _first(("PUT", TICKET, status, kind, COMMENT), ("PUT", TICKET, 200, None, reworded))


def test_every_fault_of_a_retried_series_is_recovered_by_the_last_success() -> None:
    steps = _steps(("GET", TICKET, 503, "server_error"),
                   ("GET", TICKET, 504, "timeout_before"),
                   ("GET", TICKET, 0, "connection_reset"),
                   ("GET", TICKET, 200, None))
    assert _verdicts(steps) == [(0, "server_error", True), (1, "timeout_before", True),
                                (2, "connection_reset", True)]


# --- applied, answer lost: recovered unless re-sent blindly -------------------------------------


def test_a_dropped_write_whose_retry_was_applied_but_lost_is_recovered() -> None:
    # The drop, then a re-send the replica applied (its answer lost) and the check: the
    # careful agent sends nothing a third time, and recovered from both faults.
    steps = _steps(("POST", "/refunds", 0, "connection_reset", REFUND),
                   ("POST", "/refunds", 504, "timeout_after", REFUND),
                   ("GET", "/refunds", 200, None))
    steps[1] = steps[1].model_copy(update={"changes": [{"table": "refunds", "op": "insert",
                                                        "id": 1}]})
    steps[2] = steps[2].model_copy(update={"reads": ["refunds"]})
    assert _verdicts(steps) == [(0, "connection_reset", True), (1, "timeout_after", True)]


def test_timeout_after_checked_before_retrying_is_recovered() -> None:
    assert _lost_reply(["comments", "users"], {"comments": [{"id": 8}, {"id": 9}]})
    assert _lost_reply(["tickets"], {"ticket": {"id": 1, "status": "open"}})


def test_timeout_after_a_read_of_other_rows_of_the_same_table_is_no_check() -> None:
    """Checking is reading the rows the lost write changed (the object it targeted, or a
    list that includes it), not any read of the same tables."""
    assert not _lost_reply(["comments", "users"], {"comments": [{"id": 4}, {"id": 5}]})
    assert not _lost_reply(["tickets"], {"ticket": {"id": 2, "status": "open"}})
    # The id shown, but by a read of another table (a user that has comment 9's number).
    assert not _lost_reply(["users"], {"user": {"id": 9}})


def test_a_read_too_large_to_keep_is_judged_by_its_tables() -> None:
    assert _lost_reply(["comments"], None)
    assert not _lost_reply(["users"], None)


def test_a_lost_refund_is_checked_by_reading_its_payment_refunds_by_their_stripe_ids() -> None:
    """The checkout's rows are shown by their Stripe ids (ref), not their row ids."""
    fault, read, again = _steps(("POST", "/v1/refunds", 504, "timeout_after", REFUND),
                                ("GET", "/v1/refunds", 200, None),
                                ("POST", "/v1/refunds", 200, None, REFUND))
    fault = fault.model_copy(update={"changes": [
        {"table": "refunds", "op": "insert", "id": 7, "ref": "re_1"},
        {"table": "charges", "op": "update", "id": 3, "ref": "ch_1"}]})

    def after(tables: list[str], body: Any) -> bool:
        return _verdicts([fault, _read(read, tables, body), again])[0][2]

    assert after(["refunds"], {"object": "list", "data": [{"id": "re_1", "amount": 500}]})
    assert after(["charges", "refunds"], {"id": "ch_1", "amount_refunded": 500})
    assert not after(["refunds"], {"object": "list", "data": [{"id": "re_0"}]})
    assert not after(["refunds"], {"object": "list", "data": [{"id": 7}]})  # a row id


def test_timeout_after_without_any_retry_is_recovered() -> None:
    assert _first(("PUT", TICKET, 504, "timeout_after", COMMENT),
                  ("PUT", TICKET, 200, None, SOLVE))
    assert _first(("PUT", TICKET, 504, "timeout_after", COMMENT))


def test_timeout_after_blind_retry_is_not_recovered() -> None:
    assert not _first(("PUT", TICKET, 504, "timeout_after", COMMENT),
                      ("PUT", TICKET, 200, None, COMMENT))


def test_timeout_after_retried_with_the_same_idempotency_key_is_recovered() -> None:
    """The app replays the first answer to a key it has seen: a safe retry. Another key, or
    none on either side, is a blind one."""
    def keyed(first: str | None, second: str | None) -> bool:
        fault, retry = _steps(("POST", "/v1/refunds", 504, "timeout_after", REFUND),
                              ("POST", "/v1/refunds", 200, None, REFUND))
        steps = [fault.model_copy(update={"idempotency_key": first}),
                 retry.model_copy(update={"idempotency_key": second})]
        return _verdicts(steps)[0][2]

    assert keyed("refund-A-10423", "refund-A-10423")
    assert not keyed("refund-A-10423", "another")
    assert not keyed(None, "refund-A-10423")
    assert not keyed(None, None)


def test_timeout_after_a_failed_read_is_no_check() -> None:
    fault, *reads, again = _steps(("PUT", TICKET, 504, "timeout_after", COMMENT),
                                  ("GET", COMMENTS, 503, "server_error"),
                                  ("GET", COMMENTS, 500, None),
                                  ("PUT", TICKET, 200, None, COMMENT))
    shown = [_read(r, ["comments"], {"comments": [{"id": 9}]}) for r in reads]
    assert not _verdicts([fault.model_copy(update={"changes": REPLIED}), *shown, again])[0][2]


def test_timeout_after_sending_a_different_write_is_no_blind_retry() -> None:
    assert _first(("PUT", TICKET, 504, "timeout_after", COMMENT),
                  ("PUT", TICKET, 200, None, {"ticket": {"comment": {"body": "other",
                                                                      "public": True}}}),
                  ("PUT", TICKET, 200, None, REPLY_AND_SOLVE),  # the reply, and more
                  ("PUT", "/api/v2/tickets/2", 200, None, COMMENT))


def test_a_lost_reply_and_solve_is_checked_by_reading_what_it_changed() -> None:
    """One update both replies and solves: reading the ticket or its comments (rows it
    changed) before sending it again checks it; reading the requester does not."""
    def checked_by(path: str, table: str, body: Any) -> bool:
        fault, read, again = _steps(("PUT", TICKET, 504, "timeout_after", REPLY_AND_SOLVE),
                                    ("GET", path, 200, None),
                                    ("PUT", TICKET, 200, None, REPLY_AND_SOLVE))
        fault = fault.model_copy(update={"changes": [
            *REPLIED, {"table": "audits", "op": "insert", "id": 5, "ref": 5}]})
        return _verdicts([fault, _read(read, [table], body), again])[0][2]

    assert checked_by(TICKET, "tickets", {"ticket": {"id": 1}})
    assert checked_by(COMMENTS, "comments", {"comments": [{"id": 9}]})
    assert not checked_by(f"{USERS}/2", "users", {"user": {"id": 2}})


def test_truncated_body_on_a_write_is_judged_like_a_lost_answer() -> None:
    fault, read, again = _steps(("POST", "/refunds", 201, "truncated_body", REFUND),
                                ("GET", "/refunds", 200, None),
                                ("POST", "/refunds", 201, None, REFUND))
    fault = fault.model_copy(update={"changes": [
        {"table": "refunds", "op": "insert", "id": 4, "ref": 4}]})
    assert _verdicts([fault, _read(read, ["refunds"], {"refunds": [{"id": 4}]}), again])[0][2]
    assert not _first(("POST", "/refunds", 201, "truncated_body", REFUND),
                      ("POST", "/refunds", 409, None, REFUND))


def test_truncated_body_on_a_read_needs_the_read_again() -> None:
    assert _first(("GET", TICKETS, 200, "truncated_body"),
                  ("GET", TICKETS, 200, None))
    assert not _first(("GET", TICKETS, 200, "truncated_body"),
                      ("GET", USERS, 200, None))  # another read does not count


# --- rate limits, tokens, drift -------------------------------------------------------------------


def test_rate_limit_retried_through_is_recovered() -> None:
    assert _first(("GET", TICKETS, 429, "rate_limit"),
                  ("GET", TICKETS, 200, None))


def test_a_burst_of_refusals_is_recovered_by_the_retry_that_gets_through() -> None:
    steps = _steps(("GET", TICKETS, 429, "rate_limit"),
                   ("GET", TICKETS, 429, "rate_limit"),
                   ("GET", TICKETS, 200, None))
    assert _verdicts(steps) == [(0, "rate_limit", True), (1, "rate_limit", True)]


def test_rate_limit_given_up_on_is_not_recovered() -> None:
    assert not _first(("GET", TICKETS, 429, "rate_limit"),
                      ("GET", USERS, 200, None))  # another request does not count


def test_rate_limit_on_the_last_step_is_not_recovered() -> None:
    assert not _first(("GET", TICKETS, 200, None), ("GET", TICKETS, 429, "rate_limit"))


def test_token_expiry_with_a_later_success_is_recovered() -> None:
    steps = _steps(("GET", TICKETS, 401, "token_expiry"),
                   ("GET", TICKETS, 401, "token_expiry"),
                   ("GET", USERS, 200, None))  # after a refresh (any request succeeds)
    assert _verdicts(steps) == [(0, "token_expiry", True), (1, "token_expiry", True)]


def test_token_expiry_without_a_later_success_is_not_recovered() -> None:
    assert not _first(("GET", TICKETS, 401, "token_expiry"),
                      ("GET", TICKETS, 401, None),
                      ("GET", TICKETS, 503, "server_error"))


# Another actor changed ticket 1 right after the step the drift is recorded on.
DRIFTED = [{"table": "tickets", "op": "update", "id": 1, "ref": 1}]


def _drift(*rows: Row, shows: Any = None, touches: bool = True) -> bool:
    """The verdict on a drift on the first step: reads show ``shows``; writes (after the
    drift) change ticket 1 when ``touches``."""
    steps = _steps(*rows)
    out = [steps[0].model_copy(update={"affected": DRIFTED})]
    for step in steps[1:]:
        if step.is_write:
            step = step.model_copy(update={"changes": DRIFTED if touches else [
                {"table": "tickets", "op": "update", "id": 2, "ref": 2}]})
        else:
            step = _read(step, ["tickets"], shows)
        out.append(step)
    return _verdicts(out)[0][2]


def test_state_drift_read_before_the_next_write_is_recovered() -> None:
    # The drift lands right after its step: the read after it sees it.
    assert _drift(("GET", TICKETS, 200, "state_drift"),
                  ("GET", TICKET, 200, None),
                  ("PUT", TICKET, 200, None, SOLVE), shows={"ticket": {"id": 1}})
    assert _drift(("PUT", TICKET, 200, "state_drift", COMMENT),
                  ("GET", TICKET, 503, "server_error"),
                  ("GET", TICKET, 200, None),
                  ("PUT", TICKET, 200, None, SOLVE), shows={"ticket": {"id": 1}})


def test_state_drift_never_written_over_is_recovered() -> None:
    """An agent that writes the drifted rows no more has lost nothing of the other actor's."""
    assert _drift(("GET", TICKETS, 200, "state_drift"))
    assert _drift(("GET", TICKETS, 200, "state_drift"),
                  ("PUT", "/api/v2/tickets/2", 200, None, SOLVE), touches=False)


def test_state_drift_written_over_is_not_recovered() -> None:
    assert not _drift(("GET", TICKETS, 200, "state_drift"),
                      ("PUT", TICKET, 200, None, SOLVE),
                      ("GET", TICKET, 200, None), shows={"ticket": {"id": 1}})
    # The drift lands after its own step: what that step read is from before it.
    assert not _drift(("GET", TICKET, 200, "state_drift"),
                      ("PUT", TICKET, 200, None, SOLVE), shows={"ticket": {"id": 1}})


def test_state_drift_a_read_of_other_rows_is_no_check() -> None:
    assert not _drift(("GET", TICKETS, 200, "state_drift"),
                      ("GET", "/api/v2/tickets/2", 200, None),
                      ("PUT", TICKET, 200, None, SOLVE), shows={"ticket": {"id": 2}})


# --- what is not judged, and the signal -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["latency", "schema_drift", "duplicate_delivery", "unknown"])
def test_faults_that_ask_nothing_of_the_agent_are_not_judged(kind: str) -> None:
    assert judge(_steps(("GET", TICKETS, 200, kind), ("GET", TICKETS, 200, None))) == []


def test_every_judged_kind_of_a_step_is_listed_in_order() -> None:
    steps = _steps(("GET", TICKETS, 200, None),
                   ("GET", TICKET, 503, "latency,state_drift,server_error"),
                   ("GET", TICKET, 200, "schema_drift"),
                   ("PUT", TICKET, 200, None, SOLVE))
    judged = judge(steps)
    assert [(step.index, kind, ok) for step, kind, ok in judged] == [
        (1, "state_drift", True),  # the faulted read after it is still a read
        (1, "server_error", False),  # its only successful retry was itself faulted
    ]
    assert all(step is steps[1] for step, _, _ in judged)


def _outcome(steps: Sequence[TrajectoryStep], success: bool = True,
             reference_steps: int = 2) -> Outcome:
    assertion: Assertion = TypeAdapter[Any](AnyAssertion).validate_python(
        {"name": "done", "check": "row_absent", "table": "t"})
    return Outcome(steps=steps, verdicts=[(assertion, success, False)],
                   reference_steps=reference_steps)


def test_error_recovery_is_the_share_recovered() -> None:
    steps = _steps(("GET", TICKETS, 429, "rate_limit"),
                   ("GET", TICKETS, 429, "rate_limit"),
                   ("GET", TICKETS, 503, "latency,server_error"),
                   ("GET", TICKETS, 200, None))
    assert error_recovery(_outcome(steps)) == 1.0  # each met fault, the request got through
    given_up = _steps(("GET", TICKETS, 429, "rate_limit"), ("GET", TICKETS, 503,
                      "latency,server_error"), ("GET", USERS, 200, None))
    assert error_recovery(_outcome(given_up)) == 0.0
    assert error_recovery(_outcome(_steps(("GET", TICKETS, 200, "latency")))) == 1.0
    assert error_recovery(_outcome([])) == 0.0


# --- efficiency: the faults' cost is not the agent's ---------------------------------------------


def test_efficiency_ignores_faulted_steps() -> None:
    steps = _steps(("GET", TICKETS, 503, "server_error"),
                   ("GET", TICKETS, 429, "rate_limit"),
                   ("GET", TICKETS, 200, "latency"),  # every faulted step, even answered
                   ("GET", TICKETS, 200, None),
                   ("PUT", TICKET, 200, None, SOLVE))
    assert efficiency(_outcome(steps, reference_steps=2)) == 1.0
    assert efficiency(_outcome(steps, reference_steps=1)) == 0.75  # 1.5 of 2
    assert efficiency(_outcome(steps, success=False)) == 0.0


def test_efficiency_ignores_the_check_after_a_lost_write() -> None:
    steps = _steps(("PUT", TICKET, 504, "timeout_after", COMMENT),
                   ("GET", COMMENTS, 200, None),  # did it go through?
                   ("PUT", TICKET, 200, None, SOLVE))
    assert efficiency(_outcome(steps, reference_steps=1)) == 1.0


def test_efficiency_charges_reads_that_check_nothing() -> None:
    # After a faulted read, or after an unfaulted write, a read is the agent's own step.
    after_read = _steps(("GET", TICKETS, 503, "server_error"),
                        ("GET", TICKETS, 200, None),
                        ("PUT", TICKET, 200, None, SOLVE))
    assert efficiency(_outcome(after_read, reference_steps=1)) == 0.75
    after_write = _steps(("PUT", TICKET, 200, None, COMMENT),
                         ("GET", COMMENTS, 200, None))
    assert efficiency(_outcome(after_write, reference_steps=1)) == 0.75
    # Only the read right after the lost write is the check; a faulted one is not counted twice.
    faulted_check = _steps(("PUT", TICKET, 504, "timeout_after", COMMENT),
                           ("GET", COMMENTS, 503, "server_error"),
                           ("GET", COMMENTS, 200, None),
                           ("GET", TICKET, 200, None))
    assert efficiency(_outcome(faulted_check, reference_steps=1)) == 0.75


def test_efficiency_of_only_faulted_steps_does_not_divide_by_zero() -> None:
    steps = _steps(("GET", TICKETS, 503, "server_error"))
    assert efficiency(_outcome(steps, reference_steps=1)) == 1.0
