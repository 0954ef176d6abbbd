"""The `jira` library (pycontribs), unchanged against an episode of the tracker through a real
`workgym serve` (proxy included): the server info it reads on connecting, an issue created,
read, edited, transitioned with a resolution and a refused transition raising JIRAError in
Jira's words, JQL search with its paging, comments, a worklog, a link and watchers, sprints
from planning to closing, assignment through /rest/api/latest, attachments."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from jira import JIRA, JIRAError

import workgym
from workgym.processes import serving

TASK = "tracker/start-work-on-bug"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[workgym.sdk.Env]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("jira")),
           "WORKGYM_STEP_BUDGET": "1000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as episode:
        episode.reset()
        yield episode


@pytest.fixture(scope="module")
def jira(run: workgym.sdk.Env) -> JIRA:
    obs = run.observation
    assert obs is not None
    return JIRA(server=obs.apps["tracker"], token_auth=obs.token, max_retries=0)


def test_create_read_edit_and_comment(jira: JIRA) -> None:
    issue = jira.create_issue(project="SHOP", issuetype={"name": "Bug"},
                              summary="Totals off by a cent in JPY", labels=["jpy"])
    assert issue.key.startswith("SHOP-")
    found = jira.issue(issue.key)
    assert (found.fields.status.name, found.fields.labels) == ("Open", ["jpy"])
    found.update(summary="Totals off by one yen", fields={"labels": ["jpy", "rounding"]})
    assert jira.issue(issue.key).fields.summary == "Totals off by one yen"
    jira.add_comment(issue.key, "Rounding happens before the currency conversion.")
    assert [c.body for c in jira.comments(issue.key)] == [
        "Rounding happens before the currency conversion."]


def test_transitions_with_a_resolution_and_a_refusal(jira: JIRA) -> None:
    issue = jira.create_issue(project="SHOP", issuetype={"name": "Bug"}, summary="Flaky cart")
    names = {t["name"] for t in jira.transitions(issue)}
    assert {"Start progress", "Resolve issue", "Close issue"} <= names
    with pytest.raises(JIRAError) as refused:
        jira.transition_issue(issue, "Resolve issue")
    assert refused.value.status_code == 400
    assert "Resolution is required." in str(refused.value.text)
    jira.transition_issue(issue, "Resolve issue", fields={"resolution": {"name": "Done"}})
    done = jira.issue(issue.key)
    assert done.fields.status.name == "Resolved"
    assert done.fields.resolution is not None and done.fields.resolution.name == "Done"


def test_jql_search_pages_through_every_result(jira: JIRA) -> None:
    found = jira.search_issues("project = SHOP ORDER BY key", maxResults=False)
    keys = [i.key for i in found]
    assert len(keys) > 100 and len(set(keys)) == len(keys)
    with pytest.raises(JIRAError) as refused:
        jira.search_issues("projekt = SHOP")
    assert "does not exist" in str(refused.value.text)


def test_worklog_link_and_watchers(jira: JIRA) -> None:
    a = jira.create_issue(project="SHOP", issuetype={"name": "Task"}, summary="Upgrade SDK")
    b = jira.create_issue(project="SHOP", issuetype={"name": "Task"}, summary="Drop old SDK")
    jira.add_worklog(a.key, timeSpent="1h 30m")
    assert [w.timeSpentSeconds for w in jira.worklogs(a.key)] == [5400]
    jira.create_issue_link("Blocks", a.key, b.key)  # a blocks b
    me = jira.myself()
    assert me["displayName"] == "AI Agent"
    watchers = jira.watchers(a.key)
    assert watchers.watchCount == 1 and watchers.isWatching


def test_sprints_from_planning_to_closing(jira: JIRA) -> None:
    board = next(b for b in jira.boards() if b.name == "SHOP board")
    sprint = jira.create_sprint("Hardening", board.id, goal="Fix the payment bugs")
    assert sprint.state == "future"
    bug = jira.create_issue(project="SHOP", issuetype={"name": "Bug"}, summary="3DS loop")
    jira.add_issues_to_sprint(sprint.id, [bug.key])
    assert jira.issue(bug.key).fields.customfield_10020[0].id == sprint.id
    with pytest.raises(JIRAError) as undated:
        jira.update_sprint(sprint.id, state="active")
    assert "start and an end date" in str(undated.value.text)
    states = {s.state for s in jira.sprints(board.id)}
    assert states == {"closed", "active", "future"}
    jira.update_sprint(sprint.id, state="active", startDate="2025-06-16T09:00:00.000Z",
                       endDate="2025-06-30T17:00:00.000Z")
    assert jira.sprint(sprint.id).state == "active"
    jira.update_sprint(sprint.id, state="closed")  # the unfinished bug goes to the backlog
    assert jira.sprint(sprint.id).state == "closed"
    assert jira.issue(bug.key).fields.customfield_10020 is None
    with pytest.raises(JIRAError) as reopened:
        jira.update_sprint(sprint.id, state="active")
    assert reopened.value.status_code == 400


def test_assign_through_latest(jira: JIRA) -> None:
    bug = jira.create_issue(project="SHOP", issuetype={"name": "Bug"}, summary="Stuck cart")
    me = jira.myself()["accountId"]
    assert jira.assign_issue(bug.key, me)  # PUT /rest/api/latest/issue/{key}/assignee
    assignee = jira.issue(bug.key).fields.assignee
    assert assignee is not None and assignee.accountId == me
    jira.assign_issue(bug.key, None)
    assert jira.issue(bug.key).fields.assignee is None


def test_attachments(jira: JIRA, tmp_path: Path) -> None:
    """add_attachment posts the file as multipart with X-Atlassian-Token: no-check; the
    attachment's get() follows Jira's redirect to the content."""
    issue = jira.create_issue(project="SHOP", issuetype={"name": "Bug"},
                              summary="Checkout log of the double charge")
    log = tmp_path / "checkout.txt"
    log.write_bytes(b"ERROR order A-10722 charged twice\n")
    with log.open("rb") as file:
        made = jira.add_attachment(issue.key, file)
    assert (made.filename, made.size, made.mimeType) == ("checkout.txt", 34, "text/plain")
    assert made.get() == log.read_bytes()
    assert jira.attachment_meta()["enabled"] is True
    assert jira.attachment(made.id).filename == "checkout.txt"
    assert [a.id for a in jira.issue(issue.key).fields.attachment] == [made.id]
    jira.delete_attachment(made.id)
    assert jira.issue(issue.key).fields.attachment == []
