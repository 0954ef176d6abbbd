"""The Agile API's boards and issue lists over HTTP, as Jira Software serves them: a board and
its configuration (three columns, To Do / In Progress / Done, holding every status once, each
in its category's column), the board's issues (every issue of its project; a JQL filter
narrows; paging with startAt reaches each issue exactly once), the backlog (unfinished issues
in no active or future sprint; none on a kanban board), a sprint's issues, and Jira's 404 for
an unknown board."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from .conftest import BASE, Jira

pytestmark = pytest.mark.anyio
AGILE = "/rest/agile/1.0"
SHOP_BOARD, PLAT_BOARD = 1, 3  # SHOP's scrum board, PLAT's kanban board (world.yaml)


@pytest.fixture
async def api(jira: Callable[..., Awaitable[Jira]]) -> Jira:
    """A fresh episode of world 1."""
    return await jira()


def keys(db: sqlite3.Connection, where: str, params: tuple[Any, ...] = ()) -> set[str]:
    return {r["key"] for r in db.execute(f"SELECT key FROM issues WHERE {where}", params)}


async def all_pages(api: Jira, path: str, size: int, **params: Any) -> list[dict[str, Any]]:
    """Every issue of an Agile list, a page of ``size`` at a time: startAt moves on by the
    page until ``total`` is reached (the old search shape these lists answer in)."""
    found: list[dict[str, Any]] = []
    while True:
        page = await api.call("GET", path, params={**params, "startAt": len(found),
                                                   "maxResults": size})
        assert (page["startAt"], page["maxResults"]) == (len(found), size)
        found += page["issues"]
        if len(found) >= page["total"]:
            assert len(found) == page["total"]
            return found
        assert len(page["issues"]) == size


async def test_a_board_and_its_columns(api: Jira) -> None:
    board = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}")
    assert board == {"id": 1, "self": f"{BASE}{AGILE}/board/1", "name": "SHOP board",
                     "type": "scrum", "location": {"projectId": 10000, "projectKey": "SHOP",
                                                   "projectName": "Storefront & Checkout"}}
    assert (await api.call("GET", f"{AGILE}/board/{PLAT_BOARD}"))["type"] == "kanban"
    config = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/configuration")
    columns = config["columnConfig"]["columns"]
    assert [c["name"] for c in columns] == ["To Do", "In Progress", "Done"]
    statuses = {s["id"]: s for s in await api.call("GET", "/rest/api/2/status")}
    shown = [s["id"] for c in columns for s in c["statuses"]]
    assert sorted(shown) == sorted(statuses)  # every status, exactly once
    for column in columns:  # each in the column of its category
        assert {statuses[s["id"]]["statusCategory"]["name"] for s in column["statuses"]} == {
            column["name"]}
        assert all(s["self"] == f"{BASE}/rest/api/2/status/{s['id']}"
                   for s in column["statuses"])


async def test_board_issues_are_the_projects_and_jql_narrows_them(api: Jira) -> None:
    db = await api.db()
    shop = keys(db, "project_id = 10000")
    first = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue",
                           params={"fields": "issuetype"})
    assert (first["total"], first["startAt"], first["maxResults"]) == (len(shop), 0, 50)
    assert len(first["issues"]) == 50
    bugs = keys(db, "project_id = 10000 AND issue_type = 'Bug'")
    assert 0 < len(bugs) < len(shop)
    narrowed = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue", params={
        "jql": "issuetype = Bug", "fields": "issuetype", "maxResults": 50})
    assert narrowed["total"] == len(bugs)
    assert {i["fields"]["issuetype"]["name"] for i in narrowed["issues"]} == {"Bug"}
    # The JQL never reaches past the board's project.
    other = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue",
                           params={"jql": "project = APP"})
    assert (other["total"], other["issues"]) == (0, [])
    bad = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue",
                         params={"jql": "projekt = SHOP"}, status=400)
    assert bad["errorMessages"] and bad["errors"] == {}


async def test_paging_reaches_every_issue_once(api: Jira) -> None:
    shop = keys(await api.db(), "project_id = 10000")
    found = await all_pages(api, f"{AGILE}/board/{SHOP_BOARD}/issue", 40, fields="summary")
    listed = [i["key"] for i in found]
    assert len(listed) == len(set(listed)) and set(listed) == shop
    assert set(found[0]["fields"]) == {"summary"}
    capped = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue",
                            params={"maxResults": 1000, "fields": "id"})
    assert (capped["maxResults"], len(capped["issues"])) == (50, 50)
    past = await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/issue",
                          params={"startAt": len(shop), "fields": "id"})
    assert (past["issues"], past["total"]) == ([], len(shop))


async def test_the_backlog_holds_unfinished_issues_outside_open_sprints(api: Jira) -> None:
    db = await api.db()
    categories = {s["name"]: s["statusCategory"]["key"]
                  for s in await api.call("GET", "/rest/api/2/status")}
    done = sorted(n for n, c in categories.items() if c == "done")
    expected = keys(db, "project_id = 10000 AND coalesce(sprint_id IN (SELECT id FROM "
                          "sprints WHERE state IN ('active', 'future')), 0) = 0 AND status "
                          f"NOT IN ({','.join('?' * len(done))})", tuple(done))
    found = await all_pages(api, f"{AGILE}/board/{SHOP_BOARD}/backlog", 10,
                            fields="status,customfield_10020")
    assert expected and {i["key"] for i in found} == expected
    for issue in found:
        assert categories[issue["fields"]["status"]["name"]] != "done"
        assert all(s["state"] == "closed" for s in issue["fields"]["customfield_10020"] or [])
    in_sprints = keys(db, "project_id = 10000 AND sprint_id IN (SELECT id FROM sprints "
                            "WHERE state IN ('active', 'future'))")
    assert in_sprints and not in_sprints & {i["key"] for i in found}
    kanban = await api.call("GET", f"{AGILE}/board/{PLAT_BOARD}/backlog", status=400)
    assert kanban["errorMessages"] and kanban["errors"] == {}


async def test_a_sprints_issues_all_carry_it(api: Jira) -> None:
    active = (await api.call("GET", f"{AGILE}/board/{SHOP_BOARD}/sprint",
                             params={"state": "active"}))["values"]
    assert [s["state"] for s in active] == ["active"]
    sprint = active[0]["id"]
    expected = keys(await api.db(), "sprint_id = ?", (sprint,))
    page = await api.call("GET", f"{AGILE}/sprint/{sprint}/issue",
                          params={"fields": "customfield_10020,status"})
    assert expected and {i["key"] for i in page["issues"]} == expected
    assert page["total"] == len(expected)
    assert {s["id"] for i in page["issues"] for s in i["fields"]["customfield_10020"]} == {
        sprint}
    done = await api.call("GET", f"{AGILE}/sprint/{sprint}/issue",
                          params={"jql": "statusCategory = Done", "fields": "status"})
    assert done["issues"] and {i["key"] for i in done["issues"]} < expected
    assert all(i["fields"]["status"]["statusCategory"]["key"] == "done"
               for i in done["issues"])


async def test_unknown_boards_and_sprints_are_404(api: Jira) -> None:
    for path in ("", "/configuration", "/issue", "/backlog", "/sprint"):
        body = await api.call("GET", f"{AGILE}/board/999{path}", status=404)
        assert body["errors"] == {} and len(body["errorMessages"]) == 1
    body = await api.call("GET", f"{AGILE}/sprint/999/issue", status=404)
    assert body["errors"] == {} and body["errorMessages"]
