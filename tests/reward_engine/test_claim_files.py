"""The apps' claim files against the apps' real databases: every query a claim file gives
(facts, amounts, what a message is about, names, sensitive data, who hears a
message) runs on episodes of every app with a claim file (a task of three apps, one of the
CRM) and returns the columns the reward engine reads; and the world values they name exist."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from replicas.catalog import claim_files, lexicon
from workgym.local import LocalServer
from workgym_reward.diff import States
from workgym_reward.truth import Case

from .conftest import scored_reference

TASKS = ("cross/bug-reproduce-through-payments",  # checkout, helpdesk and tracker
         "crm/lookup-act-contact-lifecyclestage-other-by-email")


@pytest.fixture(scope="module")
def case(local: LocalServer) -> Iterator[Case]:
    captured = [scored_reference(local, task) for task in TASKS]
    with ExitStack() as stack:
        states = {app: stack.enter_context(States.open(*pair))
                  for run in captured for app, pair in run["states"].items()}
        assert set(states) == {app for app, _ in claim_files()}
        yield Case(lexicon(), states, {k: v for run in captured for k, v in run["vars"].items()},
                   captured[0]["today"], {})


def test_every_claim_s_facts_run_with_the_columns_judged(case: Case) -> None:
    for claim in lexicon().claims.values():
        for app, sql in claim.facts.items():
            rows = case.query(app, sql)
            columns = set(rows[0]) if rows else set()
            assert not rows or {"customer", "subject", "ok"} <= columns, (claim.name, app,
                                                                          columns)


def test_every_other_query_runs(case: Case) -> None:
    found = lexicon()
    for app, sql in found.amounts.items():
        case.query(app, sql)
    for app, queries in found.about.items():
        for column, sql in queries.items():
            case.query(app, sql, {column: 1})
    for app, spec in found.sensitive.items():
        rows = case.query(app, spec.sql)
        assert rows and {"owner", "kind", "value"} <= set(rows[0])
    for app, writes in found.writes.items():
        for write in writes:
            if write.out is not None:
                case.query(app, write.out.party, {"ticket_id": 1})
                case.query(app, write.out.heard, {"ticket_id": 1})
    assert case.names["team"] and case.names["version"]


def test_world_values_are_the_apps_own() -> None:
    params = lexicon().params["checkout"]
    assert params["approval_above"] > 0 and set(params) >= {"usd", "eur", "gbp", "jpy"}
