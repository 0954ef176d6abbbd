"""Versions, components and filters over HTTP, as Jira Cloud's REST v3 reference documents
them (https://developer.atlassian.com/cloud/jira/platform/rest/v3/, groups Project versions,
Project components, Filters): versions and components need Administer projects (a developer
is refused and nothing changes); a name is required and unique in its project (400 naming
the field); releasing a version with moveUnfixedIssuesTo moves its unresolved issues to the
other version (each change in the issue's history), deleting one with moveFixIssuesTo moves
all of them; a filter's JQL must parse (400 under ``errors.jql``), its name is unique among
its owner's, and it is listed by /filter/search and /filter/my."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, BASE

pytestmark = pytest.mark.anyio


async def test_versions_need_administer_projects(jira: Any) -> None:
    """P3 Project versions, createVersion: Administer Projects for the project (404 without
    it, "the user does not have the required permissions"); updateVersion 400 likewise."""
    api = await jira()
    refused = await api.call("POST", f"{API}/version", status=404,
                             json={"name": "web-2025.9", "projectId": 10000})
    assert refused["errorMessages"] == ["You must have global or project administrator "
                                        "rights in order to modify versions."]
    await api.call("PUT", f"{API}/version/4", status=400, json={"released": True})
    await api.call("POST", f"{API}/component", status=403,
                   json={"name": "Search", "project": "SHOP"})
    db = await api.db()
    assert db.execute("SELECT count(*) FROM versions WHERE name = 'web-2025.9'"
                      ).fetchone()[0] == 0
    assert db.execute("SELECT released FROM versions WHERE id = 4").fetchone()[0] == 0


async def test_a_version_is_created_released_and_its_unresolved_issues_move(
        jira: Any) -> None:
    """P3 Project versions: createVersion (201; name required, unique in the project),
    updateVersion with released and moveUnfixedIssuesTo ("the URL of the self link to the
    version to which all unfixed issues are moved when a version is released")."""
    api = await jira(role="Administrators")
    made = await api.call("POST", f"{API}/version", status=201, json={
        "name": "web-2025.9", "projectId": 10000, "description": "Autumn",
        "releaseDate": "2025-09-01"})
    assert (made["name"], made["released"], made["releaseDate"], made["description"]) == (
        "web-2025.9", False, "2025-09-01", "Autumn")
    twice = await api.call("POST", f"{API}/version", status=400,
                           json={"name": "WEB-2025.9", "projectId": 10000})
    assert twice == {"errorMessages": [], "errors": {
        "name": "A version with this name already exists in this project."}}
    unnamed = await api.call("POST", f"{API}/version", status=400,
                             json={"projectId": 10000, "releaseDate": "soon"})
    assert set(unnamed["errors"]) == {"name", "releaseDate"}
    db = await api.db()
    open_one = db.execute("SELECT key FROM issues WHERE project_id = 10000 AND resolution IS "
                          "NULL ORDER BY id").fetchone()["key"]
    done_one = db.execute("SELECT key FROM issues WHERE project_id = 10000 AND resolution = "
                          "'Done' ORDER BY id").fetchone()["key"]
    for key in (open_one, done_one):
        await api.call("PUT", f"{API}/issue/{key}", status=204,
                       json={"fields": {"fixVersions": [{"id": "4"}]}})
    released = await api.call("PUT", f"{API}/version/4", json={
        "released": True, "moveUnfixedIssuesTo": f"{BASE}{API}/version/{made['id']}"})
    assert released["released"] and released["releaseDate"]
    fixes = {key: [v["id"] for v in (await api.call("GET", f"{API}/issue/{key}", params={
        "fields": "fixVersions"}))["fields"]["fixVersions"]] for key in (open_one, done_one)}
    assert fixes == {open_one: [made["id"]], done_one: ["4"]}
    await api.call("PUT", f"{API}/version/4", status=400, json={"moveUnfixedIssuesTo": "7"})
    await api.call("DELETE", f"{API}/version/4", status=204,
                   params={"moveFixIssuesTo": made["id"]})
    await api.call("GET", f"{API}/version/4", status=404)
    issue = await api.call("GET", f"{API}/issue/{done_one}", params={"fields": "fixVersions"})
    assert [v["id"] for v in issue["fields"]["fixVersions"]] == [made["id"]]


async def test_a_component_is_created_edited_and_deleted(jira: Any) -> None:
    """P3 Project components: createComponent (name and project required, 400 naming
    them), updateComponent (leadAccountId "" removes the lead), deleteComponent with
    moveIssuesTo."""
    api = await jira(role="Administrators")
    refused = await api.call("POST", f"{API}/component", status=400,
                             json={"project": "SHOP", "name": "Cart"})
    assert refused["errors"] == {"name": "A component with this name already exists in "
                                         "this project."}
    made = await api.call("POST", f"{API}/component", status=201,
                          json={"project": "SHOP", "name": "Search", "description": "Find"})
    assert (made["name"], made["projectId"], made["lead"]) == ("Search", 10000, None)
    edited = await api.call("PUT", f"{API}/component/{made['id']}",
                            json={"name": "Site search"})
    assert edited["name"] == "Site search"
    await api.call("PUT", f"{API}/issue/SHOP-2", status=204,
                   json={"fields": {"components": [{"id": "1"}]}})
    await api.call("DELETE", f"{API}/component/1", status=204,
                   params={"moveIssuesTo": made["id"]})
    issue = await api.call("GET", f"{API}/issue/SHOP-2", params={"fields": "components"})
    assert [c["name"] for c in issue["fields"]["components"]] == ["Site search"]


async def test_a_filter_saves_a_valid_query(jira: Any) -> None:
    """P3 Filters: createFilter (400 "if the request object is invalid", e.g. the name not
    unique), getFilter (400 if not found), getFiltersPaginated (filterName, PageBean),
    getMyFilters, updateFilter, deleteFilter."""
    api = await jira()
    made = await api.call("POST", f"{API}/filter", json={
        "name": "Open checkout bugs", "jql": "project = SHOP AND type = Bug AND "
                                             "resolution IS EMPTY", "favourite": True})
    assert (made["id"], made["favourite"], made["owner"]["accountId"]) == (
        "10000", True, made["owner"]["accountId"])
    assert made["searchUrl"].startswith(f"{BASE}{API}/search/jql?jql=project%20%3D%20SHOP")
    bad = await api.call("POST", f"{API}/filter", status=400,
                         json={"name": "Broken", "jql": "project = = SHOP"})
    assert list(bad["errors"]) == ["jql"]
    await api.call("POST", f"{API}/filter", status=400,
                   json={"name": "open checkout BUGS", "jql": "project = SHOP"})
    found = await api.call("GET", f"{API}/filter/search",
                           params={"filterName": "checkout", "expand": "jql"})
    assert [(f["name"], f["jql"]) for f in found["values"]] == [
        ("Open checkout bugs", made["jql"])] and found["total"] == 1
    edited = await api.call("PUT", f"{API}/filter/{made['id']}", json={"jql": "project = APP"})
    assert (edited["name"], edited["jql"]) == ("Open checkout bugs", "project = APP")
    assert [f["id"] for f in await api.call("GET", f"{API}/filter/my")] == ["10000"]
    await api.call("DELETE", f"{API}/filter/{made['id']}", status=204)
    gone = await api.call("GET", f"{API}/filter/{made['id']}", status=400)
    assert gone["errorMessages"][0].startswith("The selected filter is not available")
