"""The workspace's bulk actions in a real headless Chromium (Debian's, driven by Playwright)
through a real `workgym serve`: tickets selected in a view are edited alike as ONE job (the
API's update_many: each ticket's audit, via web; the job's page tells each ticket's result),
or merged into another ticket in one merge (one job, one comment on the ticket kept). A bulk
action that names nothing to do says why and changes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER, entered, served
from workgym.sdk import Observation

pytestmark = BROWSER
TASK = "helpdesk/merge-duplicate-web-tickets"  # a customer's three web submissions, and one more
ALL_UNSOLVED = 3  # the world's view "All unsolved tickets"


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory, "bulk") as url:
        yield url


@pytest.fixture
def episode(gym: str) -> Iterator[Observation]:
    """A fresh episode for each test (each changes the customer's tickets)."""
    with workgym.connect(gym, TASK, seed=0, faults="none") as run:
        yield run.reset()


@pytest.fixture
def api(episode: Observation) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=episode.apps["helpdesk"], timeout=30,
                      headers={"Authorization": f"Bearer {episode.token}"}) as client:
        yield client


@pytest.fixture
def page(browser: Browser, episode: Observation) -> Iterator[Page]:
    with entered(browser, episode, "helpdesk", "/agent/dashboard") as page:
        yield page


def _get(api: httpx.Client, path: str, **params: Any) -> Any:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _submissions(api: httpx.Client) -> tuple[str, list[dict[str, Any]]]:
    """The customer's email and their unsolved web tickets about the product, oldest first."""
    newest = _get(api, "/api/v2/tickets", sort_by="id", sort_order="desc", per_page=10)
    web = [t for t in newest["tickets"] if t["via"]["channel"] == "web"
           and t["status"] in ("new", "open") and t["subject"] != "Question"]
    mine = sorted((t for t in web if t["requester_id"] == web[0]["requester_id"]),
                  key=lambda t: t["created_at"])
    email = _get(api, f"/api/v2/users/{web[0]['requester_id']}")["user"]["email"]
    return email, mine


def _select(page: Page, episode: Observation, email: str, ids: list[int]) -> None:
    """The unsolved view, filtered to the customer, with ``ids`` selected."""
    page.goto(f"{episode.apps['helpdesk']}/agent/filters/{ALL_UNSOLVED}?requester={email}")
    for ticket_id in ids:
        page.get_by_label(f"#{ticket_id}", exact=True).check()


def test_tickets_selected_in_a_view_are_edited_alike_in_one_job(
        page: Page, episode: Observation, api: httpx.Client) -> None:
    email, tickets = _submissions(api)
    chosen = [t["id"] for t in tickets[1:]]
    _select(page, episode, email, chosen)

    page.get_by_role("button", name="Edit selected tickets").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Edit {len(chosen)} tickets")
    page.get_by_label("Status").select_option(label="Pending")
    page.get_by_label("Assignee").select_option(label="Assign to me")
    page.get_by_label("Add tags").fill("duplicate web_form")
    page.get_by_role("button", name=f"Update {len(chosen)} tickets").click()

    expect(page.get_by_test_id("job-status")).to_have_text("completed")
    for ticket_id in chosen:
        expect(page.get_by_test_id(f"job-result-status-{ticket_id}")).to_have_text("Updated")
    job = _get(api, f"/api/v2/job_statuses/{page.url.rsplit('/', 1)[1]}")["job_status"]
    assert job["job_type"] == "update_many" and job["total"] == len(chosen)
    for ticket_id in chosen:
        after = _get(api, f"/api/v2/tickets/{ticket_id}")["ticket"]
        assert (after["status"], after["assignee_id"]) == ("pending", 1)
        assert {"duplicate", "web_form"} <= set(after["tags"])
        audit = _get(api, f"/api/v2/tickets/{ticket_id}/audits")["audits"][-1]
        assert audit["via"]["channel"] == "web"
    kept = _get(api, f"/api/v2/tickets/{tickets[0]['id']}")["ticket"]
    assert (kept["status"], kept["tags"]) == (tickets[0]["status"], tickets[0]["tags"])


def test_tickets_selected_in_a_view_are_merged_into_another_in_one_merge(
        page: Page, episode: Observation, api: httpx.Client) -> None:
    email, tickets = _submissions(api)
    first, later = tickets[0], [t["id"] for t in tickets[1:]]
    comments_before = len(_get(api, f"/api/v2/tickets/{first['id']}/comments")["comments"])
    _select(page, episode, email, later)

    page.get_by_role("button", name="Merge selected tickets").click()
    page.get_by_label("Ticket ID to merge into").fill(str(first["id"]))
    page.get_by_role("button", name="Next").click()
    closing = re.compile(r"^Comment on #\d+, #\d+ \(the tickets closed\)$")  # in the view's order
    expect(page.get_by_label(closing)).to_have_value(
        f"This request was closed and merged into request #{first['id']} "
        f"\"{first['subject']}\".")
    page.get_by_role("button", name="Confirm and merge").click()

    expect(page.get_by_role("status")).to_have_text("Tickets merged.")
    expect(page.get_by_test_id("ticket-id")).to_have_text(f"#{first['id']}")
    for ticket_id in later:
        closed = _get(api, f"/api/v2/tickets/{ticket_id}")["ticket"]
        assert closed["status"] == "closed" and "closed_by_merge" in closed["tags"]
    comments = _get(api, f"/api/v2/tickets/{first['id']}/comments")["comments"]
    assert len(comments) == comments_before + 1  # one merge: one comment naming both
    assert all(f"#{i}" in comments[-1]["body"] for i in later)


@pytest.mark.parametrize(("path", "form", "says"), [
    ("/agent/tickets/bulk", {"status": "", "assignee_id": "", "additional_tags": " "},
     "choose a status, an assignee or tags to add"),
    ("/agent/tickets/bulk", {"ids": "", "status": "solved"}, "ids"),
    ("/agent/tickets/bulk/merge", {"ids": "x,1", "target": "1"}, "ids"),
    ("/agent/tickets/bulk/merge", {"target": ""}, "name the ticket to merge into"),
])
def test_a_bulk_action_with_nothing_to_do_says_why_and_changes_nothing(
        page: Page, episode: Observation, api: httpx.Client, path: str,
        form: dict[str, str], says: str) -> None:
    _, tickets = _submissions(api)
    ids = ",".join(str(t["id"]) for t in tickets[1:])
    before = [_get(api, f"/api/v2/tickets/{t['id']}")["ticket"] for t in tickets]

    answer = page.request.post(f"{episode.apps['helpdesk']}{path}",
                               form={"ids": ids, **form})

    assert 400 <= answer.status < 500 and says in answer.text(), answer.text()[-600:]
    assert [_get(api, f"/api/v2/tickets/{t['id']}")["ticket"] for t in tickets] == before


def test_a_bulk_page_of_no_selected_ticket_and_an_unknown_job_are_refused(
        page: Page, episode: Observation) -> None:
    app = episode.apps["helpdesk"]

    nothing = page.goto(f"{app}/agent/tickets/bulk")
    assert nothing is not None and nothing.status == 422
    expect(page.get_by_role("alert")).to_contain_text("select the tickets first")
    unknown = page.goto(f"{app}/agent/jobs/V3-nothing")
    assert unknown is not None and unknown.status == 404
    expect(page.get_by_role("alert")).to_contain_text("job status V3-nothing does not exist")
