"""Scoring an episode of several apps: each assertion looks at its app's database, references
reach across apps, only_changes spans every app, and the state hash covers them all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from workgym_core.refs import Vars
from workgym_core.trajectory import TrajectoryStep
from workgym_reward import ConfigError, Report, Verifier, score

NOTES_SCHEMA = """
CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT);
CREATE TABLE notes (id INTEGER PRIMARY KEY, person_id INTEGER, body TEXT);
INSERT INTO people VALUES (1, 'ada@example.com'), (2, 'alan@example.com');
"""
VARS: dict[str, Vars] = {
    "helpdesk": {"ticket": {"id": 10}, "customer": {"id": 2, "email": "ada@example.com"}},
    "notes": {"person": {"id": 1}}}
VERIFIER: list[dict[str, Any]] = [
    {"check": "row_exists", "name": "noted", "app": "notes", "table": "notes",
     "where": {"person_id": "$person.id", "body": {"contains": "$helpdesk.customer.email"}}},
    {"check": "field_changed", "name": "solved", "app": "helpdesk", "table": "tickets",
     "where": {"id": "$ticket.id"}, "field": "status", "to": "solved"},
    {"check": "trajectory_contains", "name": "wrote_note", "app": "notes", "method": "POST",
     "path": "/notes"},
    {"check": "only_changes", "name": "no_collateral", "app": "helpdesk", "allow": [
        {"table": "tickets", "op": "update", "where": {"id": "$ticket.id"}, "fields": ["status"]},
        {"app": "notes", "table": "notes", "op": "insert",
         "where": {"person_id": "$notes.person.id"}},
    ]},
]
NOTE = "INSERT INTO notes VALUES (1, 1, 'Prefers email: ada@example.com')"
SOLVE = "UPDATE tickets SET status = 'solved' WHERE id = 10"


@pytest.fixture
def run(make_db: Callable[..., bytes], world: bytes,
        act: Callable[..., bytes]) -> Callable[..., Report]:
    notes = make_db(NOTES_SCHEMA)

    def scored(helpdesk: list[str], notes_sql: list[str], steps: list[TrajectoryStep],
               verifier: list[dict[str, Any]] = VERIFIER) -> Report:
        return score(verifier=Verifier.model_validate(verifier),
                     states={"helpdesk": (world, act(*helpdesk)),
                             "notes": (notes, make_db(*notes_sql, base=notes))},
                     trajectory=steps, answer=None, vars=VARS, reference_steps=2)

    return scored


def _steps() -> list[TrajectoryStep]:
    return [TrajectoryStep(index=0, app="notes", method="POST", path="/notes", status=201),
            TrajectoryStep(index=1, app="helpdesk", method="PUT", path="/api/v2/tickets/10",
                           status=200, request_body={"ticket": {"status": "solved"}})]


def test_each_app_is_checked_in_its_own_database(run: Callable[..., Report]) -> None:
    report = run([SOLVE], [NOTE], _steps())
    assert report.success, report.assertions
    one_app = run([SOLVE], [NOTE], _steps())
    assert one_app.final_state_hash == report.final_state_hash  # deterministic


def test_only_changes_spans_every_app(run: Callable[..., Report]) -> None:
    for helpdesk, notes in (([SOLVE, "UPDATE users SET tier = 'x' WHERE id = 3"], [NOTE]),
                            ([SOLVE], [NOTE, "UPDATE people SET email = 'x' WHERE id = 2"])):
        report = run(helpdesk, notes, _steps())
        verdict = {a.name: a for a in report.assertions}["no_collateral"]
        assert not verdict.passed, verdict
        assert ("helpdesk: users update 3" in verdict.detail
                or "notes: people update 2" in verdict.detail)


def test_the_hash_covers_every_app(run: Callable[..., Report]) -> None:
    base = run([SOLVE], [NOTE], _steps()).final_state_hash
    assert run([SOLVE], [NOTE, "UPDATE notes SET body = 'x' WHERE id = 1"],
               _steps()).final_state_hash != base


def test_an_assertion_must_name_its_app_when_there_are_several(
    run: Callable[..., Report]
) -> None:
    unnamed = [{k: v for k, v in a.items() if k != "app"} for a in VERIFIER]
    with pytest.raises(ConfigError, match="name its app"):
        run([SOLVE], [NOTE], _steps(), verifier=unnamed)
    with pytest.raises(ConfigError, match="no app 'tracker'"):
        run([SOLVE], [NOTE], _steps(), verifier=[{**VERIFIER[0], "app": "tracker"},
                                                  *VERIFIER[1:]])
