"""The tracker's catalogue over HTTP, as Jira Cloud serves it: the project search PageBean
(paging, the cap on maxResults, the query filter), a project with its lead, components,
versions and issue types, components and versions by id (Jira's 404 body when unknown),
create metadata (required fields, allowed values scoped to the project, severity options),
edit metadata (the fields PUT /issue accepts, none without Edit issues), the catalogues
(priorities, statuses, resolutions, issue types) and the absolute ``self`` links, which carry
the API version asked for and the public base the proxy passes."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, BASE, my_role

pytestmark = pytest.mark.anyio
SHOP_COMPONENTS = ["Accounts", "Cart", "Checkout", "Orders", "Payments", "Promotions"]
SHOP_VERSIONS = ["web-2025.4", "web-2025.5", "web-2025.6", "web-2025.7", "web-2025.8"]


async def test_project_search_is_a_page_bean_with_a_cap_and_a_query(jira: Any) -> None:
    api = await jira()
    first = await api.call("GET", f"{API}/project/search", params={"maxResults": 2})
    assert {k: first[k] for k in ("startAt", "maxResults", "total", "isLast")} == {
        "startAt": 0, "maxResults": 2, "total": 3, "isLast": False}
    assert [p["key"] for p in first["values"]] == ["APP", "PLAT"]  # by key
    rest = await api.call("GET", f"{API}/project/search", params={"startAt": 2,
                                                                   "maxResults": 2})
    assert ([p["key"] for p in rest["values"]], rest["isLast"]) == (["SHOP"], True)
    # The query matches the key or the name, case-insensitively.
    for query, keys in (("shop", ["SHOP"]), ("MOBILE", ["APP"]), ("T", ["PLAT", "SHOP"]),
                        ("zzz", [])):
        found = await api.call("GET", f"{API}/project/search", params={"query": query})
        assert ([p["key"] for p in found["values"]], found["total"]) == (keys, len(keys))
    assert (await api.call("GET", f"{API}/project/search"))["maxResults"] == 50  # default
    # Above the cap, the cap (echoed): 100 for this endpoint (OAS searchProjects: "If a
    # value greater than 100 is provided, the maxResults parameter will default to 100").
    capped = await api.call("GET", f"{API}/project/search", params={"maxResults": 500})
    assert (capped["maxResults"], capped["total"], len(capped["values"])) == (100, 3, 3)


async def test_a_project_has_its_lead_components_versions_and_issue_types(jira: Any) -> None:
    api = await jira()
    shop = await api.call("GET", f"{API}/project/SHOP")
    assert (shop["id"], shop["key"], shop["name"]) == ("10000", "SHOP", "Storefront & Checkout")
    assert shop == await api.call("GET", f"{API}/project/10000")  # by id alike
    lead = (await api.db()).execute("SELECT u.account_id, u.display_name FROM users u JOIN "
                                    "projects p ON p.lead_id = u.id WHERE p.key = 'SHOP'"
                                    ).fetchone()
    assert (shop["lead"]["accountId"], shop["lead"]["displayName"]) == tuple(lead)
    assert [c["name"] for c in shop["components"]] == SHOP_COMPONENTS
    assert [v["name"] for v in shop["versions"]] == SHOP_VERSIONS
    assert [v["released"] for v in shop["versions"]] == [True, True, True, False, False]
    assert {t["name"]: t["subtask"] for t in shop["issueTypes"]} == {
        "Bug": False, "Story": False, "Task": False, "Epic": False, "Sub-task": True}
    app_ = await api.call("GET", f"{API}/project/app")  # keys case-insensitively
    assert [c["name"] for c in app_["components"]] == [
        "Android", "Login", "Order tracking", "Push notifications", "iOS"]
    missing = await api.call("GET", f"{API}/project/NOPE", status=404)
    assert missing == {"errorMessages": ["No project could be found with key 'NOPE'."],
                       "errors": {}}


async def test_components_and_versions_listed_and_by_id(jira: Any) -> None:
    api = await jira()
    components = await api.call("GET", f"{API}/project/SHOP/components")
    assert [c["name"] for c in components] == SHOP_COMPONENTS
    assert {(c["projectId"], c["project"]) for c in components} == {(10000, "SHOP")}
    assert all(c["lead"]["accountId"] for c in components)
    versions = await api.call("GET", f"{API}/project/SHOP/versions")
    assert [v["name"] for v in versions] == SHOP_VERSIONS
    assert [v["releaseDate"] for v in versions] == sorted(v["releaseDate"] for v in versions)
    for version in versions:
        assert await api.call("GET", f"{API}/version/{version['id']}") == version
    cart = next(c for c in components if c["name"] == "Cart")
    one = await api.call("GET", f"{API}/component/{cart['id']}")
    assert (one["id"], one["name"], one["self"]) == (cart["id"], "Cart",
                                                     f"{BASE}{API}/component/{cart['id']}")
    for kind in ("version", "component"):
        body = await api.call("GET", f"{API}/{kind}/99999", status=404)
        assert body["errors"] == {} and len(body["errorMessages"]) == 1
        assert "99999" in body["errorMessages"][0]


async def test_create_metadata_for_a_projects_issue_type(jira: Any) -> None:
    api = await jira()
    types = await api.call("GET", f"{API}/issue/createmeta/SHOP/issuetypes")
    assert [t["name"] for t in types["issueTypes"]] == ["Bug", "Story", "Task", "Epic",
                                                        "Sub-task"]
    assert (types["total"], types["startAt"]) == (5, 0)
    bug = next(t["id"] for t in types["issueTypes"] if t["name"] == "Bug")
    page = await api.call("GET", f"{API}/issue/createmeta/APP/issuetypes/{bug}")
    fields = {f["fieldId"]: f for f in page["fields"]}
    assert page["total"] == len(fields)
    assert {f for f, meta in fields.items() if meta["required"]} == {
        "summary", "project", "issuetype"}
    assert {"description", "priority", "labels", "components", "fixVersions",
            "customfield_10030"} <= set(fields)
    app_components = await api.call("GET", f"{API}/project/APP/components")
    assert [c["id"] for c in fields["components"]["allowedValues"]] == [
        c["id"] for c in app_components]  # the project's own, not SHOP's
    assert fields["components"]["operations"] == ["add", "set", "remove"]
    assert [o["value"] for o in fields["customfield_10030"]["allowedValues"]] == [
        "S1", "S2", "S3", "S4"]
    assert [p["name"] for p in fields["priority"]["allowedValues"]] == [
        "Highest", "High", "Medium", "Low", "Lowest"]
    # An allowed component is taken by create.
    ios = next(c for c in fields["components"]["allowedValues"] if c["name"] == "iOS")
    made = await api.call("POST", f"{API}/issue", status=201, json={"fields": {
        "project": {"key": "APP"}, "issuetype": {"id": bug}, "summary": "Push lost",
        "components": [{"id": ios["id"]}]}})
    issue = await api.call("GET", f"{API}/issue/{made['key']}")
    assert [c["name"] for c in issue["fields"]["components"]] == ["iOS"]
    await api.call("GET", f"{API}/issue/createmeta/APP/issuetypes/99999", status=404)
    await api.call("GET", f"{API}/issue/createmeta/NOPE/issuetypes", status=404)


EDIT_SCREEN = {"summary", "description", "priority", "labels", "components", "fixVersions",
               "duedate", "customfield_10016", "customfield_10030", "timetracking", "comment",
               "assignee", "parent", "customfield_10020"}


async def test_edit_metadata_lists_what_put_issue_accepts(jira: Any) -> None:
    api = await jira()
    meta = (await api.call("GET", f"{API}/issue/SHOP-5/editmeta"))["fields"]
    assert set(meta) == EDIT_SCREEN
    assert meta["summary"]["required"] is True and "fieldId" not in meta["summary"]
    assert [o["value"] for o in meta["customfield_10030"]["allowedValues"]] == [
        "S1", "S2", "S3", "S4"]
    await api.call("PUT", f"{API}/issue/SHOP-5", status=204, json={"fields": {
        "labels": ["checkout", "regression"], "customfield_10030": {"value": "S2"},
        "duedate": "2025-07-01"}})
    after = (await api.call("GET", f"{API}/issue/SHOP-5"))["fields"]
    assert (after["labels"], after["customfield_10030"]["value"], after["duedate"]) == (
        ["checkout", "regression"], "S2", "2025-07-01")
    # Fields not in editmeta are refused, each named, and nothing is written.
    assert not {"resolution", "status"} & set(meta)
    refused = await api.call("PUT", f"{API}/issue/SHOP-5", status=400, json={"fields": {
        "resolution": {"name": "Done"}, "labels": ["other"]}})
    assert refused == {"errorMessages": [], "errors": {"resolution": (
        "Field 'resolution' cannot be set. It is not on the appropriate screen, or unknown.")}}
    assert (await api.call("GET", f"{API}/issue/SHOP-5"))["fields"]["labels"] == [
        "checkout", "regression"]


async def test_edit_metadata_is_empty_without_edit_issues(jira: Any) -> None:
    api = await jira(setup=my_role("Support"))
    assert await api.call("GET", f"{API}/issue/SHOP-5/editmeta") == {"fields": {}}
    assert (await api.call("GET", f"{API}/issue/APP-5/editmeta"))["fields"]  # still a dev


async def test_catalogues(jira: Any) -> None:
    api = await jira()
    priorities = await api.call("GET", f"{API}/priority")
    assert [(p["id"], p["name"]) for p in priorities] == [
        ("1", "Highest"), ("2", "High"), ("3", "Medium"), ("4", "Low"), ("5", "Lowest")]
    statuses = {s["name"]: s for s in await api.call("GET", f"{API}/status")}
    assert len(statuses) == 11
    assert {n: s["statusCategory"]["key"] for n, s in statuses.items() if n in (
        "Backlog", "In Progress", "Done", "Resolved", "Reopened")} == {
        "Backlog": "new", "In Progress": "indeterminate", "Done": "done", "Resolved": "done",
        "Reopened": "new"}
    assert (statuses["In Progress"]["id"], statuses["In Progress"]["statusCategory"]["id"]) == (
        "3", 4)
    resolutions = await api.call("GET", f"{API}/resolution")
    assert [r["name"] for r in resolutions] == ["Done", "Won't Do", "Duplicate",
                                                "Cannot Reproduce"]
    types = {t["name"]: t for t in await api.call("GET", f"{API}/issuetype")}
    assert {n: (t["subtask"], t["hierarchyLevel"]) for n, t in types.items()} == {
        "Bug": (False, 0), "Story": (False, 0), "Task": (False, 0), "Epic": (False, 1),
        "Sub-task": (True, -1)}


@pytest.mark.parametrize("version", ["2", "3"])
async def test_self_links_carry_the_api_version_and_the_public_base(jira: Any,
                                                                    version: str) -> None:
    api = await jira()
    root = f"{BASE}/rest/api/{version}"
    shop = await api.call("GET", f"/rest/api/{version}/project/SHOP")
    assert shop["self"] == f"{root}/project/10000"
    assert shop["lead"]["self"].startswith(f"{root}/user?accountId=")
    assert {c["self"] for c in shop["components"]} == {
        f"{root}/component/{c['id']}" for c in shop["components"]}
    assert {v["self"] for v in shop["versions"]} == {
        f"{root}/version/{v['id']}" for v in shop["versions"]}
    for path, kind in (("priority", "priority"), ("status", "status"),
                       ("resolution", "resolution"), ("issuetype", "issuetype")):
        listed = await api.call("GET", f"/rest/api/{version}/{path}")
        assert [x["self"] for x in listed] == [f"{root}/{kind}/{x['id']}" for x in listed]
    latest = await api.call("GET", "/rest/api/latest/priority")  # latest is v2
    assert latest[0]["self"] == f"{BASE}/rest/api/2/priority/1"
