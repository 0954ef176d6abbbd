"""The agent workspace in a real headless Chromium (Debian's, driven by Playwright) through a
real `workgym serve`: the browser enters its episode, works the team's views and tickets
(the reply editor, internal notes, a macro previewed then applied, a merge), and the API, on
the same episode, sees each change as its own update would have made it (the comment's
public flag, the status, the audit, via web). A refused update shows Zendesk's reason and
changes nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER
from workgym.processes import serving
from workgym.sdk import Observation
from workgym_proxy.browser import TOKEN_PARAM

pytestmark = BROWSER
TASK = "helpdesk/merge-duplicate-web-tickets"
ALL_UNSOLVED = 3  # the world's view "All unsolved tickets"


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observation]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("workspace"))}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=0, faults="none") as run:
        yield run.reset()


@pytest.fixture(scope="module")
def api(episode: Observation) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=episode.apps["helpdesk"], timeout=30,
                      headers={"Authorization": f"Bearer {episode.token}"}) as client:
        yield client


@pytest.fixture
def page(browser: Browser, episode: Observation, tmp_path: Path,
         capsys: pytest.CaptureFixture[str]) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.goto(f"{episode.apps['helpdesk']}/agent/dashboard?{TOKEN_PARAM}={episode.token}")
    expect(page.locator("h1")).to_have_text("Views")
    yield page
    page.screenshot(path=tmp_path / "workspace.png", full_page=True)
    with capsys.disabled():
        print(f"\nthe workspace after the test: {tmp_path / 'workspace.png'}")
    context.close()


def _get(api: httpx.Client, path: str, **params: Any) -> Any:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _unsolved(api: httpx.Client, **where: Any) -> list[dict[str, Any]]:
    """The "All unsolved tickets" view's tickets that match ``where``."""
    found = _get(api, f"/api/v2/views/{ALL_UNSOLVED}/tickets", per_page=100)["tickets"]
    return [t for t in found if all(t[k] == v for k, v in where.items())]


def _view(api: httpx.Client, view_id: int) -> list[int]:
    """The ids of every ticket the view shows, page after page."""
    ids: list[int] = []
    while len(ids) % 100 == 0:
        found = _get(api, f"/api/v2/views/{view_id}/tickets", per_page=100,
                     page=len(ids) // 100 + 1)["tickets"]
        ids += [t["id"] for t in found]
        if not found:
            break
    return ids


def _open_ticket(page: Page, episode: Observation, ticket_id: int) -> None:
    page.goto(f"{episode.apps['helpdesk']}/agent/tickets/{ticket_id}")
    expect(page.get_by_test_id("ticket-id")).to_have_text(f"#{ticket_id}")


def test_the_views_and_their_tickets_are_the_apis(page: Page, api: httpx.Client) -> None:
    for view in _get(api, "/api/v2/views/active")["views"]:
        count = _get(api, f"/api/v2/views/{view['id']}/count")["view_count"]["value"]
        expect(page.get_by_test_id(f"view-count-{view['id']}")).to_have_text(str(count))

    page.get_by_role("link", name="All unsolved tickets").click()

    listed = _get(api, f"/api/v2/views/{ALL_UNSOLVED}/tickets", per_page=30)["tickets"]
    rows = page.locator("tbody tr[data-testid^=ticket-row-]")
    assert [r.get_attribute("data-testid") for r in rows.all()] == [
        f"ticket-row-{t['id']}" for t in listed]
    every = _view(api, ALL_UNSOLVED)
    page.get_by_test_id("sort-id").click()
    expect(rows.first).to_have_attribute("data-testid", f"ticket-row-{min(every)}")
    page.get_by_test_id("sort-id").click()  # again: descending
    expect(rows.first).to_have_attribute("data-testid", f"ticket-row-{max(every)}")
    expect(page.get_by_test_id("view-total")).to_have_text(str(len(every)))


def test_a_reply_submitted_as_solved_is_the_apis_update(
        page: Page, episode: Observation, api: httpx.Client) -> None:
    ticket = _unsolved(api, assignee_id=None)[0]
    _open_ticket(page, episode, ticket["id"])

    page.get_by_label("Assignee").select_option(label="AI Agent")
    page.get_by_label("Comment").fill("We sent a replacement today.")
    page.get_by_role("button", name="Submit as Solved").click()

    expect(page.get_by_role("status")).to_have_text("Ticket updated.")
    expect(page.get_by_test_id("ticket-status")).to_have_text("Solved")
    after = _get(api, f"/api/v2/tickets/{ticket['id']}")["ticket"]
    assert (after["status"], after["assignee_id"]) == ("solved", 1)
    last = _get(api, f"/api/v2/tickets/{ticket['id']}/comments")["comments"][-1]
    assert (last["body"], last["public"], last["author_id"]) == (
        "We sent a replacement today.", True, 1)
    audit = _get(api, f"/api/v2/tickets/{ticket['id']}/audits")["audits"][-1]
    assert audit["via"]["channel"] == "web"
    events = {(e["type"], e.get("field_name")): e for e in audit["events"]}
    assert events[("Comment", None)]["public"] is True
    assert events[("Change", "status")]["value"] == "solved"


def test_an_internal_note_is_not_public(page: Page, episode: Observation,
                                        api: httpx.Client) -> None:
    ticket = _unsolved(api, status="open")[0]
    _open_ticket(page, episode, ticket["id"])

    page.get_by_label("Internal note").check()
    page.get_by_label("Comment").fill("Checked the warehouse log: shipped on Monday.")
    page.get_by_role("button", name="Submit as Open").click()

    expect(page.get_by_role("status")).to_have_text("Ticket updated.")
    note = page.locator("article.comment").last
    expect(note).to_contain_text("Internal note")
    last = _get(api, f"/api/v2/tickets/{ticket['id']}/comments")["comments"][-1]
    assert (last["body"], last["public"]) == (
        "Checked the warehouse log: shipped on Monday.", False)
    assert _get(api, f"/api/v2/tickets/{ticket['id']}")["ticket"]["status"] == "open"


def test_a_macro_previewed_then_applied_then_saved(page: Page, episode: Observation,
                                                  api: httpx.Client) -> None:
    ticket = _unsolved(api, status="open")[-1]
    macro = next(m for m in _get(api, "/api/v2/macros")["macros"]
                 if m["title"] == "Ask for the order number")
    preview = _get(api, f"/api/v2/tickets/{ticket['id']}/macros/{macro['id']}/apply")
    reply = preview["result"]["ticket"]["comment"]["body"]
    _open_ticket(page, episode, ticket["id"])

    page.get_by_label("Choose a macro").select_option(label="Ask for the order number")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_test_id("macro-preview-panel")).to_contain_text(reply)
    expect(page.get_by_test_id("macro-change-status")).to_have_text("set status to Pending")
    assert _get(api, f"/api/v2/tickets/{ticket['id']}")["ticket"]["status"] == "open"

    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_label("Comment")).to_have_value(reply)
    expect(page.get_by_label("Public reply")).to_be_checked()
    page.get_by_role("button", name="Submit as Pending").click()

    expect(page.get_by_role("status")).to_have_text("Ticket updated.")
    assert _get(api, f"/api/v2/tickets/{ticket['id']}")["ticket"]["status"] == "pending"
    last = _get(api, f"/api/v2/tickets/{ticket['id']}/comments")["comments"][-1]
    assert (last["body"], last["public"]) == (reply, True)


def test_a_merge_closes_the_ticket_into_the_other(page: Page, episode: Observation,
                                                  api: httpx.Client) -> None:
    newest = _get(api, "/api/v2/tickets", sort_by="id", sort_order="desc", per_page=10)
    web = [t for t in newest["tickets"] if t["via"]["channel"] == "web"
           and t["status"] in ("new", "open") and t["subject"] != "Question"]
    source, target = web[0], next(t for t in web[1:]
                                  if t["requester_id"] == web[0]["requester_id"])
    _open_ticket(page, episode, source["id"])

    page.get_by_role("link", name="Merge into another ticket").click()
    page.get_by_label("Ticket ID to merge into").fill(str(target["id"]))
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_label(f"Comment on #{source['id']} (the ticket closed)")).to_have_value(
        f"This request was closed and merged into request #{target['id']} "
        f"\"{target['subject']}\".")
    page.get_by_role("button", name="Confirm and merge").click()

    expect(page.get_by_role("status")).to_have_text("Tickets merged.")
    expect(page.get_by_test_id("ticket-id")).to_have_text(f"#{target['id']}")
    closed = _get(api, f"/api/v2/tickets/{source['id']}")["ticket"]
    assert closed["status"] == "closed" and "closed_by_merge" in closed["tags"]
    kept = _get(api, f"/api/v2/tickets/{target['id']}/comments")["comments"][-1]
    assert kept["public"] is False and f"#{source['id']}" in kept["body"]


def test_a_refused_update_says_why_and_changes_nothing(page: Page, episode: Observation,
                                                       api: httpx.Client) -> None:
    ticket = _unsolved(api, assignee_id=None)[-1]
    comments = _get(api, f"/api/v2/tickets/{ticket['id']}/comments")["count"]
    audits = _get(api, f"/api/v2/tickets/{ticket['id']}/audits")["count"]
    _open_ticket(page, episode, ticket["id"])

    page.get_by_label("Priority").select_option("urgent")
    page.get_by_label("Comment").fill("Solved it for you.")
    page.get_by_role("button", name="Submit as Solved").click()

    expect(page.get_by_role("alert")).to_have_text(
        "Assignee: is required when solving a ticket")
    after = _get(api, f"/api/v2/tickets/{ticket['id']}")["ticket"]
    assert (after["status"], after["priority"]) == (ticket["status"], ticket["priority"])
    assert _get(api, f"/api/v2/tickets/{ticket['id']}/comments")["count"] == comments
    assert _get(api, f"/api/v2/tickets/{ticket['id']}/audits")["count"] == audits
