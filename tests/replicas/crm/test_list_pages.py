"""The CRM's list pages, as the proxy forwards a browser's requests: a filter lists exactly
the records HubSpot's search finds with that value, the search box finds a contact by its
email, a column sorts both ways, paging walks on, an archived record leaves the active list
for the archived one, a search longer than any of ours is HubSpot's 400 on the error page;
and a task made on a record's page is completed from that record's page only."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi import FastAPI

from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER

from .conftest import BASE, SECRET, Crm

pytestmark = pytest.mark.anyio
Make = Callable[[], Awaitable[Crm]]


async def _page(crm: Crm, path: str, status: int = 200, **params: Any) -> str:
    """The HTML of a page of the episode (``status``: what it must answer)."""
    answer = await crm.client.get(path, params=params, headers={
        INTERNAL_HEADER: SECRET, EPISODE_HEADER: crm.episode_id, BASE_HEADER: BASE})
    assert answer.status_code == status, answer.text
    return answer.text


def _ids(html: str) -> list[int]:
    """The records a list page shows, in its order."""
    return [int(i) for i in re.findall(r'data-testid="row-(\d+)"', html)]


def _total(html: str) -> int:
    found = re.search(r'data-testid="list-total"[^>]*>(\d+) record', html)
    assert found, html
    return int(found[1])


async def _search(crm: Crm, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = await crm.call("POST", f"/crm/v3/objects/{kind}/search",
                                           json={"limit": 200, **body})
    return found


async def test_a_filter_lists_what_the_search_api_finds(crm: Make) -> None:
    c = await crm()
    html = await _page(c, "/crm/deals", dealstage="closedwon")
    found = await _search(c, "deals", {"filterGroups": [{"filters": [
        {"propertyName": "dealstage", "operator": "EQ", "value": "closedwon"}]}]})
    assert _total(html) == found["total"] > 0
    assert set(_ids(html)) <= {int(r["id"]) for r in found["results"]}


async def test_the_search_box_finds_a_contact_by_email(crm: Make) -> None:
    c = await crm()
    contact = (await c.call("GET", "/crm/v3/objects/contacts", params={"limit": 5}))[
        "results"][3]
    html = await _page(c, "/crm/contacts", q=contact["properties"]["email"])
    assert _ids(html) == [int(contact["id"])]


async def test_a_column_sorts_both_ways_and_paging_walks_on(crm: Make) -> None:
    c = await crm()
    up, down = [_ids(await _page(c, "/crm/companies", sort=s)) for s in ("name", "-name")]
    names = {int(r["id"]): r["properties"]["name"] for r in (await c.call(
        "GET", "/crm/v3/objects/companies", params={"limit": 100}))["results"]}
    assert [names[i] for i in up] == sorted(names[i] for i in up)
    assert [names[i] for i in down] == sorted((names[i] for i in down), reverse=True)
    first, second = [await _page(c, "/crm/contacts", start=s) for s in (0, 25)]
    assert 'data-testid="page-next"' in first
    assert len(_ids(first)) == 25 and not set(_ids(first)) & set(_ids(second))


async def test_an_archived_record_moves_to_the_archived_list(crm: Make) -> None:
    c = await crm()
    deal = min(_ids(await _page(c, "/crm/deals")))
    moved = await c.client.post(f"/crm/deals/{deal}/archive", headers={
        INTERNAL_HEADER: SECRET, EPISODE_HEADER: c.episode_id, BASE_HEADER: BASE})
    assert moved.status_code == 303
    assert deal not in _ids(await _page(c, "/crm/deals"))
    assert deal in _ids(await _page(c, "/crm/deals", archived="true"))
    await c.call("GET", f"/crm/v3/objects/deals/{deal}", status=404)


async def test_a_search_longer_than_any_is_refused(crm: Make) -> None:
    c = await crm()
    html = await _page(c, "/crm/contacts", status=400, q="x" * 201)
    assert 'role="alert"' in html and "q is longer than 200 characters" in html


def test_the_pages_are_outside_the_openapi(app: FastAPI) -> None:
    paths = app.openapi()["paths"]
    assert paths and not [p for p in paths if not p.startswith(("/crm/v3/", "/crm/v4/"))]


async def _post(crm: Crm, path: str, **form: str) -> int:
    answer = await crm.client.post(path, data=form, headers={
        INTERNAL_HEADER: SECRET, EPISODE_HEADER: crm.episode_id, BASE_HEADER: BASE})
    return answer.status_code


async def test_a_task_made_on_a_record_is_completed_there_only(crm: Make) -> None:
    c = await crm()
    one, other = _ids(await _page(c, "/crm/contacts"))[:2]
    assert await _post(c, f"/crm/contacts/{one}/tasks", subject="Send the quote",
                       due="2025-07-01") == 303
    linked = await c.call("GET", f"/crm/v4/objects/contacts/{one}/associations/tasks")
    task = max(int(t["toObjectId"]) for t in linked["results"])
    made = await c.call("GET", f"/crm/v3/objects/tasks/{task}",
                        params={"properties": "hs_task_subject,hs_task_status,hs_timestamp"})
    assert made["properties"]["hs_task_subject"] == "Send the quote"
    assert made["properties"]["hs_task_status"] == "NOT_STARTED"
    assert made["properties"]["hs_timestamp"].startswith("2025-07-01T00:00:00")

    assert await _post(c, f"/crm/contacts/{other}/tasks/{task}/complete") == 404
    kept = await c.call("GET", f"/crm/v3/objects/tasks/{task}",
                        params={"properties": "hs_task_status"})
    assert kept["properties"]["hs_task_status"] == "NOT_STARTED"
    assert await _post(c, f"/crm/contacts/{one}/tasks/{task}/complete") == 303
    done = await c.call("GET", f"/crm/v3/objects/tasks/{task}",
                        params={"properties": "hs_task_status"})
    assert done["properties"]["hs_task_status"] == "COMPLETED"
