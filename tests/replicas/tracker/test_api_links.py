"""Links over HTTP, as Jira Cloud keeps them. Remote links: created (201) to a helpdesk
ticket's URL (which names the ticket in the row), replaced by the same globalId (200), refused
without url and title (400 naming both, nothing written), deleted (404 when unknown); a
Support-role caller may link (Link issues) but not delete one (that needs Edit issues too).
Issue links: the source (inwardIssue of the POST) shows the target as its outwardIssue and the
target the source as its inwardIssue; GET and DELETE /issueLink/{id}. Sub-tasks are listed on
their parent. DELETE /issue needs Delete issues (Administrators): it takes the issue's comments
and links, and an issue with sub-tasks only with deleteSubtasks=true."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from .conftest import API, BASE

pytestmark = pytest.mark.anyio
TICKET = {"globalId": "zendesk-ticket-42", "relationship": "mentioned in",
          "application": {"name": "Zendesk Support"},
          "object": {"url": "https://shop.zendesk.com/agent/tickets/42", "title": "Ticket #42"}}


def remote_rows(db: sqlite3.Connection, key: str) -> list[sqlite3.Row]:
    return db.execute("SELECT r.* FROM remote_links r JOIN issues i ON i.id = r.issue_id "
                      "WHERE i.key = ? ORDER BY r.id", (key,)).fetchall()


async def test_a_remote_link_to_a_ticket_names_it_and_its_global_id_replaces(
        jira: Any) -> None:
    api = await jira()
    made = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=201, json=TICKET)
    assert made == {"id": made["id"], "self": f"{BASE}{API}/issue/SHOP-3/remotelink/"
                                              f"{made['id']}"}
    [row] = remote_rows(await api.db(), "SHOP-3")
    assert (row["id"], row["ticket_id"], row["global_id"]) == (made["id"], 42,
                                                               "zendesk-ticket-42")
    listed = await api.call("GET", f"{API}/issue/SHOP-3/remotelink")
    assert [(r["id"], r["globalId"], r["object"]) for r in listed] == [
        (made["id"], "zendesk-ticket-42", TICKET["object"])]
    # The same globalId again: that link is replaced (200), absent fields emptied.
    again = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", json={
        "globalId": "zendesk-ticket-42", "object": {
            "url": "https://shop.zendesk.com/api/v2/tickets/43.json", "title": "Ticket #43"}})
    assert again["id"] == made["id"]
    [row] = remote_rows(await api.db(), "SHOP-3")
    assert (row["ticket_id"], row["title"], row["relationship"]) == (43, "Ticket #43", None)
    # A URL naming no ticket links no ticket.
    await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=201, json={
        "object": {"url": "https://status.example.com/incidents/7", "title": "Incident"}})
    assert [r["ticket_id"] for r in remote_rows(await api.db(), "SHOP-3")] == [43, None]


async def test_a_remote_link_needs_url_and_title_and_can_be_deleted(jira: Any) -> None:
    api = await jira()
    for body in ({"object": {"url": "", "title": "  "}}, {"globalId": "x"}):
        refused = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=400,
                                 json=body)
        assert refused["errorMessages"] == [] and set(refused["errors"]) == {"url", "title"}
    assert remote_rows(await api.db(), "SHOP-3") == []
    made = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=201, json=TICKET)
    await api.call("DELETE", f"{API}/issue/SHOP-3/remotelink/{made['id']}", status=204)
    assert await api.call("GET", f"{API}/issue/SHOP-3/remotelink") == []
    gone = await api.call("DELETE", f"{API}/issue/SHOP-3/remotelink/{made['id']}", status=404)
    assert gone["errors"] == {} and gone["errorMessages"]
    await api.call("DELETE", f"{API}/issue/SHOP-999/remotelink/1", status=404)


async def test_support_may_link_but_not_delete_a_remote_link(jira: Any) -> None:
    api = await jira(role="Support")
    made = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=201, json=TICKET)
    await api.call("POST", f"{API}/issueLink", status=201, json={
        "type": {"name": "Relates"}, "inwardIssue": {"key": "SHOP-3"},
        "outwardIssue": {"key": "SHOP-4"}})
    # deleteRemoteIssueLinkById needs Browse projects, Edit issues and Link issues (OAS):
    # Support has no Edit issues, so Jira refuses (403) and the link stays.
    await api.call("DELETE", f"{API}/issue/SHOP-3/remotelink/{made['id']}", status=403)
    assert [r["id"] for r in remote_rows(await api.db(), "SHOP-3")] == [made["id"]]


async def test_an_issue_link_shows_from_both_sides(jira: Any) -> None:
    api = await jira()
    a, b = await api.create("Upgrade the SDK"), await api.create("Drop the old SDK")
    created = await api.call("POST", f"{API}/issueLink", status=201, json={
        "type": {"name": "Blocks"}, "inwardIssue": {"key": a}, "outwardIssue": {"key": b}})
    assert created is None  # 201, no body
    [on_a] = (await api.call("GET", f"{API}/issue/{a}"))["fields"]["issuelinks"]
    [on_b] = (await api.call("GET", f"{API}/issue/{b}"))["fields"]["issuelinks"]
    assert (on_a["outwardIssue"]["key"], "inwardIssue" in on_a) == (b, False)  # a blocks b
    assert (on_b["inwardIssue"]["key"], "outwardIssue" in on_b) == (a, False)
    assert on_a["id"] == on_b["id"] and on_a["type"]["outward"] == "blocks"
    link = await api.call("GET", f"{API}/issueLink/{on_a['id']}")
    assert (link["type"]["name"], link["inwardIssue"]["key"], link["outwardIssue"]["key"]) == (
        "Blocks", a, b)
    assert link["self"] == f"{BASE}{API}/issueLink/{on_a['id']}"
    await api.call("DELETE", f"{API}/issueLink/{on_a['id']}", status=204)
    await api.call("GET", f"{API}/issueLink/{on_a['id']}", status=404)
    assert (await api.call("GET", f"{API}/issue/{a}"))["fields"]["issuelinks"] == []
    unknown = await api.call("POST", f"{API}/issueLink", status=404, json={
        "type": {"name": "Causes"}, "inwardIssue": {"key": a}, "outwardIssue": {"key": b}})
    assert unknown == {"errorMessages": ["No issue link type with name 'Causes' found."],
                       "errors": {}}


async def test_sub_tasks_are_listed_on_their_parent(jira: Any) -> None:
    api = await jira()
    parent = await api.create("Checkout revamp", "Story")
    subs = [await api.create(f"Step {n}", "Sub-task", parent={"key": parent})
            for n in (1, 2)]
    listed = (await api.call("GET", f"{API}/issue/{parent}"))["fields"]["subtasks"]
    assert [s["key"] for s in listed] == subs
    assert [s["fields"]["summary"] for s in listed] == ["Step 1", "Step 2"]
    child = (await api.call("GET", f"{API}/issue/{subs[0]}"))["fields"]
    assert (child["parent"]["key"], child["subtasks"]) == (parent, [])


async def test_a_developer_may_not_delete_an_issue(jira: Any) -> None:
    api = await jira()
    refused = await api.call("DELETE", f"{API}/issue/SHOP-4", status=403)
    assert refused == {"errorMessages": ["You do not have permission to delete issues in "
                                         "this project."], "errors": {}}
    assert (await api.call("GET", f"{API}/issue/SHOP-4"))["key"] == "SHOP-4"


async def test_an_administrator_deletes_an_issue_with_what_hangs_on_it(jira: Any) -> None:
    api = await jira(role="Administrators")
    parent, other = await api.create("Old epic work", "Story"), await api.create("Related")
    sub = await api.create("Leftover", "Sub-task", parent={"key": parent})
    await api.call("POST", f"{API}/issue/{parent}/comment", status=201, json={"body": {
        "type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
            {"type": "text", "text": "Superseded."}]}]}})
    await api.call("POST", f"{API}/issueLink", status=201, json={
        "type": {"name": "Relates"}, "inwardIssue": {"key": parent},
        "outwardIssue": {"key": other}})
    await api.call("POST", f"{API}/issue/{parent}/remotelink", status=201, json=TICKET)
    # With a sub-task: only with deleteSubtasks=true; nothing is deleted otherwise.
    refused = await api.call("DELETE", f"{API}/issue/{parent}", status=400)
    assert refused["errors"] == {} and refused["errorMessages"]
    await api.call("DELETE", f"{API}/issue/{parent}", status=400,
                   params={"deleteSubtasks": "false"})
    assert (await api.call("GET", f"{API}/issue/{sub}"))["fields"]["parent"]["key"] == parent
    db = await api.db()
    parent_id = db.execute("SELECT id FROM issues WHERE key = ?", (parent,)).fetchone()[0]
    await api.call("DELETE", f"{API}/issue/{parent}", status=204,
                   params={"deleteSubtasks": "true"})
    for key in (parent, sub):
        await api.call("GET", f"{API}/issue/{key}", status=404)
    assert (await api.call("GET", f"{API}/issue/{other}"))["fields"]["issuelinks"] == []
    db = await api.db()
    for table in ("comments", "remote_links", "watchers", "worklogs", "changelog"):
        assert db.execute(f"SELECT count(*) FROM {table} WHERE issue_id = ?",
                          (parent_id,)).fetchone()[0] == 0, table
    assert db.execute("SELECT count(*) FROM issue_links WHERE ? IN (inward_id, outward_id)",
                      (parent_id,)).fetchone()[0] == 0
    # Without sub-tasks, no flag needed.
    await api.call("DELETE", f"{API}/issue/{other}", status=204)
