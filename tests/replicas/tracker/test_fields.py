"""Editing an issue's fields as the REST API writes them: ``fields`` and ``update``
operations, list fields kept Jira's way, every error at once, nothing applied on any."""

from __future__ import annotations

import sqlite3

import orjson
import pytest

from replicas.runtime.db import one
from replicas.tracker.errors import JiraError
from replicas.tracker.rules.fields import EDIT_SCREEN, apply

from .conftest import seeded

SHOP = 10000


@pytest.fixture(scope="module")
def world() -> sqlite3.Connection:
    """World 1, shared by this module's tests (they only read it)."""
    return seeded()


def _issue(world: sqlite3.Connection) -> dict[str, object]:
    found = one(world, "SELECT * FROM issues WHERE key = 'SHOP-1'")
    assert found is not None
    return found


def test_fields_and_update_operations(world: sqlite3.Connection) -> None:
    issue = {**_issue(world), "labels": '["ux"]'}
    columns = apply(world, issue, SHOP, adf=False, screen=EDIT_SCREEN,
                    fields={"summary": "Pay button disabled after decline", "priority":
                            {"name": "High"}, "customfield_10016": 5, "duedate": "2025-07-01"},
                    update={"labels": [{"add": "regression"}, {"add": "checkout"},
                                       {"remove": "ux"}, {"remove": "absent"}],
                            "components": [{"set": [{"name": "Payments"}]}]})
    assert columns["summary"] == "Pay button disabled after decline"
    assert (columns["priority"], columns["story_points"], columns["due_date"]) == (
        "High", 5.0, "2025-07-01")
    assert orjson.loads(columns["labels"]) == ["checkout", "regression"]  # sorted
    payments = one(world, "SELECT id FROM components WHERE name = 'Payments' AND "
                   "project_id = ?", (SHOP,))
    assert payments is not None and orjson.loads(columns["components"]) == [payments["id"]]


def test_v2_text_becomes_adf_and_v3_needs_a_document(world: sqlite3.Connection) -> None:
    issue = _issue(world)
    columns = apply(world, issue, SHOP, adf=False, screen=EDIT_SCREEN,
                    fields={"description": "Steps:\n# open the cart"}, update={})
    assert orjson.loads(columns["description"])["type"] == "doc"
    with pytest.raises(JiraError) as refused:
        apply(world, issue, SHOP, adf=True, screen=EDIT_SCREEN,
              fields={"description": "plain text"}, update={})
    assert "Atlassian Document" in refused.value.errors["description"]


def test_every_error_at_once_and_nothing_applied(world: sqlite3.Connection) -> None:
    with pytest.raises(JiraError) as refused:
        apply(world, _issue(world), SHOP, adf=False, screen=EDIT_SCREEN,
              fields={"summary": "", "status": {"name": "Done"}, "priority": {"name": "Urgent"},
                      "labels": ["two words"], "resolution": {"name": "Done"},
                      "customfield_10020": 999},
              update={"summary": [{"set": "x"}], "timetracking": [{"add": "1h"}]})
    errors = refused.value.errors
    assert refused.value.status_code == 400
    assert errors["summary"] == "Field 'summary' cannot be set in both 'fields' and 'update'."
    assert errors["status"].startswith("Field 'status' cannot be set.")
    assert errors["resolution"].startswith("Field 'resolution' cannot be set.")  # not on edit
    assert errors["priority"] == "Specify a valid value for priority"
    assert errors["labels"] == "The label can't contain spaces."
    assert errors["customfield_10020"] == "Number value expected as the Sprint id."
    assert errors["timetracking"] == "Operation 'add' is not supported for field 'timetracking'."


def test_references_assignee_parent_and_sprint(world: sqlite3.Connection) -> None:
    agent = one(world, "SELECT account_id FROM users WHERE id = 1")
    active = one(world, "SELECT id FROM sprints WHERE state = 'active' AND board_id = 1")
    assert agent is not None and active is not None
    columns = apply(world, _issue(world), SHOP, adf=False, screen=EDIT_SCREEN,
                    fields={"assignee": {"accountId": agent["account_id"]},
                            "customfield_10020": active["id"], "parent": {"key": "SHOP-2"}},
                    update={})
    assert columns["assignee_id"] == 1 and columns["sprint_id"] == active["id"]
    closed = one(world, "SELECT id FROM sprints WHERE state = 'closed' LIMIT 1")
    assert closed is not None
    with pytest.raises(JiraError, match="active or future sprints"):
        apply(world, _issue(world), SHOP, adf=False, screen=EDIT_SCREEN,
              fields={"customfield_10020": closed["id"]}, update={})
