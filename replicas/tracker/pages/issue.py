"""The issue page (Jira's ``/browse/{key}``) and what is done on it to the issue itself::

    GET  /browse/{key}                        the issue: its fields, parent and sub-tasks,
                                              links, web links, watchers, comments, work
                                              log, history;
                                              the transitions the workflow offers, the forms
    POST /browse/{key}/edit                   edit: summary, priority, labels (those kept
                                              and those added), components, fix versions,
                                              story points, description
    POST /browse/{key}/assign                 assign (the assignee's accountId, '' unassigns)
    GET  /browse/{key}/transitions/{id}       a transition's screen (resolution, fix versions,
                                              comment, as its screen has them)
    POST /browse/{key}/transitions            run a transition -> the issue

Each write is the API's rule (rules/issues edit, assign, transition): the same permissions,
screens, validators, post-functions and history; only the fields the form changed are sent,
as Jira's edit dialog sends them. A refusal is a page with Jira's message, nothing changed.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated, Any

import orjson
from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import Form, performs, redirect, sends

from .. import render
from ..errors import JiraError
from ..formats import format_duration, jira_time
from ..rules import issues, permissions, workflows
from ..world import data
from .activity import ADJUSTMENTS
from .common import CALLER, PAGES, IssueKey, form, page_router, put_changed_text

router = page_router()
TransitionId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]
# What the issue page says after a write (the ``done`` query parameter).
NOTICES = {"edit": "Issue updated.", "assign": "Assignee changed.",
           "transition": "Status changed.", "comment": "Comment added.",
           "comment-edit": "Comment updated.", "worklog": "Work logged.",
           "worklog-edit": "Worklog updated.", "link": "Link added.",
           "unlink": "Link removed.", "weblink": "Web link added.",
           "unweblink": "Web link removed.", "watch": "Watcher added.",
           "unwatch": "Watcher removed.", "created": "Issue created."}


def needs_screen(transition: workflows.Transition) -> bool:
    """Whether the transition opens its screen (fields besides the comment, or a comment it
    requires) rather than running from its button."""
    return len(transition.screen) > 1 or any(v.get("comment_required")
                                             for v in transition.validators)


def choices(episode: EpisodeDep, issue: dict[str, Any]) -> dict[str, Any]:
    """What the issue's forms offer: priorities, resolutions, the project's components and
    versions, who may be assigned, every active user (watchers), the link phrases."""
    where, params = permissions.assignable(issue["project_id"])
    w = data()
    phrases = {}
    for _, name, inward, outward in w["link_types"]:
        phrases[f"{name}:outward"] = outward
        if inward != outward:
            phrases[f"{name}:inward"] = inward
    return {"priorities": [p[1] for p in w["priorities"]],
            "resolutions": [r[1] for r in w["resolutions"]],
            "components": rows(episode.db, "SELECT id, name FROM components WHERE "
                               "project_id = ? ORDER BY name", (issue["project_id"],)),
            "versions": rows(episode.db, "SELECT id, name FROM versions WHERE project_id = ? "
                             "AND NOT archived ORDER BY name", (issue["project_id"],)),
            "assignable": rows(episode.db, f"SELECT account_id, display_name FROM users "
                               f"WHERE {where} ORDER BY display_name", params),
            "users": rows(episode.db, "SELECT account_id, display_name FROM users WHERE "
                          "active ORDER BY display_name"),
            "phrases": phrases}


def _worklogs(episode: EpisodeDep, issue: dict[str, Any],
              people: dict[int, str]) -> list[dict[str, Any]]:
    return [{"id": w["id"], "author": people.get(w["author_id"]),
             "spent": format_duration(w["time_spent_s"]), "started": jira_time(w["started"]),
             "comment": render.text(w["comment"], False) or ""}
            for w in rows(episode.db, "SELECT * FROM worklogs WHERE issue_id = ? ORDER BY id",
                          (issue["id"],))]


def _history(episode: EpisodeDep, issue: dict[str, Any],
             people: dict[int, str]) -> list[dict[str, Any]]:
    return [{"id": h["id"], "author": people.get(h["author_id"]),
             "created": jira_time(h["created"]), "changes": orjson.loads(h["items"])}
            for h in rows(episode.db, "SELECT * FROM changelog WHERE issue_id = ? ORDER BY id",
                          (issue["id"],))]


def _links(f: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's links as the page groups them: by the phrase read from this issue ("this
    issue blocks SHOP-5"), then in the order made."""
    found = []
    for link in f["issuelinks"]:
        side, phrase = (("outwardIssue", "outward") if "outwardIssue" in link
                        else ("inwardIssue", "inward"))
        other = link[side]
        found.append({"id": link["id"], "phrase": link["type"][phrase], "key": other["key"],
                      "summary": other["fields"]["summary"],
                      "status": other["fields"]["status"]["name"]})
    return sorted(found, key=lambda x: (x["phrase"], int(x["id"])))


@router.get("/browse/{key}")
async def issue_page(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    shown = render.issue(episode.db, issue, "", "2")  # what GET /rest/api/2/issue gives
    people = {u["id"]: u["display_name"] for u in rows(episode.db, "SELECT * FROM users")}
    watchers = rows(episode.db, "SELECT u.account_id, u.display_name FROM users u JOIN "
                    "watchers w ON w.user_id = u.id WHERE w.issue_id = ? ORDER BY u.id",
                    (issue["id"],))
    me = one(episode.db, "SELECT account_id FROM users WHERE id = ?", (CALLER,))
    assert me is not None
    return PAGES.page(request, "issue.html", issue=issue, f=shown["fields"],
                      watchers=watchers, worklogs=_worklogs(episode, issue, people),
                      history=_history(episode, issue, people), me=me["account_id"],
                      transitions=[{"id": t.id, "name": t.name, "to": t.to,
                                    "screen": needs_screen(t)}
                                   for t in issues.available(episode.db, issue, CALLER)],
                      description=render.text(issue["description"], False) or "",
                      spent=format_duration(issue["time_spent_s"]) if issue["time_spent_s"]
                      else "None",
                      notice=NOTICES.get(request.query_params.get("done", "")),
                      adjustments=ADJUSTMENTS, links=_links(shown["fields"]),
                      web_links=rows(episode.db, "SELECT id, url, title FROM remote_links "
                                     "WHERE issue_id = ? ORDER BY id", (issue["id"],)),
                      **choices(episode, issue))


def _list(raw: str) -> list[int]:
    return sorted(orjson.loads(raw))


def edited(issue: dict[str, Any], posted: Form) -> dict[str, Any]:
    """The API's ``fields`` for what the edit form changed (a field left as it was is not
    sent, as Jira's edit dialog sends only what changed)."""
    given: dict[str, Any] = {}
    if posted.get("summary") != issue["summary"]:
        given["summary"] = posted.get("summary")
    if posted.get("priority") and posted.get("priority") != issue["priority"]:
        given["priority"] = {"name": posted.get("priority")}
    labels = sorted(set(posted.all("labels")) | set(posted.get("addLabels").split()))
    if labels != sorted(orjson.loads(issue["labels"])):
        given["labels"] = labels
    for name, column in (("components", "components"), ("fixVersions", "fix_versions")):
        chosen = posted.all(name)
        if sorted(int(c) if c.isdigit() else -1 for c in chosen) != _list(issue[column]):
            given[name] = [{"id": c} for c in chosen]
    points = posted.get("storyPoints")
    value: Any = points or None  # not a number: the rule says what is wrong with it
    with suppress(ValueError):
        value = float(points) if points else None
    if value != issue["story_points"]:
        given["customfield_10016"] = value
    put_changed_text(given, "description", posted.text("description"),
                     render.text(issue["description"], False) or "")
    return given


@router.post("/browse/{key}/edit")
@performs("edit_issue", issue="key")
async def edit(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    fields = edited(issue, await form(request))
    sends(request, {"fields": fields})
    issues.edit(episode.db, issue, fields, {}, CALLER, episode.now(), adf=False)
    return redirect(request, f"/browse/{issue['key']}", done="edit")


@router.post("/browse/{key}/assign")
@performs("assign_issue", issue="key")
async def assign(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    account = (await form(request)).get("assignee") or None
    sends(request, {"accountId": account})
    issue = issues.get(episode.db, key, CALLER)
    issues.assign(episode.db, issue, account, CALLER, episode.now())
    return redirect(request, f"/browse/{issue['key']}", done="assign")


@router.get("/browse/{key}/transitions/{transition_id}")
async def transition_screen(request: Request, key: IssueKey, transition_id: TransitionId,
                            episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    permissions.require(episode.db, issue["project_id"], CALLER, "transition")
    chosen = workflows.find(issues.workflow_of(issue, episode.db), issue["status"],
                            transition_id, permissions.roles_of(episode.db,
                                                                issue["project_id"], CALLER))
    return PAGES.page(request, "transition.html", issue=issue, t=chosen,
                      current_versions=_list(issue["fix_versions"]),
                      **choices(episode, issue))


def transition_given(issue: dict[str, Any], posted: Form) -> tuple[dict[str, Any],
                                                                   dict[str, Any]]:
    """The API's ``fields`` and ``update`` for a transition's form: the resolution chosen,
    the fix versions if the screen had them and they changed, the comment if one was
    written."""
    given: dict[str, Any] = {}
    if posted.get("resolution"):
        given["resolution"] = {"name": posted.get("resolution")}
    if posted.has("fixVersionsShown"):
        chosen = posted.all("fixVersions")
        if sorted(int(c) if c.isdigit() else -1 for c in chosen) != _list(
                issue["fix_versions"]):
            given["fixVersions"] = [{"id": c} for c in chosen]
    comment = posted.text("comment")
    update = {"comment": [{"add": {"body": comment}}]} if comment.strip() else {}
    return given, update


def run_transition(request: Request, episode: EpisodeDep, issue: dict[str, Any],
                   posted: Form) -> None:
    """The transition a form posted (``transition``: its id), as the API runs it (and as
    the page's step tells it: the API's ``do_transition`` of the issue)."""
    raw = posted.get("transition")
    given, update = transition_given(issue, posted)
    sends(request, {"transition": {"id": raw}, "fields": given, "update": update},
          issue=issue["key"])
    if not raw.isdigit():
        raise JiraError(400, ["Choose a transition."], code="transition_id")
    issues.transition(episode.db, issue, int(raw), given, update, CALLER, episode.now(),
                      adf=False)


@router.post("/browse/{key}/transitions")
@performs("do_transition", issue="key")
async def transition(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    run_transition(request, episode, issue, await form(request))
    return redirect(request, f"/browse/{issue['key']}", done="transition")
