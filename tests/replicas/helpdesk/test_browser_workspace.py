"""The agent workspace in a real headless Chromium (Debian's, driven by Playwright) through a
real `workgym serve`: the browser enters its episode, works the team's views and tickets
(the reply editor, internal notes, a macro previewed then applied, a merge), and the API, on
the same episode, sees each change as its own update would have made it (the comment's
public flag, the status, the audit, via web). A refused update shows Zendesk's reason and
changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER, entered, served
from workgym.sdk import Observation

pytestmark = BROWSER
TASK = "helpdesk/merge-duplicate-web-tickets"
ADMIN_TASK = "helpdesk/sla-breach-reassign-inactive"  # a ticket held by a deactivated agent
ALL_UNSOLVED = 3  # the world's view "All unsolved tickets"


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory, "workspace") as url:
        yield url


@pytest.fixture(scope="module")
def episode(gym: str) -> Iterator[Observation]:
    with workgym.connect(gym, TASK, seed=0, faults="none") as run:
        yield run.reset()


@pytest.fixture(scope="module")
def admin_episode(gym: str) -> Iterator[Observation]:
    """Another episode, for play mode and the macros' admin pages (each episode's step
    budget its own)."""
    with workgym.connect(gym, ADMIN_TASK, seed=0, faults="none") as run:
        yield run.reset()


def _client(episode: Observation) -> httpx.Client:
    return httpx.Client(base_url=episode.apps["helpdesk"], timeout=30,
                        headers={"Authorization": f"Bearer {episode.token}"})


@pytest.fixture(scope="module")
def api(episode: Observation) -> Iterator[httpx.Client]:
    with _client(episode) as client:
        yield client


@pytest.fixture(scope="module")
def admin_api(admin_episode: Observation) -> Iterator[httpx.Client]:
    with _client(admin_episode) as client:
        yield client


def _page(browser: Browser, episode: Observation, shot: Path) -> Iterator[Page]:
    with entered(browser, episode, "helpdesk", "/agent/dashboard", shot) as page:
        expect(page.locator("h1")).to_have_text("Views")
        yield page


@pytest.fixture
def page(browser: Browser, episode: Observation, tmp_path: Path) -> Iterator[Page]:
    yield from _page(browser, episode, tmp_path / "workspace.png")


@pytest.fixture
def admin_page(browser: Browser, admin_episode: Observation, tmp_path: Path) -> Iterator[Page]:
    yield from _page(browser, admin_episode, tmp_path / "macros.png")


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


def test_a_filtered_view_played_ticket_after_ticket(
        admin_page: Page, admin_api: httpx.Client) -> None:
    page, api = admin_page, admin_api
    every = _get(api, f"/api/v2/views/{ALL_UNSOLVED}/tickets", per_page=100)["tickets"]
    group = next(g for g in _get(api, "/api/v2/groups")["groups"] if g["name"] == "Billing")
    billing = [t["id"] for t in every if t["group_id"] == group["id"]][:2]
    assert len(billing) == 2
    page.get_by_role("link", name="All unsolved tickets").click()

    page.get_by_label("Group").select_option("Billing")
    page.get_by_role("button", name="Filter").click()
    for row in page.locator("tbody tr[data-testid^=ticket-row-]").all()[:5]:
        ticket_id = int(str(row.get_attribute("data-testid")).rsplit("-", 1)[1])
        assert _get(api, f"/api/v2/tickets/{ticket_id}")["ticket"]["group_id"] == group["id"]
    page.get_by_role("link", name="Play").click()
    expect(page.get_by_test_id("ticket-id")).to_have_text(f"#{billing[0]}")
    page.get_by_label("Internal note").check()
    page.get_by_label("Comment").fill("Looked at it in play mode.")
    status = page.get_by_test_id("ticket-status").inner_text()
    page.get_by_role("button", name=f"Submit as {status}").click()

    expect(page.get_by_test_id("ticket-id")).to_have_text(f"#{billing[1]}")
    expect(page.get_by_role("status")).to_have_text("Ticket updated.")
    last = _get(api, f"/api/v2/tickets/{billing[0]}/comments")["comments"][-1]
    assert (last["body"], last["public"]) == ("Looked at it in play mode.", False)
    page.get_by_role("link", name="Skip this ticket").click()
    expect(page.get_by_test_id("ticket-id")).not_to_have_text(f"#{billing[1]}")


def _held_by_a_deactivated_agent(api: httpx.Client) -> tuple[dict[str, Any], str]:
    """An unsolved ticket still assigned to a deactivated agent, and that agent's name."""
    agents = _get(api, "/api/v2/users", role="agent", per_page=100)["users"]
    gone = {a["id"]: a["name"] for a in agents if not a["active"]}
    every = _get(api, f"/api/v2/views/{ALL_UNSOLVED}/tickets", per_page=100)["tickets"]
    held = next(t for t in every if t["assignee_id"] in gone)
    return held, gone[held["assignee_id"]]


def test_a_view_says_which_tickets_a_deactivated_agent_still_holds(
        admin_page: Page, admin_episode: Observation, admin_api: httpx.Client) -> None:
    held, name = _held_by_a_deactivated_agent(admin_api)
    requester = _get(admin_api, f"/api/v2/users/{held['requester_id']}")["user"]["email"]

    admin_page.goto(f"{admin_episode.apps['helpdesk']}/agent/filters/{ALL_UNSOLVED}"
                    f"?requester={requester}")

    expect(admin_page.get_by_test_id(f"ticket-assignee-{held['id']}")).to_have_text(
        f"{name} (deactivated)")


def test_a_note_on_a_ticket_of_a_deactivated_agent_keeps_its_assignee(
        admin_page: Page, admin_episode: Observation, admin_api: httpx.Client) -> None:
    page, api = admin_page, admin_api
    held, name = _held_by_a_deactivated_agent(api)
    _open_ticket(page, admin_episode, held["id"])
    expect(page.get_by_label("Assignee")).to_have_value(str(held["assignee_id"]))
    expect(page.get_by_test_id("ticket-assignee-name")).to_have_text(name)

    page.get_by_label("Internal note").check()
    page.get_by_label("Comment").fill("Their agent has left; flagging it.")
    status = page.get_by_test_id("ticket-status").inner_text()
    page.get_by_role("button", name=f"Submit as {status}").click()

    expect(page.get_by_role("status")).to_have_text("Ticket updated.")
    after = _get(api, f"/api/v2/tickets/{held['id']}")["ticket"]
    assert after["assignee_id"] == held["assignee_id"]
    assert _get(api, f"/api/v2/tickets/{held['id']}/comments")["comments"][-1]["public"] is False


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


def test_a_macro_created_on_its_page_is_the_apis(admin_page: Page, admin_api: httpx.Client) -> None:
    admin_page.get_by_role("link", name="Macros", exact=True).click()
    admin_page.get_by_role("link", name="Create macro").click()
    admin_page.get_by_label("Macro name").fill("Warranty steps")
    admin_page.get_by_label("Comment text").fill("Please send us a photo of the serial number.")
    admin_page.get_by_label("Comment mode").select_option("Internal note")
    admin_page.get_by_label("Set status").select_option("pending")
    admin_page.get_by_label("Add tags").fill("warranty")
    admin_page.get_by_role("button", name="Create").click()

    expect(admin_page.get_by_role("status")).to_have_text("Macro created.")
    made = next(m for m in _get(admin_api, "/api/v2/macros")["macros"]
                if m["title"] == "Warranty steps")
    assert made["actions"] == [
        {"field": "comment_value", "value": "Please send us a photo of the serial number."},
        {"field": "comment_mode_is_public", "value": "false"},
        {"field": "status", "value": "pending"},
        {"field": "current_tags", "value": "warranty"}]


def test_a_macro_without_a_title_is_refused(admin_page: Page, admin_api: httpx.Client) -> None:
    before = _get(admin_api, "/api/v2/macros")["count"]
    admin_page.get_by_role("link", name="Macros", exact=True).click()
    admin_page.get_by_role("link", name="Create macro").click()
    admin_page.get_by_label("Comment text").fill("Anything.")
    admin_page.get_by_role("button", name="Create").click()

    expect(admin_page.get_by_role("alert")).to_have_text(
        "title: String should have at least 1 character")
    assert _get(admin_api, "/api/v2/macros")["count"] == before
