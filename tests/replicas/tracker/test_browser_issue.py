"""The tracker's issue page, JQL search and create issue in a real headless Chromium (Debian's,
driven by Playwright) through a real `workgym serve`: the page shows what the `jira` library
reads of the issue; a transition through its screen, a comment, a worklog, a link, a web link
and a watcher made on the page, and an issue created on the form, are what `jira` reads on
the same episode; the search's results and total are the API's; a JQL error, a refused
transition and a refused web link say why in Jira's words, and a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from jira import JIRA, JIRAError
from playwright.sync_api import Browser, Page, expect

import workgym
from tests.browser import BROWSER, entered, served
from workgym.sdk import Observation

pytestmark = BROWSER
TASK = "tracker/start-work-on-bug"


@pytest.fixture(scope="module")
def episode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observation]:
    with (served(tmp_path_factory, "issue", WORKGYM_STEP_BUDGET="1000") as url,
          workgym.connect(url, TASK, seed=4, faults="none") as run):
        yield run.reset()


@pytest.fixture(scope="module")
def jira(episode: Observation) -> JIRA:
    return JIRA(server=episode.apps["tracker"], token_auth=episode.token, max_retries=0)


@pytest.fixture
def page(browser: Browser, episode: Observation) -> Iterator[Page]:
    with entered(browser, episode, "tracker", "/boards") as page:
        yield page


def _open(page: Page, episode: Observation, path: str) -> None:
    page.goto(f"{episode.apps['tracker']}{path}")


def _text(page: Page, testid: str) -> str:
    return page.get_by_test_id(testid).inner_text().strip()


def _names(items: list[Any]) -> str:
    return ", ".join(sorted(str(i.name) for i in items)) or "None"


def _fields_shown(page: Page, issue: Any) -> None:
    """The issue page's fields are those `jira` reads of ``issue``."""
    f = issue.fields
    assert page.locator("h1").inner_text() == f.summary
    shown = {name: _text(page, f"issue-{name}") for name in (
        "key", "type", "status", "resolution", "priority", "assignee", "reporter", "labels",
        "components", "fix-versions", "sprint", "story-points")}
    assert shown == {
        "key": issue.key, "type": f.issuetype.name, "status": f.status.name,
        "resolution": f.resolution.name if f.resolution else "Unresolved",
        "priority": f.priority.name,
        "assignee": f.assignee.displayName if f.assignee else "Unassigned",
        "reporter": f.reporter.displayName, "labels": " ".join(f.labels) or "None",
        "components": _names(f.components), "fix-versions": _names(f.fixVersions),
        "sprint": _names(f.customfield_10020 or []),
        "story-points": "None" if f.customfield_10016 is None else str(f.customfield_10016)}


def test_the_issue_page_shows_what_jira_reads(page: Page, episode: Observation,
                                              jira: JIRA) -> None:
    found = jira.search_issues("project = SHOP ORDER BY key", maxResults=False, fields="*all")
    key = next(i.key for i in found if i.fields.issuelinks and i.fields.comment.comments)
    planned = next(i.key for i in found if i.fields.customfield_10020
                   and i.fields.customfield_10016 is not None and i.fields.components)
    issue = jira.issue(key, expand="changelog")
    f = issue.fields

    _open(page, episode, f"/browse/{key}")

    _fields_shown(page, issue)
    for link in f.issuelinks:
        other, phrase = ((link.outwardIssue, link.type.outward) if hasattr(link, "outwardIssue")
                         else (link.inwardIssue, link.type.inward))
        group = page.get_by_test_id(f"links-{phrase.replace(' ', '-')}")
        assert group.get_by_test_id(f"link-issue-{link.id}").inner_text() == other.key
    for comment in f.comment.comments:
        assert _text(page, f"comment-body-{comment.id}") == comment.body.strip()
    assert page.locator("[data-testid^=history-]").count() == len(issue.changelog.histories)
    assert page.get_by_role("heading", name=f"Watchers ({f.watches.watchCount})").is_visible()
    _open(page, episode, f"/browse/{planned}")
    _fields_shown(page, jira.issue(planned))


def test_a_transition_through_its_screen_is_the_workflows(page: Page, episode: Observation,
                                                          jira: JIRA) -> None:
    key = jira.search_issues("project = SHOP AND issuetype = Bug AND status = Open "
                             "ORDER BY key", maxResults=1)[0].key
    _open(page, episode, f"/browse/{key}")

    page.get_by_role("link", name="Resolve issue").click()
    page.get_by_label("Resolution").select_option("Cannot Reproduce")
    page.get_by_label("Comment").fill("Not reproducible on the current build.")
    page.get_by_role("button", name="Resolve issue").click()

    expect(page.get_by_role("status")).to_have_text("Status changed.")
    f = jira.issue(key).fields
    assert f.resolution is not None
    assert (f.status.name, f.resolution.name) == ("Resolved", "Cannot Reproduce")
    assert jira.comments(key)[-1].body == "Not reproducible on the current build."
    assert _text(page, "issue-status") == "Resolved"


def test_a_refused_transition_says_why_and_changes_nothing(page: Page, episode: Observation,
                                                           jira: JIRA) -> None:
    key = jira.search_issues("project = SHOP AND issuetype = Bug AND status = Open "
                             "ORDER BY key DESC", maxResults=1)[0].key
    before = jira.issue(key, expand="changelog")
    _open(page, episode, f"/browse/{key}")

    page.get_by_role("button", name="Mark as duplicate").click()

    expect(page.get_by_role("alert")).to_have_text(
        "The issue needs a 'Duplicate' link (outward) first.")
    after = jira.issue(key, expand="changelog")
    assert after.fields.status.name == before.fields.status.name == "Open"
    assert len(after.changelog.histories) == len(before.changelog.histories)


def test_comment_worklog_link_and_watcher_made_on_the_page(page: Page, episode: Observation,
                                                           jira: JIRA) -> None:
    a, b = (jira.create_issue(project="SHOP", issuetype={"name": "Task"}, summary=s).key
            for s in ("Rotate the webhook secret", "Retire the old webhook endpoint"))
    _open(page, episode, f"/browse/{a}")

    page.get_by_label("Comment").fill("Rotation planned for Friday.\nOwner: payments team.")
    page.get_by_role("button", name="Add comment").click()
    expect(page.get_by_role("status")).to_have_text("Comment added.")
    page.get_by_label("Time spent").fill("1h 30m")
    page.get_by_label("Date started").fill("2025-06-16T09:00:00.000+0000")
    page.get_by_label("Work description").fill("Prepared the rotation runbook")
    page.get_by_role("button", name="Log work").click()
    expect(page.get_by_role("status")).to_have_text("Work logged.")
    page.get_by_label("This issue").select_option(label="blocks")
    page.get_by_label("Issue to link").fill(b)
    page.get_by_role("button", name="Link", exact=True).click()
    expect(page.get_by_role("status")).to_have_text("Link added.")
    watcher = page.get_by_label("Watcher").locator("option").nth(0)
    name = watcher.inner_text()
    page.get_by_label("Watcher").select_option(label=name)
    page.get_by_role("button", name="Add watcher").click()
    expect(page.get_by_role("status")).to_have_text("Watcher added.")

    assert [c.body for c in jira.comments(a)] == [
        "Rotation planned for Friday.\nOwner: payments team."]
    [worklog] = jira.worklogs(a)
    assert (worklog.timeSpentSeconds, worklog.started, worklog.comment) == (
        5400, "2025-06-16T09:00:00.000+0000", "Prepared the rotation runbook")
    [link] = jira.issue(a).fields.issuelinks
    assert (link.type.name, link.outwardIssue.key) == ("Blocks", b)  # a blocks b
    assert name in {w.displayName for w in jira.watchers(a).watchers}


def test_comment_and_worklog_edited_link_and_watcher_removed(page: Page, episode: Observation,
                                                             jira: JIRA) -> None:
    a, b = (jira.create_issue(project="SHOP", issuetype={"name": "Task"}, summary=s).key
            for s in ("Move the cron jobs", "Decommission the old host"))
    comment = jira.add_comment(a, "Moving on Tuesdy.")
    jira.add_worklog(a, timeSpent="3h")
    jira.create_issue_link("Relates", a, b)
    me = jira.myself()
    _open(page, episode, f"/browse/{a}")

    page.get_by_role("link", name=f"Edit comment: {me['displayName']}", exact=False).click()
    page.get_by_label("Comment").fill("Moving on Tuesday.")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Comment updated.")
    page.get_by_role("link", name=f"Edit worklog: {me['displayName']}, 3h").click()
    page.get_by_label("Time spent").fill("2h 15m")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Worklog updated.")
    page.get_by_role("button", name=f"Remove link: relates to {b}").click()
    expect(page.get_by_role("status")).to_have_text("Link removed.")
    page.get_by_role("button", name=f"Remove watcher {me['displayName']}").click()
    expect(page.get_by_role("status")).to_have_text("Watcher removed.")

    assert jira.comment(a, comment.id).body == "Moving on Tuesday."
    assert [w.timeSpentSeconds for w in jira.worklogs(a)] == [8100]
    assert jira.issue(a).fields.issuelinks == []
    assert jira.watchers(a).watchCount == 0


def test_a_web_link_added_refused_and_removed_on_the_page(page: Page, episode: Observation,
                                                          jira: JIRA) -> None:
    key = jira.create_issue(project="SHOP", issuetype={"name": "Bug"},
                            summary="Promo code field ignores Enter").key
    url = "https://shop.zendesk.com/agent/tickets/612"
    _open(page, episode, f"/browse/{key}")
    expect(page.get_by_text("No web links.")).to_be_visible()

    page.get_by_label("URL").fill(url)
    page.get_by_role("button", name="Add web link").click()
    expect(page.get_by_role("alert")).to_contain_text("'title' cannot be null or empty.")
    assert jira.remote_links(key) == []

    _open(page, episode, f"/browse/{key}")
    page.get_by_label("URL").fill(url)
    page.get_by_label("Link text").fill("Ticket #612")
    page.get_by_role("button", name="Add web link").click()
    expect(page.get_by_role("status")).to_have_text("Web link added.")
    [made] = jira.remote_links(key)
    assert (made.object.url, made.object.title) == (url, "Ticket #612")
    expect(page.get_by_test_id(f"web-link-url-{made.id}")).to_have_text("Ticket #612")

    page.get_by_role("button", name="Remove web link: Ticket #612").click()
    expect(page.get_by_role("status")).to_have_text("Web link removed.")
    assert jira.remote_links(key) == []


def test_fields_edited_on_the_page(page: Page, episode: Observation, jira: JIRA) -> None:
    key = jira.create_issue(project="SHOP", issuetype={"name": "Story"}, summary="Wishlist",
                            labels=["web", "q3"], priority={"name": "Low"}).key
    _open(page, episode, f"/browse/{key}")

    page.get_by_label("q3", exact=True).uncheck()
    page.get_by_label("Add labels").fill("q4 mobile")
    page.get_by_label("Priority").select_option("High")
    page.get_by_label("Story points").fill("5")
    page.get_by_label("Description", exact=True).fill("Customers keep products for later.")
    page.get_by_role("button", name="Save").click()

    expect(page.get_by_role("status")).to_have_text("Issue updated.")
    f = jira.issue(key).fields
    assert (sorted(f.labels), f.priority.name, f.customfield_10016, f.description,
            f.summary) == (["mobile", "q4", "web"], "High", 5.0,
                           "Customers keep products for later.", "Wishlist")
    assert _text(page, "issue-labels") == "mobile q4 web"


def test_search_results_and_total_are_the_apis(page: Page, episode: Observation,
                                               jira: JIRA) -> None:
    where = "project = SHOP AND statusCategory != Done OR project = APP"
    jql = f"{where} ORDER BY priority DESC, key ASC"
    every = [i.key for i in jira.search_issues(jql, maxResults=False)]
    assert len(every) > 50
    _open(page, episode, "/issues/")

    page.get_by_label("JQL").fill(jql)
    page.get_by_role("button", name="Search").click()

    assert _text(page, "search-total").startswith(f"{len(every)} issues")
    rows = page.locator("[data-testid^=issue-link-]")
    assert rows.all_inner_texts() == every[:50]
    page.get_by_role("link", name="Next").click()
    assert rows.all_inner_texts() == every[50:100]
    page.get_by_role("link", name="Summary").click()
    page.get_by_role("link", name="Summary").click()
    resorted = f"{where} ORDER BY summary DESC"
    expect(page.get_by_label("JQL")).to_have_value(resorted)
    assert rows.all_inner_texts() == [i.key for i in jira.search_issues(resorted,
                                                                        maxResults=50)]


def test_the_results_resolution_column_is_the_apis_and_sorts(page: Page, episode: Observation,
                                                             jira: JIRA) -> None:
    where = "project = SHOP AND statusCategory = Done"
    _open(page, episode, "/issues/")
    page.get_by_label("JQL").fill(where)
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name="Resolution").click()

    expect(page.get_by_label("JQL")).to_have_value(f"{where} ORDER BY resolution ASC")
    found = jira.search_issues(f"{where} ORDER BY resolution ASC", maxResults=50)
    assert {i.fields.resolution.name for i in found if i.fields.resolution}  # some resolved
    shown = page.locator("[data-testid^=issue-row-resolution-]").all_inner_texts()
    assert shown == [i.fields.resolution.name if i.fields.resolution else "Unresolved"
                     for i in found]


def test_a_search_saved_as_a_filter_is_the_apis(page: Page, episode: Observation,
                                                jira: JIRA) -> None:
    jql = "project = APP AND issuetype = Bug ORDER BY key"
    _open(page, episode, "/issues/")
    page.get_by_label("JQL").fill(jql)
    page.get_by_role("button", name="Search").click()

    page.get_by_label("Filter name").fill("App bugs")
    page.get_by_role("button", name="Save as filter").click()

    expect(page.get_by_test_id("filter-name")).to_have_text("App bugs")
    saved = jira.filter(parse_qs(urlsplit(page.url).query)["filter"][0])
    assert (saved.name, saved.jql) == ("App bugs", jql)
    total = len(jira.search_issues(jql, maxResults=False))
    assert _text(page, "search-total").startswith(f"{total} issue")


def test_a_jql_error_is_jiras_message(page: Page, episode: Observation, jira: JIRA) -> None:
    with pytest.raises(JIRAError) as refused:
        jira.search_issues("projekt = SHOP")
    _open(page, episode, "/issues/?jql=projekt%20%3D%20SHOP")

    message = _text(page, "jql-error")
    assert message and message in str(refused.value.text)
    assert page.get_by_role("alert").is_visible()


def test_an_issue_created_on_the_form_and_one_refused(page: Page, episode: Observation,
                                                      jira: JIRA) -> None:
    parent = jira.create_issue(project="SHOP", issuetype={"name": "Story"},
                               summary="Gift cards at checkout").key
    me = jira.myself()
    _open(page, episode, f"/browse/{parent}")
    page.get_by_role("link", name="Create sub-task").click()
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("alert")).to_have_text("You must specify a summary of the issue.")
    assert jira.issue(parent).fields.subtasks == []
    page.go_back()

    page.get_by_label("Summary").fill("Validate the gift card's balance")
    page.get_by_label("Description").fill("Before the payment step.")
    page.get_by_label("Priority").select_option("High")
    page.get_by_label("Assignee").select_option(label=me["displayName"])
    page.get_by_label("Labels").fill("giftcard checkout")
    page.get_by_role("button", name="Create").click()

    expect(page.get_by_role("status")).to_have_text("Issue created.")
    key = _text(page, "issue-key")
    f = jira.issue(key).fields
    assert f.assignee is not None
    assert (f.summary, f.issuetype.name, f.parent.key, f.priority.name, f.assignee.accountId,
            sorted(f.labels), f.description) == (
        "Validate the gift card's balance", "Sub-task", parent, "High", me["accountId"],
        ["checkout", "giftcard"], "Before the payment step.")


def test_components_chosen_on_the_create_form_and_another_projects_refused(
        page: Page, episode: Observation, jira: JIRA) -> None:
    created_before = jira.search_issues("project = APP", maxResults=0).total
    _open(page, episode, "/secure/CreateIssue")
    page.get_by_label("Project").select_option("APP")
    page.get_by_label("Issue type").select_option("Bug")
    page.get_by_label("Summary").fill("The app closes on the Account tab")
    page.get_by_label("Components").select_option(label="Checkout")  # SHOP's
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("alert")).to_contain_text("is not valid")
    assert jira.search_issues("project = APP", maxResults=0).total == created_before
    page.go_back()

    page.get_by_label("Components").select_option(label=["iOS", "Login"])
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("status")).to_have_text("Issue created.")
    f = jira.issue(_text(page, "issue-key")).fields
    assert (f.project.key, sorted(c.name for c in f.components)) == ("APP", ["Login", "iOS"])
