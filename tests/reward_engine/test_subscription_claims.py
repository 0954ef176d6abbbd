"""What is said of a cancelled subscription and a voided invoice, judged against the
checkout's state after checkout/cancel-subscription's reference: Stripe's two ways of
cancelling (docs.stripe.com/billing/subscriptions/cancel: at the period's end with
cancel_at_period_end, the subscription staying active until then; or now, with DELETE) and
voiding an open invoice (docs.stripe.com/invoicing/overview, "Void an invoice")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime

import pytest

from replicas.catalog import lexicon
from workgym.local import LocalServer
from workgym_reward.diff import States
from workgym_reward.truth import Case, Message, judge_message

from .conftest import scored_reference

TASK = "checkout/cancel-subscription"
# The seeds of each outcome (the task's cycle: its decision test checks both occur).
AT_PERIOD_END, NOW = 1, 0


@pytest.fixture(scope="module")
def cases(local: LocalServer) -> Iterator[dict[int, tuple[Case, str]]]:
    """seed -> (the case after the reference, the day the subscription ends)."""
    with ExitStack() as stack:
        out = {}
        for seed in (AT_PERIOD_END, NOW):
            captured = scored_reference(local, TASK, seed)
            states = {app: stack.enter_context(States.open(*pair))
                      for app, pair in captured["states"].items()}
            case = Case(lexicon(), states, captured["vars"], captured["today"], {})
            sub = captured["vars"]["checkout"]["sub"]["stripe_id"]
            row = case.query("checkout", "SELECT coalesce(ended_at, cancel_at) AS at "
                             "FROM subscriptions WHERE stripe_id = :sub", {"sub": sub})[0]
            out[seed] = (case, datetime.fromtimestamp(row["at"], UTC).strftime("%-d %B %Y"))
        yield out


def _verdicts(case: Case, text: str) -> list[str]:
    return [judged.verdict.value for judged in judge_message(case, Message(text))]


def test_a_subscription_ending_at_its_period_end(cases: dict[int, tuple[Case, str]]) -> None:
    """cancel_at_period_end: cancelled now, active until the period's end (that day only)."""
    case, day = cases[AT_PERIOD_END]
    assert _verdicts(case, "We have cancelled your Bean Club subscription.") == ["true"]
    assert _verdicts(case, f"Your subscription stays active until {day}.") == ["true"]
    assert _verdicts(case, "Your subscription stays active until 1 January 2031.") == ["false"]
    assert _verdicts(case, "We cancelled your subscription with immediate effect.") == ["false"]


def test_a_subscription_ended_now_and_its_invoice_voided(
        cases: dict[int, tuple[Case, str]]) -> None:
    """DELETE: it ended today, not at a later day; its open renewal invoice is void."""
    case, day = cases[NOW]
    assert _verdicts(case, f"We cancelled your subscription with immediate effect, on {day}."
                     ) == ["true"]
    assert _verdicts(case, "Your subscription stays active until 1 January 2031.") == ["false"]
    assert _verdicts(case, "We have voided the open invoice.") == ["true"]


def test_no_invoice_voided_is_not_said_to_be(cases: dict[int, tuple[Case, str]]) -> None:
    """An up-to-date member had no open invoice: saying one was voided is not true."""
    case, _ = cases[AT_PERIOD_END]
    assert "true" not in _verdicts(case, "We have voided the open invoice.")
