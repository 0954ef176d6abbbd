"""The tracker's core operations, each with a success and an error case, shapes named as
Jira's OpenAPI document names its component schemas (``tests/conformance/tracker.py``).

The Agile API (``/rest/agile/1.0``) has no published OpenAPI in a registry: its answers are
checked for status, its errors for Jira's ErrorCollection. ``GET /search/jql`` and the
create metadata by issue type are newer than the document: status only."""

from __future__ import annotations

from tests.conformance.harness import Call

API = "/rest/api/3"
AGILE = "/rest/agile/1.0"
ERROR = "ErrorCollection"
NO_TOKEN = {"Authorization": "Bearer not-a-token"}
MISSING = f"{API}/issue/SHOP-99999"


def _bug(call: Call, summary: str) -> str:
    """A new SHOP bug's key."""
    made = call("POST", f"{API}/issue", status=201, shape="CreatedIssue", json={"fields": {
        "project": {"key": "SHOP"}, "issuetype": {"name": "Bug"}, "summary": summary}})
    return str(made["key"])


def scenario_site(call: Call) -> None:
    """The site and its catalogues: what the token may read (no token: 401)."""
    for path, shape in (("serverInfo", "ServerInformation"), ("myself", "User"),
                        ("field", "FieldDetails[]"), ("issuetype", "IssueTypeDetails[]"),
                        ("priority", "Priority[]"), ("resolution", "Resolution[]"),
                        ("status", "StatusDetails[]"), ("project", "Project[]"),
                        ("issueLinkType", "IssueLinkTypes")):
        call("GET", f"{API}/{path}", status=200, shape=shape)
        call("GET", f"{API}/{path}", status=401, headers=NO_TOKEN)


def scenario_users(call: Call) -> None:
    me = call("GET", f"{API}/myself", status=200, shape="User")
    call("GET", f"{API}/user/search", status=200, shape="User[]",
         params={"query": me["displayName"]})
    call("GET", f"{API}/user/search", status=400, shape=ERROR,
         params={"query": "x" * 201})
    call("GET", f"{API}/user/assignable/search", status=200, shape="User[]",
         params={"project": "SHOP"})
    call("GET", f"{API}/user/assignable/search", status=200, shape="User[]",
         params={"issueKey": "SHOP-1", "maxResults": 5000})
    call("GET", f"{API}/user/assignable/search", status=400, shape=ERROR)
    call("GET", f"{API}/user/assignable/search", status=404, shape=ERROR,
         params={"issueKey": "SHOP-99999"})


def scenario_projects(call: Call) -> None:
    call("GET", f"{API}/project/search", status=200, shape="PageBeanProject",
         params={"query": "sho", "maxResults": 1})
    call("GET", f"{API}/project/search", status=400, shape=ERROR, params={"startAt": -1})
    project = call("GET", f"{API}/project/SHOP", status=200, shape="Project")
    call("GET", f"{API}/project/NOPE", status=404, shape=ERROR)
    components = call("GET", f"{API}/project/SHOP/components", status=200,
                      shape="ProjectComponent[]")
    call("GET", f"{API}/project/NOPE/components", status=404, shape=ERROR)
    call("GET", f"{API}/component/{components[0]['id']}", status=200, shape="ProjectComponent")
    call("GET", f"{API}/component/99999", status=404, shape=ERROR)
    versions = call("GET", f"{API}/project/{project['id']}/versions", status=200,
                    shape="Version[]")
    call("GET", f"{API}/project/NOPE/versions", status=404, shape=ERROR)
    call("GET", f"{API}/version/{versions[0]['id']}", status=200, shape="Version")
    call("GET", f"{API}/version/99999", status=404, shape=ERROR)


def scenario_search(call: Call) -> None:
    call("GET", f"{API}/search/jql", status=200,
         params={"jql": "project = SHOP ORDER BY key", "fields": "summary,status",
                 "maxResults": 2})
    call("GET", f"{API}/search/jql", status=400, shape=ERROR,
         params={"jql": "ORDER BY created"})
    call("GET", f"{API}/search", status=410, shape=ERROR, params={"jql": "project = SHOP"})


def scenario_issues(call: Call) -> None:
    """Create, read, edit, assign, transition and delete an issue."""
    call("POST", f"{API}/issue", status=400, shape=ERROR, json={"fields": {}})
    key = _bug(call, "Conformance: totals off by a cent")
    call("GET", f"{API}/issue/{key}", status=200, shape="IssueBean",
         params={"expand": "changelog,transitions"})
    call("GET", MISSING, status=404, shape=ERROR)
    call("PUT", f"{API}/issue/{key}", status=204, json={"fields": {"labels": ["jpy"]}})
    call("PUT", f"{API}/issue/{key}", status=400, shape=ERROR,
         json={"fields": {"status": {"name": "Done"}}})
    me = call("GET", f"{API}/myself", status=200, shape="User")
    call("PUT", f"{API}/issue/{key}/assignee", status=204, json={"accountId": me["accountId"]})
    call("PUT", f"{API}/issue/{key}/assignee", status=400, shape=ERROR,
         json={"accountId": "0" * 24})
    transitions = call("GET", f"{API}/issue/{key}/transitions", status=200, shape="Transitions")
    call("GET", f"{MISSING}/transitions", status=404, shape=ERROR)
    start = next(t["id"] for t in transitions["transitions"] if t["name"] == "Start progress")
    call("POST", f"{API}/issue/{key}/transitions", status=204, json={"transition": {"id": start}})
    call("POST", f"{API}/issue/{key}/transitions", status=400, shape=ERROR,
         json={"transition": {"id": "nope"}})
    call("GET", f"{API}/issue/{key}/changelog", status=200, shape="PageBeanChangelog")
    call("GET", f"{MISSING}/changelog", status=404, shape=ERROR)
    call("GET", f"{API}/issue/{key}/editmeta", status=200, shape="IssueUpdateMetadata")
    call("GET", f"{MISSING}/editmeta", status=404, shape=ERROR)
    call("DELETE", f"{API}/issue/{key}", status=403, shape=ERROR)  # Administrators only
    call("DELETE", MISSING, status=404, shape=ERROR)


def scenario_create_metadata(call: Call) -> None:
    types = call("GET", f"{API}/issue/createmeta/SHOP/issuetypes", status=200)
    call("GET", f"{API}/issue/createmeta/NOPE/issuetypes", status=404, shape=ERROR)
    call("GET", f"{API}/issue/createmeta/SHOP/issuetypes/{types['issueTypes'][0]['id']}",
         status=200)
    call("GET", f"{API}/issue/createmeta/SHOP/issuetypes/99999", status=404, shape=ERROR)


def scenario_comments(call: Call) -> None:
    key = _bug(call, "Conformance: comments")
    call("POST", f"{API}/issue/{key}/comment", status=201, shape="Comment", json={"body": {
        "type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
            {"type": "text", "text": "Rounding happens before the conversion."}]}]}})
    call("POST", f"{API}/issue/{key}/comment", status=400, shape=ERROR, json={})
    call("GET", f"{API}/issue/{key}/comment", status=200, shape="PageOfComments")
    call("GET", f"{MISSING}/comment", status=404, shape=ERROR)


def scenario_links(call: Call) -> None:
    source, target = _bug(call, "Conformance: blocker"), _bug(call, "Conformance: blocked")
    call("GET", f"{API}/issueLinkType", status=200, shape="IssueLinkTypes")
    call("POST", f"{API}/issueLink", status=201, json={
        "type": {"name": "Blocks"}, "inwardIssue": {"key": source},
        "outwardIssue": {"key": target}})
    call("POST", f"{API}/issueLink", status=400, shape=ERROR, json={"type": {"name": "Blocks"}})
    link = call("GET", f"{API}/issue/{source}", status=200, shape="IssueBean",
                params={"fields": "issuelinks"})["fields"]["issuelinks"][0]
    call("GET", f"{API}/issueLink/{link['id']}", status=200, shape="IssueLink")
    call("GET", f"{API}/issueLink/99999", status=404, shape=ERROR)
    call("DELETE", f"{API}/issueLink/{link['id']}", status=204)
    call("DELETE", f"{API}/issueLink/{link['id']}", status=404, shape=ERROR)


def scenario_remote_links(call: Call) -> None:
    key = _bug(call, "Conformance: remote links")
    made = call("POST", f"{API}/issue/{key}/remotelink", status=201,
                shape="RemoteIssueLinkIdentifies", json={
                    "globalId": "zendesk-ticket-7", "relationship": "mentioned in",
                    "object": {"url": "https://shop.zendesk.com/agent/tickets/7",
                               "title": "Ticket #7"}})
    call("POST", f"{API}/issue/{key}/remotelink", status=400, shape=ERROR,
         json={"object": {"title": "no url"}})
    call("GET", f"{API}/issue/{key}/remotelink", status=200, shape="RemoteIssueLink[]")
    call("GET", f"{MISSING}/remotelink", status=404, shape=ERROR)
    call("DELETE", f"{API}/issue/{key}/remotelink/{made['id']}", status=204)
    call("DELETE", f"{API}/issue/{key}/remotelink/{made['id']}", status=404, shape=ERROR)


def scenario_watchers(call: Call) -> None:
    key = _bug(call, "Conformance: watchers")
    me = call("GET", f"{API}/myself", status=200, shape="User")
    call("GET", f"{API}/issue/{key}/watchers", status=200, shape="Watchers")
    call("GET", f"{MISSING}/watchers", status=404, shape=ERROR)
    call("DELETE", f"{API}/issue/{key}/watchers", status=204,
         params={"accountId": me["accountId"]})
    call("DELETE", f"{API}/issue/{key}/watchers", status=400, shape=ERROR)
    call("POST", f"{API}/issue/{key}/watchers", status=204, json=me["accountId"])
    call("POST", f"{API}/issue/{key}/watchers", status=404, shape=ERROR, json="0" * 24)


def scenario_worklogs(call: Call) -> None:
    key = _bug(call, "Conformance: worklogs")
    call("POST", f"{API}/issue/{key}/worklog", status=201, shape="Worklog",
         json={"timeSpent": "1h 30m"})
    call("POST", f"{API}/issue/{key}/worklog", status=400, shape=ERROR, json={})
    call("GET", f"{API}/issue/{key}/worklog", status=200, shape="PageOfWorklogs")
    call("GET", f"{MISSING}/worklog", status=404, shape=ERROR)


def scenario_agile_boards(call: Call) -> None:
    """Boards: 1 is SHOP's scrum board, 3 PLAT's kanban board (no sprints, no backlog)."""
    call("GET", f"{AGILE}/board", status=200, params={"type": "scrum"})
    call("GET", f"{AGILE}/board", status=400, shape=ERROR, params={"type": "nope"})
    call("GET", f"{AGILE}/board/1", status=200)
    call("GET", f"{AGILE}/board/99", status=404, shape=ERROR)
    call("GET", f"{AGILE}/board/1/configuration", status=200)
    call("GET", f"{AGILE}/board/99/configuration", status=404, shape=ERROR)
    call("GET", f"{AGILE}/board/1/sprint", status=200, params={"state": "active"})
    call("GET", f"{AGILE}/board/3/sprint", status=400, shape=ERROR)
    call("GET", f"{AGILE}/board/1/issue", status=200, params={"jql": "status = Open"})
    call("GET", f"{AGILE}/board/1/issue", status=400, shape=ERROR, params={"jql": "nope ="})
    call("GET", f"{AGILE}/board/1/backlog", status=200, params={"maxResults": 2})
    call("GET", f"{AGILE}/board/3/backlog", status=400, shape=ERROR)


def scenario_agile_sprints(call: Call) -> None:
    """A sprint planned on SHOP's board, renamed, given an issue, the issue taken back."""
    sprint = call("POST", f"{AGILE}/sprint", status=201,
                  json={"name": "Conformance sprint", "originBoardId": 1})
    call("POST", f"{AGILE}/sprint", status=400, shape=ERROR, json={"originBoardId": 1})
    url = f"{AGILE}/sprint/{sprint['id']}"
    call("GET", url, status=200)
    call("GET", f"{AGILE}/sprint/99999", status=404, shape=ERROR)
    call("POST", url, status=200, json={"goal": "Ship the cent fix"})
    call("POST", url, status=400, shape=ERROR, json={"state": "closed"})
    call("PUT", url, status=200, json={"name": "Conformance sprint 2", "state": "future"})
    call("PUT", url, status=400, shape=ERROR, json={"name": "x", "state": "closed"})
    key = _bug(call, "Conformance: planned")
    call("POST", f"{url}/issue", status=204, json={"issues": [key]})
    call("POST", f"{url}/issue", status=400, shape=ERROR, json={"issues": []})
    call("GET", f"{url}/issue", status=200, params={"fields": "summary"})
    call("GET", f"{AGILE}/sprint/99999/issue", status=404, shape=ERROR)
    call("POST", f"{AGILE}/backlog/issue", status=204, json={"issues": [key]})
    call("POST", f"{AGILE}/backlog/issue", status=400, shape=ERROR, json={"issues": []})
