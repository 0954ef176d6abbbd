"""The helpdesk's search, people and help center pages in a real headless Chromium (Debian's,
driven by Playwright) through a real `workgym serve`: the browser enters its episode, finds a
ticket by its order number and a customer by their email, and changes the customer's
identities and profile through the user page; the API, on the same episode, reads each change.
A change the API's rules refuse (an email another user has) says why and changes nothing. The
help center's search finds the policy article and its page shows the article's text."""

from __future__ import annotations

import re
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
TASK = "helpdesk/stale-contact-update"
ORDER_NUMBER_FIELD = 360001


@pytest.fixture(scope="module")
def gym(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served(tmp_path_factory, "people") as url:
        yield url


@pytest.fixture
def episode(gym: str) -> Iterator[Observation]:
    """A fresh episode for each test (one's steps would outrun an episode's budget)."""
    with workgym.connect(gym, TASK, seed=3, faults="none") as run:
        yield run.reset()


@pytest.fixture
def api(episode: Observation) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=episode.apps["helpdesk"],
                      headers={"authorization": f"Bearer {episode.token}"}) as client:
        yield client


@pytest.fixture
def page(browser: Browser, episode: Observation, tmp_path: Path) -> Iterator[Page]:
    with entered(browser, episode, "helpdesk", "/agent/search", tmp_path / "page.png") as page:
        expect(page.locator("h1")).to_have_text("Search")
        yield page


def _get(api: httpx.Client, path: str, **params: Any) -> Any:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _customer(api: httpx.Client, episode: Observation) -> dict[str, Any]:
    email = re.search(r"\(([^()\s]+@[^()\s]+)\)", episode.instruction)
    assert email is not None
    found: dict[str, Any] = _get(api, "/api/v2/users/search", query=email[1])["users"][0]
    return found


def _identities(api: httpx.Client, user_id: int) -> list[tuple[str, bool]]:
    return [(i["value"], i["primary"]) for i in
            _get(api, f"/api/v2/users/{user_id}/identities")["identities"]]


def _open_user(page: Page, user: dict[str, Any]) -> None:
    page.get_by_label("Search", exact=True).fill(user["email"])
    page.get_by_label("Search", exact=True).press("Enter")
    page.get_by_test_id(f"search-user-link-{user['id']}").click()
    expect(page.get_by_test_id("user-name")).to_have_text(user["name"])


def test_the_header_search_finds_a_ticket_by_its_order_number(
        page: Page, api: httpx.Client) -> None:
    ticket = _get(api, "/api/v2/search", query="type:ticket order_number:*")["results"][0]
    number = next(f["value"] for f in ticket["custom_fields"]
                  if f["id"] == ORDER_NUMBER_FIELD)
    same = _get(api, "/api/v2/search/count", query=f"order_number:{number}")["count"]

    page.get_by_label("Search", exact=True).fill(f"order_number:{number}")
    page.get_by_label("Search", exact=True).press("Enter")

    expect(page.get_by_test_id("result-count-ticket")).to_have_text(str(same))
    link = page.get_by_test_id(f"search-ticket-link-{ticket['id']}")
    expect(link).to_have_text(ticket["subject"])
    assert link.evaluate("a => a.href").endswith(f"/apps/helpdesk/agent/tickets/{ticket['id']}")


def test_the_user_page_shows_the_identities_the_api_lists(
        page: Page, api: httpx.Client, episode: Observation) -> None:
    user = _customer(api, episode)

    _open_user(page, user)

    shown = page.get_by_test_id("identities").locator("tbody tr")
    listed = _identities(api, user["id"])
    expect(shown).to_have_count(len(listed))
    values = [(page.locator("[data-testid^=identity-value-]").nth(i).inner_text(),
               page.locator("[data-testid^=identity-primary-]").nth(i).inner_text() == "Primary")
              for i in range(len(listed))]
    assert sorted(values) == sorted(listed)
    expect(page.get_by_test_id("user-email")).to_have_text(user["email"])


def test_an_email_added_and_made_primary_is_the_users_email_in_the_api(
        page: Page, api: httpx.Client, episode: Observation) -> None:
    user = _customer(api, episode)
    _open_user(page, user)
    new = f"renamed.{user['id']}@example.net"

    page.get_by_label("Identity type").select_option(label="Email")
    page.get_by_label("Email or phone number").fill(new)
    page.get_by_role("button", name="Add identity").click()
    expect(page.get_by_role("status")).to_have_text("Identity added.")
    page.get_by_role("button", name=f"Make {new} primary").click()

    expect(page.get_by_role("status")).to_have_text("Primary identity changed.")
    expect(page.get_by_test_id("user-email")).to_have_text(new)
    assert _get(api, f"/api/v2/users/{user['id']}")["user"]["email"] == new
    assert (new, True) in _identities(api, user["id"])
    assert (user["email"], False) in _identities(api, user["id"])


def test_a_profile_saved_through_the_page_is_what_the_api_reads(
        page: Page, api: httpx.Client, episode: Observation) -> None:
    user = _customer(api, episode)
    _open_user(page, user)

    page.get_by_label("Phone", exact=True).fill("+44 7700 900123")
    page.get_by_label("Notes", exact=True).fill("Line one.\nLine two.")
    page.get_by_role("button", name="Save profile").click()

    expect(page.get_by_role("status")).to_have_text("Profile saved.")
    saved = _get(api, f"/api/v2/users/{user['id']}")["user"]
    assert (saved["phone"], saved["notes"], saved["name"]) == (
        "+44 7700 900123", "Line one.\nLine two.", user["name"])
    assert ("+44 7700 900123", True) in _identities(api, user["id"])


def test_an_email_another_user_has_is_refused_and_changes_nothing(
        page: Page, api: httpx.Client, episode: Observation) -> None:
    user = _customer(api, episode)
    other = _get(api, "/api/v2/users/1")["user"]
    before = _identities(api, user["id"])
    _open_user(page, user)

    page.get_by_label("Email or phone number").fill(other["email"].upper())
    page.get_by_role("button", name="Add identity").click()

    expect(page.get_by_role("alert")).to_contain_text(
        f"{other['email'].upper()} is already being used by user 1")
    assert _identities(api, user["id"]) == before


def test_a_malformed_search_says_why(page: Page) -> None:
    page.get_by_label("Search", exact=True).fill("colour:blue")
    with page.expect_response(lambda r: "/agent/search" in r.url) as answer:
        page.get_by_label("Search", exact=True).press("Enter")
    assert answer.value.status == 422
    expect(page.get_by_role("alert")).to_contain_text("unknown search key 'colour'")


def test_the_help_center_search_finds_the_policy_and_shows_its_text(
        page: Page, api: httpx.Client) -> None:
    article = _get(api, "/api/v2/help_center/articles/search",
                   query="refund windows tier")["results"][0]

    page.get_by_role("link", name="Help Center").click()
    page.get_by_label("Search articles").fill("refund windows tier")
    page.get_by_role("button", name="Search articles").click()
    page.get_by_role("link", name=article["title"]).click()

    expect(page.get_by_test_id("article-title")).to_have_text(article["title"])
    first = article["body"].split("\n\n")[0].split()
    expect(page.get_by_test_id("article-body")).to_contain_text(" ".join(first[:8]))


def test_an_organization_found_by_name_lists_the_users_the_api_lists(
        page: Page, api: httpx.Client) -> None:
    organization = _get(api, "/api/v2/organizations")["organizations"][0]
    people = _get(api, f"/api/v2/organizations/{organization['id']}/users",
                  per_page=100)["users"]

    page.get_by_label("Search", exact=True).fill(f'name:"{organization["name"]}"')
    page.get_by_label("Search", exact=True).press("Enter")
    page.get_by_test_id("results-organization").get_by_role(
        "link", name=organization["name"], exact=True).click()

    expect(page.get_by_test_id("organization-name")).to_have_text(organization["name"])
    rows = page.get_by_test_id("organization-users").locator("tbody tr")
    expect(rows).to_have_count(len(people))
    for person in people:
        expect(page.get_by_test_id(f"user-link-{person['id']}")).to_have_text(person["name"])


def test_one_kind_of_result_pages_as_the_api_does(page: Page, api: httpx.Client) -> None:
    query = "type:user role:end-user"
    second = _get(api, "/api/v2/search", query=query, page=2, per_page=25)["results"]
    total = _get(api, "/api/v2/search/count", query=query)["count"]
    assert total > 25

    page.get_by_label("Search", exact=True).fill(query)
    page.get_by_label("Search", exact=True).press("Enter")
    expect(page.get_by_test_id("result-count-user")).to_have_text(str(total))
    page.get_by_role("link", name=f"All {total} users").click()
    page.get_by_role("link", name="Next page").click()

    expect(page.get_by_test_id("page-number")).to_have_text(
        f"Page 2 of {-(-total // 25)}")
    shown = page.get_by_test_id("results-user").locator("tbody tr")
    expect(shown).to_have_count(len(second))
    assert [r.get_attribute("data-testid", timeout=0) for r in shown.all()] == [
        f"search-user-{u['id']}" for u in second]


def test_a_user_deleted_through_the_page_is_inactive_and_can_no_longer_be_changed(
        page: Page, api: httpx.Client) -> None:
    user = _get(api, "/api/v2/users", role="end-user", per_page=100)["users"][-1]
    _open_user(page, user)

    page.get_by_role("button", name="Delete user").click()

    expect(page.get_by_role("status")).to_have_text("User deleted.")
    expect(page.get_by_test_id("user-status")).to_have_text("Deleted")
    assert _get(api, f"/api/v2/users/{user['id']}")["user"]["active"] is False
    page.get_by_label("Notes", exact=True).fill("Changed after the deletion.")
    page.get_by_role("button", name="Save profile").click()
    expect(page.get_by_role("alert")).to_contain_text(f"user {user['id']} is deleted")
    assert _get(api, f"/api/v2/users/{user['id']}")["user"]["notes"] == user["notes"]
