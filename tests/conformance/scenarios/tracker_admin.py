"""The tracker's record and administration operations, each with a success and an error case,
shapes named as Jira's OpenAPI document names its component schemas
(``tests/conformance/tracker.py``): comments, worklogs and remote links by id, comments by
ids, filters; versions and components, which the episode's caller (a developer) may read but
not create, edit or delete (Administer projects: Jira's refusals, their successes are
tests/replicas/tracker/test_api_admin.py's, as a project administrator)."""

from __future__ import annotations

from tests.conformance.harness import Call

API = "/rest/api/3"
ERROR = "ErrorCollection"


def _doc(text: str) -> dict[str, object]:
    return {"type": "doc", "version": 1,
            "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}]}


def scenario_comments_by_id(call: Call) -> None:
    made = call("POST", f"{API}/issue/SHOP-2/comment", status=201, shape="Comment",
                json={"body": _doc("Reproduced on staging.")})
    path = f"{API}/issue/SHOP-2/comment/{made['id']}"
    call("GET", path, status=200, shape="Comment")
    call("GET", f"{API}/issue/SHOP-2/comment/999999", status=404, shape=ERROR)
    call("PUT", path, status=200, shape="Comment", json={"body": _doc("Reproduced twice.")})
    call("PUT", path, status=400, shape=ERROR, json={"body": _doc("")})
    call("POST", f"{API}/comment/list", status=200, shape="PageBeanComment",
         json={"ids": [int(made["id"])]})
    call("POST", f"{API}/comment/list", status=400, shape=ERROR, json={"ids": []})
    call("DELETE", path, status=204)
    call("DELETE", path, status=404, shape=ERROR)


def scenario_worklogs_by_id(call: Call) -> None:
    made = call("POST", f"{API}/issue/SHOP-3/worklog", status=201, shape="Worklog",
                json={"timeSpent": "2h"})
    path = f"{API}/issue/SHOP-3/worklog/{made['id']}"
    call("GET", path, status=200, shape="Worklog")
    call("GET", f"{API}/issue/SHOP-3/worklog/999999", status=404, shape=ERROR)
    call("PUT", path, status=200, shape="Worklog", json={"timeSpent": "1h 30m"})
    call("PUT", path, status=400, shape=ERROR, json={"timeSpent": "soon"})
    call("DELETE", path, status=400, shape=ERROR, params={"adjustEstimate": "new"})
    call("DELETE", path, status=204, params={"adjustEstimate": "leave"})


def scenario_remote_links_by_id(call: Call) -> None:
    link = {"globalId": "zendesk-ticket-12", "object": {
        "url": "https://shop.zendesk.com/agent/tickets/12", "title": "Ticket #12"}}
    made = call("POST", f"{API}/issue/SHOP-4/remotelink", status=201,
                shape="RemoteIssueLinkIdentifies", json=link)
    path = f"{API}/issue/SHOP-4/remotelink/{made['id']}"
    call("GET", path, status=200, shape="RemoteIssueLink")
    call("GET", f"{API}/issue/SHOP-4/remotelink/999999", status=404, shape=ERROR)
    call("PUT", path, status=204, json={**link, "relationship": "mentioned in"})
    call("PUT", path, status=400, shape=ERROR, json={"object": {"url": "https://x"}})
    call("DELETE", f"{API}/issue/SHOP-4/remotelink", status=204,
         params={"globalId": "zendesk-ticket-12"})
    call("DELETE", f"{API}/issue/SHOP-4/remotelink", status=404, shape=ERROR,
         params={"globalId": "zendesk-ticket-12"})


def scenario_versions_and_components(call: Call) -> None:
    """A developer may not administer the project: Jira's refusals, nothing changed."""
    call("POST", f"{API}/version", status=404, shape=ERROR,
         json={"name": "web-2025.9", "projectId": 10000})
    call("POST", f"{API}/version", status=400, shape=ERROR, json={"name": "web-2025.9"})
    call("GET", f"{API}/version/4", status=200, shape="Version")
    call("GET", f"{API}/version/999999", status=404, shape=ERROR)
    call("PUT", f"{API}/version/4", status=400, shape=ERROR, json={"released": True})
    call("DELETE", f"{API}/version/4", status=400, shape=ERROR)
    call("POST", f"{API}/component", status=403, shape=ERROR,
         json={"name": "Search", "project": "SHOP"})
    call("GET", f"{API}/component/1", status=200, shape="ProjectComponent")
    call("GET", f"{API}/component/999999", status=404, shape=ERROR)
    call("PUT", f"{API}/component/1", status=403, shape=ERROR, json={"name": "Basket"})
    call("DELETE", f"{API}/component/1", status=403, shape=ERROR)


def scenario_filters(call: Call) -> None:
    made = call("POST", f"{API}/filter", status=200, shape="Filter", json={
        "name": "Open checkout bugs", "jql": "project = SHOP AND type = Bug"})
    call("POST", f"{API}/filter", status=400, shape=ERROR,
         json={"name": "Broken", "jql": "project = = SHOP"})
    path = f"{API}/filter/{made['id']}"
    call("GET", path, status=200, shape="Filter")
    call("GET", f"{API}/filter/1", status=400, shape=ERROR)
    call("PUT", path, status=200, shape="Filter", json={"description": "Ours"})
    call("PUT", path, status=400, shape=ERROR, json={"name": ""})
    call("PUT", f"{path}/favourite", status=200, shape="Filter")
    call("PUT", f"{API}/filter/1/favourite", status=400, shape=ERROR)
    call("GET", f"{API}/filter/favourite", status=200, shape="Filter[]")
    call("GET", f"{API}/filter/favourite", status=400, shape=ERROR, params={"expand": "x"})
    call("DELETE", f"{path}/favourite", status=200, shape="Filter")
    call("DELETE", f"{API}/filter/1/favourite", status=400, shape=ERROR)
    call("GET", f"{API}/filter/my", status=200, shape="Filter[]")
    call("GET", f"{API}/filter/my", status=400, shape=ERROR, params={"expand": "nope"})
    call("GET", f"{API}/filter/search", status=200, shape="PageBeanFilterDetails",
         params={"filterName": "checkout", "expand": "jql"})
    call("GET", f"{API}/filter/search", status=400, shape=ERROR, params={"orderBy": "size"})
    call("DELETE", path, status=204)
    call("DELETE", path, status=400, shape=ERROR)
