"""The CRM's generated pages in a real headless Chromium (Debian's, driven by Playwright)
through a real `workgym serve`: the browser finds a contact by search, opens it, changes a
property, adds a note, and moves a deal to another stage, each change read back through
HubSpot's API on the same episode. A write the API refuses (another contact's email) shows
HubSpot's message as an alert and changes nothing."""

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
ROOT = Path(__file__).resolve().parents[3]
TASK = "crm/" + min((p.stem for p in ROOT.glob("tasks/crm/*.yaml")), default="(none)")


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observation]:
    with (served(tmp_path_factory, "crm-pages") as url,
          workgym.connect(url, TASK, seed=3, faults="none") as run):
        yield run.reset()


@pytest.fixture(scope="module")
def api(episode: Observation) -> Iterator[httpx.Client]:
    """HubSpot's API of the episode's CRM."""
    with httpx.Client(base_url=episode.apps["crm"],
                      headers={"authorization": f"Bearer {episode.token}"}) as client:
        yield client


def _get(api: httpx.Client, path: str, **params: Any) -> dict[str, Any]:
    answer = api.get(path, params=params)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _contacts(api: httpx.Client) -> list[dict[str, Any]]:
    """The first page of contacts that have a name and an email."""
    listed = _get(api, "/crm/v3/objects/contacts", limit=50,
                  properties="email,firstname,lastname,jobtitle")["results"]
    return [c for c in listed if c["properties"]["email"] and c["properties"]["lastname"]]


@pytest.fixture
def page(browser: Browser, episode: Observation, tmp_path: Path) -> Iterator[Page]:
    with entered(browser, episode, "crm", "/crm/contacts", tmp_path / "crm.png") as page:
        expect(page.locator("h1")).to_have_text("Contacts")
        yield page


def test_a_contact_found_by_search_is_changed_and_noted(page: Page,
                                                        api: httpx.Client) -> None:
    contact = _contacts(api)[0]
    email, cid = contact["properties"]["email"], contact["id"]

    page.get_by_label("Search").fill(email)
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_test_id("list-total")).to_contain_text("1 record")
    page.get_by_test_id(f"record-link-{cid}").click()
    name = f"{contact['properties']['firstname'] or ''} {contact['properties']['lastname']}"
    expect(page.locator("h1")).to_have_text(name.strip())

    page.get_by_label("Job Title").fill("Head of Procurement")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("notice")).to_have_text("Saved.")
    expect(page.get_by_test_id("value-jobtitle")).to_have_text("Head of Procurement")
    shown = _get(api, f"/crm/v3/objects/contacts/{cid}", properties="jobtitle,email")
    assert shown["properties"]["jobtitle"] == "Head of Procurement"
    assert shown["properties"]["email"] == email  # the fields left as they were: not sent

    page.get_by_label("New note").fill("Called: prefers email after 4pm.")
    page.get_by_role("button", name="Add note").click()
    expect(page.get_by_test_id("notice")).to_have_text("Note added.")
    linked = _get(api, f"/crm/v4/objects/contacts/{cid}/associations/notes")["results"]
    bodies = [_get(api, f"/crm/v3/objects/notes/{n['toObjectId']}",
                   properties="hs_note_body")["properties"]["hs_note_body"] for n in linked]
    assert "Called: prefers email after 4pm." in bodies


def test_a_deal_moved_to_another_stage(page: Page, episode: Observation,
                                       api: httpx.Client) -> None:
    deals = _get(api, "/crm/v3/objects/deals", limit=50,
                 properties="dealstage,pipeline")["results"]
    deal = next(d for d in deals if d["properties"]["dealstage"] != "contractsent")
    page.goto(f"{episode.apps['crm']}/crm/deals/{deal['id']}")

    page.get_by_label("Move to stage").select_option(label="Contract Sent")
    page.get_by_role("button", name="Move").click()

    expect(page.get_by_test_id("notice")).to_have_text("Stage changed.")
    expect(page.get_by_test_id("stage")).to_have_text("Contract Sent")
    moved = _get(api, f"/crm/v3/objects/deals/{deal['id']}", properties="dealstage")
    assert moved["properties"]["dealstage"] == "contractsent"


def test_a_refused_write_says_hubspots_message_and_changes_nothing(
        page: Page, episode: Observation, api: httpx.Client) -> None:
    first, *others = _contacts(api)[1:]
    other = next(c for c in others  # not a duplicate of it (an email in another case)
                 if c["properties"]["email"].lower() != first["properties"]["email"].lower())
    page.goto(f"{episode.apps['crm']}/crm/contacts/{first['id']}")

    page.get_by_label("Email").fill(other["properties"]["email"])
    page.get_by_role("button", name="Save").click()

    expect(page.get_by_role("alert")).to_contain_text(
        f"Contact already exists. Existing ID: {other['id']}")
    kept = _get(api, f"/crm/v3/objects/contacts/{first['id']}", properties="email")
    assert kept["properties"]["email"] == first["properties"]["email"]
