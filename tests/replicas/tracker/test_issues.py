"""Issue rules on a seeded world: create, edit, assign and transition as Jira does them,
with its refusals, and every change in the changelog."""

from __future__ import annotations

import sqlite3

import orjson
import pytest

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import one, rows
from replicas.tracker.errors import JiraError
from replicas.tracker.rules import issues
from replicas.tracker.rules.workflows import TransitionRefused

NOW = WORLD_START


def _support(world: sqlite3.Connection) -> int:
    found = one(world, "SELECT user_id FROM project_role_members WHERE role = 'Support' "
                "LIMIT 1")
    assert found is not None
    return int(found["user_id"])


def test_create_sets_key_status_and_reporter_and_refuses_with_every_error(
        world: sqlite3.Connection) -> None:
    made = issues.create(world, {"project": {"key": "SHOP"}, "issuetype": {"name": "Bug"},
                                 "summary": "Apple Pay button missing", "labels": ["ios"]},
                         {}, 1, NOW, adf=False)
    assert made["key"] == "SHOP-111" and made["status"] == "Open"  # the bug workflow
    assert (made["reporter_id"], made["priority"]) == (1, "Medium")
    assert one(world, "SELECT 1 AS y FROM watchers WHERE issue_id = ? AND user_id = 1",
               (made["id"],))
    story = issues.create(world, {"project": {"key": "SHOP"}, "issuetype": {"id": "10002"},
                                  "summary": "Wishlist"}, {}, 1, NOW, adf=False)
    assert story["status"] == "Backlog"  # the software workflow
    with pytest.raises(JiraError) as refused:
        issues.create(world, {"project": {"key": "NOPE"}, "issuetype": {"name": "Saga"}},
                      {}, 1, NOW, adf=False)
    assert refused.value.errors == {"project": "Specify a valid project ID or key",
                                    "issuetype": "Specify an issue type",
                                    "summary": "You must specify a summary of the issue."}


def test_edit_needs_edit_issues_and_logs_what_changed(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "SHOP-1", 1)
    after = issues.edit(world, issue, {"summary": "Renamed"}, {"labels": [{"add": "p1"}]}, 1,
                        NOW, adf=False)
    assert after["summary"] == "Renamed" and "p1" in orjson.loads(after["labels"])
    entry = rows(world, "SELECT * FROM changelog WHERE issue_id = ? ORDER BY id DESC",
                 (issue["id"],))[0]
    assert {i["field"] for i in orjson.loads(entry["items"])} == {"summary", "labels"}
    with pytest.raises(JiraError) as refused:
        issues.edit(world, after, {"summary": "x"}, {}, _support(world), NOW, adf=False)
    assert refused.value.status_code == 400 and "summary" in refused.value.errors


def test_assign_unassign_default_and_refusals(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "SHOP-1", 1)
    agent = one(world, "SELECT account_id FROM users WHERE id = 1")
    assert agent is not None
    issue = issues.assign(world, issue, agent["account_id"], 1, NOW)
    assert issue["assignee_id"] == 1
    issue = issues.assign(world, issue, None, 1, NOW)
    assert issue["assignee_id"] is None
    lead = one(world, "SELECT lead_id FROM projects WHERE key = 'SHOP'")
    assert lead is not None
    assert issues.assign(world, issue, "-1", 1, NOW)["assignee_id"] == lead["lead_id"]
    support = one(world, "SELECT account_id FROM users WHERE id = ?", (_support(world),))
    assert support is not None
    with pytest.raises(JiraError) as refused:  # support agents are not assignable
        issues.assign(world, issue, support["account_id"], 1, NOW)
    assert refused.value.errors == {"assignee": f"User '{support['account_id']}' cannot be "
                                    "assigned issues."}
    with pytest.raises(JiraError) as forbidden:
        issues.assign(world, issue, None, _support(world), NOW)
    assert forbidden.value.status_code == 403


def test_a_bug_resolved_then_reopened(world: sqlite3.Connection) -> None:
    bug = issues.create(world, {"project": {"key": "SHOP"}, "issuetype": {"name": "Bug"},
                                "summary": "Totals off by a cent"}, {}, 1, NOW, adf=False)
    assert [t.name for t in issues.available(world, bug, 1)][:2] == [
        "Start progress", "Resolve issue"]
    assert issues.available(world, bug, _support(world)) == []
    with pytest.raises(TransitionRefused) as refused:
        issues.transition(world, bug, 5, {}, {}, 1, NOW, adf=False)
    assert refused.value.errors == {"resolution": "Resolution is required."}
    with pytest.raises(TransitionRefused, match="not on the appropriate screen"):
        issues.transition(world, bug, 5, {"summary": "x", "resolution": {"name": "Done"}}, {},
                          1, NOW, adf=False)
    assert issues.get(world, bug["key"], 1)["status"] == "Open"  # nothing changed
    done = issues.transition(world, bug, 5, {"resolution": {"name": "Done"}},
                             {"comment": [{"add": {"body": "Fixed in web-2025.7"}}]},
                             1, NOW, adf=False)
    assert (done["status"], done["resolution"]) == ("Resolved", "Done")
    assert done["resolution_date"] is not None
    assert one(world, "SELECT count(*) AS n FROM comments WHERE issue_id = ?",
               (bug["id"],)) == {"n": 1}
    reopened = issues.transition(world, done, 3, {}, {}, 1, NOW, adf=False)
    assert (reopened["status"], reopened["resolution"], reopened["resolution_date"]) == (
        "Reopened", None, None)
    with pytest.raises(TransitionRefused, match="Transition id '3' is not valid"):
        issues.transition(world, reopened, 3, {}, {}, 1, NOW, adf=False)


def test_comments_need_the_permission_and_a_body(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "SHOP-2", 1)
    with pytest.raises(JiraError) as empty:
        issues.add_comment(world, issue, "", 1, NOW, adf=False)
    assert empty.value.errors == {"comment": "Comment body is not valid!"}
    made = issues.add_comment(world, issue, "Seen again today.", _support(world), NOW,
                              adf=False)
    assert orjson.loads(made["body"])["type"] == "doc"


def test_an_issue_is_found_by_id_or_key_and_hidden_alike(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "shop-1", 1)
    assert issues.get(world, str(issue["id"]), 1)["key"] == "SHOP-1"
    with pytest.raises(JiraError) as missing:
        issues.get(world, "SHOP-9999", 1)
    assert missing.value.status_code == 404
    assert missing.value.messages == [
        "Issue does not exist or you do not have permission to see it."]
