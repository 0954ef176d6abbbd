"""The sprint board in a real headless Chromium (Debian's, driven by Playwright) through a
real `workgym serve`: the browser enters its episode, moves a card across the board with
the transition its workflow offers, and the `jira` library, on the same episode, reads the
issue in its new status with the move in its history. A move the workflow's validator
refuses shows Jira's reason on a page and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jira import JIRA
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER, entered, served
from workgym.sdk import Observation

pytestmark = BROWSER
TASK = "tracker/start-work-on-bug"
BOARD = "/boards/1"  # SHOP's scrum board: its active sprint


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observation]:
    with (served(tmp_path_factory, "board") as url,
          workgym.connect(url, TASK, seed=4, faults="none") as run):
        yield run.reset()


@pytest.fixture
def page(browser: Browser, episode: Observation, tmp_path: Path) -> Iterator[Page]:
    with entered(browser, episode, "tracker", BOARD, tmp_path / "board.png") as page:
        expect(page.locator("h1")).to_have_text("SHOP board")
        yield page


def _jira(episode: Observation) -> JIRA:
    return JIRA(server=episode.apps["tracker"], token_auth=episode.token, max_retries=0)


def test_a_card_moved_across_the_board_is_the_workflows_transition(
        page: Page, episode: Observation) -> None:
    todo = page.locator("section[data-column='To Do'] article.card").filter(
        has=page.get_by_role("button", name="Start progress"))
    key = todo.first.get_attribute("data-key")
    assert key is not None
    card = page.locator(f"#card-{key}")

    card.get_by_role("button", name="Start progress").click()

    expect(page.locator(".notice")).to_have_text(f"{key} moved.")
    expect(page.locator(f"section[data-column='In Progress'] #card-{key}")).to_be_visible()
    expect(page.locator(f"section[data-column='To Do'] #card-{key}")).to_have_count(0)
    issue = _jira(episode).issue(key, expand="changelog")
    assert issue.fields.status.name == "In Progress"
    moves = [(i.fromString, i.toString) for h in issue.changelog.histories for i in h.items
             if i.field == "status"]
    assert moves[-1][1] == "In Progress"


def test_a_move_the_validator_refuses_says_why_and_changes_nothing(
        page: Page, episode: Observation) -> None:
    card = page.locator("article.card").filter(
        has=page.get_by_role("button", name="Mark as duplicate")).first
    key = card.get_attribute("data-key")
    assert key is not None
    before = _jira(episode).issue(key).fields.status.name

    card.get_by_role("button", name="Mark as duplicate").click()

    expect(page.locator("[role=alert]")).to_contain_text("Duplicate")
    assert _jira(episode).issue(key).fields.status.name == before
