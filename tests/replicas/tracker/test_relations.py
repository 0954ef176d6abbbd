"""Links (Jira Cloud's direction), watchers and work logged, on a seeded world."""

from __future__ import annotations

import sqlite3

import pytest

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import one, rows
from replicas.tracker.errors import JiraError
from replicas.tracker.rules import issues, relations, worklogs
from replicas.tracker.rules.worklogs import Estimate


def test_a_link_reads_from_its_source_and_unlocks_mark_as_duplicate(
        world: sqlite3.Connection) -> None:
    bug = issues.create(world, {"project": {"key": "SHOP"}, "issuetype": {"name": "Bug"},
                                "summary": "Same as SHOP-2"}, {}, 1, WORLD_START, adf=False)
    with pytest.raises(JiraError, match="Transition|link"):
        issues.transition(world, bug, 711, {}, {}, 1, WORLD_START, adf=False)
    link_id = relations.link(world, "Duplicate", bug["key"], "SHOP-2", 1)
    stored = one(world, "SELECT * FROM issue_links WHERE id = ?", (link_id,))
    assert stored is not None and stored["inward_id"] == bug["id"]  # the source duplicates
    closed = issues.transition(world, issues.get(world, bug["key"], 1), 711, {}, {}, 1,
                               WORLD_START, adf=False)
    assert (closed["status"], closed["resolution"]) == ("Closed", "Duplicate")
    with pytest.raises(JiraError) as unknown:
        relations.link(world, "Causes", bug["key"], "SHOP-2", 1)
    assert unknown.value.status_code == 404


def test_watchers_self_and_others(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "SHOP-3", 1)
    support = one(world, "SELECT u.id, u.account_id FROM users u JOIN project_role_members m "
                  "ON m.user_id = u.id WHERE m.role = 'Support' LIMIT 1")
    assert support is not None
    relations.watch(world, issue, support["account_id"], 1)
    relations.watch(world, issue, support["account_id"], 1)  # again: nothing new
    assert len(rows(world, "SELECT * FROM watchers WHERE issue_id = ? AND user_id = ?",
                    (issue["id"], support["id"]))) == 1
    me = one(world, "SELECT account_id FROM users WHERE id = 1")
    assert me is not None
    with pytest.raises(JiraError) as refused:  # support may not manage others' watching
        relations.watch(world, issue, me["account_id"], support["id"])
    assert refused.value.status_code == 403
    relations.unwatch(world, issue, support["account_id"], support["id"])  # themselves: ok


def test_work_logged_moves_the_estimate(world: sqlite3.Connection) -> None:
    issue = issues.get(world, "SHOP-4", 1)
    world.execute("UPDATE issues SET remaining_estimate_s = 36000 WHERE id = ?", (issue["id"],))
    issue = issues.get(world, "SHOP-4", 1)
    made = worklogs.log_work(world, issue, {"timeSpent": "2h 30m",
                                            "started": "2025-06-16T08:00:00.000+0000",
                                            "comment": "Reproduced the *rounding*."},
                             1, WORLD_START, adf=False)
    assert made["time_spent_s"] == 9000 and "rounding" in made["comment"]
    after = issues.get(world, "SHOP-4", 1)
    assert (after["time_spent_s"], after["remaining_estimate_s"]) == (9000, 27000)
    worklogs.log_work(world, after, {"timeSpentSeconds": 600, "started":
                                     "2025-06-16T09:00:00.000+0000"}, 1, WORLD_START,
                      adf=False, estimate=Estimate("new", "1h"))
    assert issues.get(world, "SHOP-4", 1)["remaining_estimate_s"] == 3600
    with pytest.raises(JiraError) as refused:
        worklogs.log_work(world, after, {"timeSpent": "soon"}, 1, WORLD_START, adf=False)
    assert "timeLogged" in refused.value.errors
