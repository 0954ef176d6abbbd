"""Comments, worklogs and remote links by id over HTTP, as Jira Cloud's REST v3 reference
documents them (https://developer.atlassian.com/cloud/jira/platform/rest/v3/, groups Issue
comments, Issue worklogs, Issue remote links): the author edits and deletes their own
comment and worklog (Edit/Delete own comments, own worklogs), another's is refused with a
400 and changes nothing; an edited comment keeps its author and names its update author;
POST /comment/list answers a PageBean of the comments named that one may see; a worklog's
edit moves the remaining estimate by the difference (adjustEstimate auto) and its delete gives
the time back; a remote link is read and replaced by id (fields left out become null) and
deleted by its globalId."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, BASE

pytestmark = pytest.mark.anyio


def _doc(text: str) -> dict[str, Any]:
    return {"type": "doc", "version": 1,
            "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}]}


async def test_a_comment_is_edited_and_deleted_by_its_author_only(jira: Any) -> None:
    """P3 Issue comments: updateComment needs Edit own comments (yours) or Edit all
    comments; "400 if the user does not have permission to edit the comment"; deleteComment
    likewise with Delete own/all comments."""
    api = await jira()
    made = await api.call("POST", f"{API}/issue/SHOP-5/comment", status=201,
                          json={"body": _doc("Fixed in build 41.")})
    path = f"{API}/issue/SHOP-5/comment/{made['id']}"
    edited = await api.call("PUT", path, json={"body": _doc("Fixed in build 42.")})
    assert edited["body"] == _doc("Fixed in build 42.")
    assert edited["author"]["accountId"] == edited["updateAuthor"]["accountId"]
    assert (await api.call("GET", path))["body"] == _doc("Fixed in build 42.")
    await api.call("PUT", path, status=400, json={"body": _doc("")})
    theirs = (await api.db()).execute("SELECT c.id, i.key FROM comments c JOIN issues i ON "
                                      "i.id = c.issue_id WHERE c.author_id != 1 AND "
                                      "i.project_id = 10000 ORDER BY c.id").fetchone()
    other = f"{API}/issue/{theirs['key']}/comment/{theirs['id']}"
    refused = await api.call("PUT", other, status=400, json={"body": _doc("Mine now.")})
    assert refused == {"errorMessages": ["You do not have the permission to edit this "
                                         "comment."], "errors": {}}
    await api.call("DELETE", other, status=400)
    await api.call("GET", f"{API}/issue/SHOP-6/comment/{made['id']}", status=404)
    await api.call("DELETE", path, status=204)
    await api.call("GET", path, status=404)
    assert (await api.db()).execute("SELECT count(*) FROM comments WHERE id = ?",
                                    (theirs["id"],)).fetchone()[0] == 1


async def test_comments_by_ids_are_a_page_of_those_one_may_see(jira: Any) -> None:
    """P3 Issue comments, getCommentsByIds: a PageBean of the comments named; 400 if more
    than 1000 ids or none."""
    api = await jira()
    ids = [r[0] for r in (await api.db()).execute("SELECT id FROM comments ORDER BY id "
                                                  "LIMIT 3")]
    page = await api.call("POST", f"{API}/comment/list", json={"ids": [*ids, 999999]})
    assert [int(c["id"]) for c in page["values"]] == ids and page["total"] == 3
    await api.call("POST", f"{API}/comment/list", status=400, json={"ids": []})


async def test_a_worklog_is_corrected_and_the_estimate_follows(jira: Any) -> None:
    """P3 Issue worklogs: updateWorklog and deleteWorklog, adjustEstimate auto (the
    remaining estimate moves by the change), new (newEstimate required: 400 without)."""
    api = await jira()
    await api.call("PUT", f"{API}/issue/SHOP-4", status=204,
                   json={"fields": {"timetracking": {"remainingEstimate": "10h"}}})
    made = await api.call("POST", f"{API}/issue/SHOP-4/worklog", status=201,
                          json={"timeSpent": "3h"})
    path = f"{API}/issue/SHOP-4/worklog/{made['id']}"
    fixed = await api.call("PUT", path, json={"timeSpent": "1h"})
    assert fixed["timeSpentSeconds"] == 3600 and fixed["started"] == made["started"]
    issue = await api.call("GET", f"{API}/issue/SHOP-4", params={"fields": "timetracking"})
    assert issue["fields"]["timetracking"] == {"remainingEstimateSeconds": 9 * 3600,
                                               "timeSpentSeconds": 3600}
    await api.call("PUT", path, status=400, params={"adjustEstimate": "new"},
                   json={"timeSpent": "2h"})
    assert (await api.call("GET", path))["timeSpentSeconds"] == 3600
    await api.call("DELETE", path, status=204)
    issue = await api.call("GET", f"{API}/issue/SHOP-4", params={"fields": "timetracking"})
    assert issue["fields"]["timetracking"] == {"remainingEstimateSeconds": 10 * 3600}
    await api.call("GET", path, status=404)


async def test_another_s_worklog_needs_edit_all_worklogs(jira: Any) -> None:
    """P3 Issue worklogs: Edit all worklogs to update any worklog, Edit own worklogs for
    yours (400 otherwise)."""
    api = await jira(setup=[
        {"select": "issues", "where": {"key": "SHOP-7"}, "bind": "i"},
        {"insert": "worklogs", "values": {"issue_id": "$i.id", "author_id": 3,
                                          "time_spent_s": 3600, "started": "@now-1d",
                                          "created": "@now-1d"}}])
    [worklog] = (await api.call("GET", f"{API}/issue/SHOP-7/worklog"))["worklogs"]
    path = f"{API}/issue/SHOP-7/worklog/{worklog['id']}"
    await api.call("PUT", path, status=400, json={"timeSpent": "2h"})
    await api.call("DELETE", path, status=400)
    admin = await jira(role="Administrators", setup=[
        {"select": "issues", "where": {"key": "SHOP-7"}, "bind": "i"},
        {"insert": "worklogs", "values": {"issue_id": "$i.id", "author_id": 3,
                                          "time_spent_s": 3600, "started": "@now-1d",
                                          "created": "@now-1d"}}])
    [worklog] = (await admin.call("GET", f"{API}/issue/SHOP-7/worklog"))["worklogs"]
    fixed = await admin.call("PUT", f"{API}/issue/SHOP-7/worklog/{worklog['id']}",
                             json={"timeSpent": "2h"})
    assert fixed["author"]["accountId"] != fixed["updateAuthor"]["accountId"]


async def test_a_remote_link_by_id_and_by_global_id(jira: Any) -> None:
    """P3 Issue remote links: getRemoteIssueLinkById, updateRemoteIssueLink ("fields
    without values in the request are set to null"; 400 naming a missing title),
    deleteRemoteIssueLinkByGlobalId (404 when there is none)."""
    api = await jira()
    made = await api.call("POST", f"{API}/issue/SHOP-3/remotelink", status=201, json={
        "globalId": "zendesk-ticket-7", "relationship": "mentioned in",
        "object": {"url": "https://shop.zendesk.com/agent/tickets/7", "title": "Ticket #7"}})
    path = f"{API}/issue/SHOP-3/remotelink/{made['id']}"
    assert (await api.call("GET", path))["globalId"] == "zendesk-ticket-7"
    await api.call("PUT", path, status=204, json={"object": {
        "url": "https://shop.zendesk.com/agent/tickets/8", "title": "Ticket #8"}})
    link = await api.call("GET", path)
    assert ("globalId" in link, "relationship" in link, link["object"]["title"]) == (
        False, False, "Ticket #8")
    refused = await api.call("PUT", path, status=400, json={"object": {"url": "https://x"}})
    assert refused["errors"] == {"title": "'title' cannot be null or empty."}
    await api.call("PUT", path, status=204, json={"globalId": "g-8", "object": {
        "url": "https://shop.zendesk.com/agent/tickets/8", "title": "Ticket #8"}})
    await api.call("DELETE", f"{API}/issue/SHOP-3/remotelink", status=404,
                   params={"globalId": "g-9"})
    await api.call("DELETE", f"{API}/issue/SHOP-3/remotelink", status=204,
                   params={"globalId": "g-8"})
    await api.call("GET", path, status=404)


async def test_the_self_links_of_a_comment_a_worklog_and_a_remote_link_resolve(
        jira: Any) -> None:
    """Each record's ``self`` is its own resource's URL (Jira Cloud REST v3: Comment.self,
    Worklog.self "The URL of the worklog item", RemoteIssueLink.self "The URL of the link"):
    a client following it gets the record, not a 404 or 405."""
    api = await jira()
    made = [
        await api.call("POST", f"{API}/issue/SHOP-5/comment", status=201,
                       json={"body": _doc("Seen on build 41.")}),
        await api.call("POST", f"{API}/issue/SHOP-5/worklog", status=201, json={
            "timeSpentSeconds": 600, "started": "2024-01-02T09:00:00.000+0000"}),
    ]
    link = await api.call("POST", f"{API}/issue/SHOP-5/remotelink", status=201, json={
        "globalId": "ticket-9", "object": {"url": "https://example.com/9", "title": "T9"}})
    for record in [*made, link]:
        assert record["self"].startswith(BASE), record["self"]
        followed = await api.call("GET", record["self"].removeprefix(BASE))
        assert str(followed["id"]) == str(record["id"])
