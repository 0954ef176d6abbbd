"""Behaviours held to Atlassian's reference (issue 28): a kanban board's sprints refused as
Jira Software refuses them, assignable users by issue, page sizes capped rather than refused,
and people shown as User or UserDetails where Jira's schemas say which."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from .conftest import API, Jira

pytestmark = pytest.mark.anyio
AGILE = "/rest/agile/1.0"
P3 = "https://developer.atlassian.com/cloud/jira/platform/rest/v3"


@pytest.fixture
async def api(jira: Callable[..., Awaitable[Jira]]) -> Jira:
    return await jira()


async def test_a_kanban_boards_sprints_are_refused(api: Jira) -> None:
    """A kanban board runs no sprints: Jira Software answers its sprint list with 400 and
    ``{"errorMessages": ["The board does not support sprints"], "errors": {}}``, not an
    empty page (https://developer.atlassian.com/cloud/jira/software/rest/api-group-board/
    #api-rest-agile-1-0-board-boardid-sprint-get: 400 "Returned if the request is invalid";
    the message as Jira Cloud gives it for a board that is not scrum)."""
    refused = await api.call("GET", f"{AGILE}/board/3/sprint", status=400)
    assert refused == {"errorMessages": ["The board does not support sprints"], "errors": {}}
    assert (await api.call("GET", f"{AGILE}/board/1/sprint"))["values"]


async def test_assignable_users_by_issue_key(jira: Callable[..., Awaitable[Jira]]) -> None:
    """``GET /user/assignable/search?issueKey=`` lists the users who may be assigned that
    issue: those holding Assignable user in its project; ``project`` takes a key or an id;
    an unknown issue is a 404 (P3 #api-rest-api-3-user-assignable-search-get: "project ...
    Required, unless issueKey is specified"; 404 "Returned if the project, issue, or
    transition is not found")."""
    api = await jira(role="Support")  # the agent is Support in SHOP: not assignable there
    by_issue = await api.call("GET", f"{API}/user/assignable/search",
                              params={"issueKey": "SHOP-1"})
    by_project = await api.call("GET", f"{API}/user/assignable/search",
                                params={"project": "10000"})
    assert by_issue == by_project and by_issue
    assert "AI Agent" not in {u["displayName"] for u in by_issue}
    in_app = await api.call("GET", f"{API}/user/assignable/search", params={"issueKey": "APP-1"})
    assert "AI Agent" in {u["displayName"] for u in in_app}
    missing = await api.call("GET", f"{API}/user/assignable/search", status=404,
                             params={"issueKey": "SHOP-99999"})
    assert missing["errorMessages"]
    await api.call("GET", f"{API}/user/assignable/search", status=400)


async def test_page_sizes_above_the_cap_are_capped(api: Jira) -> None:
    """``maxResults`` above what an operation returns is not an error: Jira returns at most
    its cap (P3 #api-rest-api-3-search-jql-get: "It returns max 5000 issues"); the user
    searches page with startAt and maxResults, default 50
    (#api-rest-api-3-user-search-get)."""
    found = await api.call("GET", f"{API}/search/jql",
                           params={"jql": "project = SHOP", "maxResults": 10000})
    assert found["isLast"] is True and len(found["issues"]) == 110
    everyone = await api.call("GET", f"{API}/user/search", params={"query": ""})
    page = await api.call("GET", f"{API}/user/search",
                          params={"startAt": 2, "maxResults": 3})
    assert len(everyone) > 5 and page == everyone[2:5]


async def test_people_are_user_or_user_details_as_jira_documents(api: Jira) -> None:
    """The user operations answer Jira's User (with ``locale``); a comment's author is
    UserDetails, which has none (P3 #api-rest-api-3-myself-get: User;
    #api-rest-api-3-issue-issueidorkey-comment-post: Comment.author is UserDetails)."""
    me = await api.call("GET", f"{API}/myself")
    assert me["locale"]
    comment = await api.call("POST", f"{API}/issue/SHOP-1/comment", status=201, json={
        "body": {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
            {"type": "text", "text": "Seen on staging too."}]}]}})
    assert comment["author"]["accountId"] == me["accountId"]
    assert "locale" not in comment["author"]
