"""Issues: get, create, edit, assign, transitions, comments (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import issues
from .common import CALLER, Base, IssueRef, MaxResults, StartAt, Version, page_bean, shown

router = APIRouter(tags=["issues"])
COMMENTS_CAP = 5000
CHANGELOG_CAP = 100
Json = Annotated[dict[str, Any], Body(description="Jira's request body.")]


def _issue(episode: EpisodeDep, ref: str) -> dict[str, Any]:
    return issues.get(episode.db, ref, CALLER)


@router.get("/issue/{issue}", operation_id="get_issue",
            summary="Get an issue")
async def get_issue(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                    fields: Annotated[str | None, Query(max_length=500, description=(
                        "Comma-separated fields to return (default: all)."))] = None,
                    expand: Annotated[str | None, Query(max_length=200, description=(
                        "Comma-separated: changelog (the history), transitions (those "
                        "you may run now)."))] = None) -> Response:
    """An issue with its fields: status, assignee, resolution, sprint, story points..."""
    row = _issue(episode, issue)
    v = shown(version)
    found = render.issue(episode.db, row, base, v)
    if fields and "*all" not in fields:
        wanted = {f.strip() for f in fields.split(",")}
        found["fields"] = {k: x for k, x in found["fields"].items() if k in wanted}
    expanded = {e.strip() for e in (expand or "").split(",")}
    if "changelog" in expanded:
        histories = _histories(episode, row, base, v)
        found["changelog"] = {"startAt": 0, "maxResults": len(histories),
                              "total": len(histories), "histories": histories}
    if "transitions" in expanded:
        found["transitions"] = _transitions(episode, row, base, v)
    return ok(found)


def _histories(episode: EpisodeDep, issue: dict[str, Any], base: str,
               v: str) -> list[dict[str, Any]]:
    people = {u["id"]: u for u in rows(episode.db, "SELECT * FROM users")}
    return [render.history(h, people.get(h["author_id"]), base, v) for h in rows(
        episode.db, "SELECT * FROM changelog WHERE issue_id = ? ORDER BY id", (issue["id"],))]


@router.get("/issue/{issue}/changelog", operation_id="get_changelogs",
            summary="Get an issue's changelog")
async def get_changelog(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                        startAt: StartAt = 0, maxResults: MaxResults = CHANGELOG_CAP
                        ) -> Response:
    """The issue's history, oldest first, a page at a time."""
    return ok(page_bean(_histories(episode, _issue(episode, issue), base, shown(version)),
                        startAt, maxResults, CHANGELOG_CAP))


@router.post("/issue", operation_id="create_issue",
             summary="Create an issue", status_code=201)
async def create_issue(version: Version, body: Json, episode: EpisodeDep,
                       base: Base) -> Response:
    """A new issue: fields.project, fields.issuetype and fields.summary are required; v3
    takes the description as an Atlassian Document."""
    made = issues.create(episode.db, body.get("fields") or {}, body.get("update") or {},
                         CALLER, episode.now(), adf=version == "3")
    v = shown(version)
    return ok({"id": str(made["id"]), "key": made["key"],
               "self": f"{render.api(base, v)}/issue/{made['id']}"}, 201)


@router.put("/issue/{issue}", operation_id="edit_issue",
            summary="Edit an issue", status_code=204)
async def edit_issue(version: Version, issue: IssueRef, body: Json,
                     episode: EpisodeDep) -> Response:
    """Change fields (``fields`` sets; ``update`` takes set/add/remove operations). The
    status changes only through a transition."""
    issues.edit(episode.db, _issue(episode, issue), body.get("fields") or {},
                body.get("update") or {}, CALLER, episode.now(), adf=version == "3")
    return Response(status_code=204)


@router.delete("/issue/{issue}", operation_id="delete_issue",
               summary="Delete an issue", status_code=204)
async def delete_issue(version: Version, issue: IssueRef, episode: EpisodeDep,
                       deleteSubtasks: Annotated[bool, Query(description=(
                           "Delete its sub-tasks too (an issue with sub-tasks needs it)."))]
                       = False) -> Response:
    """Delete the issue, its comments, worklogs and links (needs Delete issues)."""
    issues.delete(episode.db, _issue(episode, issue), CALLER, subtasks=deleteSubtasks)
    return Response(status_code=204)


@router.put("/issue/{issue}/assignee", operation_id="assign_issue",
            summary="Assign an issue", status_code=204)
async def assign_issue(version: Version, issue: IssueRef, body: Json,
                       episode: EpisodeDep) -> Response:
    """{"accountId": id} assigns, null unassigns, "-1" gives the project's default
    assignee."""
    issues.assign(episode.db, _issue(episode, issue), body.get("accountId"), CALLER,
                  episode.now())
    return Response(status_code=204)


@router.get("/issue/{issue}/transitions", operation_id="get_transitions",
            summary="Get an issue's transitions")
async def get_transitions(version: Version, issue: IssueRef, episode: EpisodeDep,
                          base: Base) -> Response:
    """The transitions the issue offers you now (each with the status it leads to)."""
    return ok({"expand": "transitions", "transitions": _transitions(
        episode, _issue(episode, issue), base, shown(version))})


def _transitions(episode: EpisodeDep, issue: dict[str, Any], base: str,
                 v: str) -> list[dict[str, Any]]:
    return [{"id": str(t.id), "name": t.name, "to": render.status(t.to, base, v),
             "hasScreen": len(t.screen) > 1, "isGlobal": t.sources is None,
             "isInitial": False, "isAvailable": True, "isConditional": bool(t.conditions),
             "isLooped": False} for t in issues.available(episode.db, issue, CALLER)]


@router.post("/issue/{issue}/transitions", operation_id="do_transition",
             summary="Transition an issue", status_code=204)
async def do_transition(version: Version, issue: IssueRef, body: Json,
                        episode: EpisodeDep) -> Response:
    """Move the issue along its workflow: {"transition": {"id": "5"}, "fields":
    {"resolution": {"name": "Done"}}, "update": {"comment": [{"add": {"body": "..."}}]}}."""
    raw = (body.get("transition") or {}).get("id")
    if raw is None or not str(raw).isdigit():
        raise JiraError(400, ["'transition' identifier must be an integer"],
                        code="transition_id")
    issues.transition(episode.db, _issue(episode, issue), int(raw), body.get("fields") or {},
                      body.get("update") or {}, CALLER, episode.now(), adf=version == "3")
    return Response(status_code=204)


@router.get("/issue/{issue}/comment", operation_id="get_comments",
            summary="Get an issue's comments")
async def get_comments(version: Version, issue: IssueRef, episode: EpisodeDep,
                       base: Base, startAt: StartAt = 0,
                       maxResults: MaxResults = COMMENTS_CAP) -> Response:
    """The issue's comments, oldest first, a page at a time."""
    found = _issue(episode, issue)
    listed = rows(episode.db, "SELECT * FROM comments WHERE issue_id = ? ORDER BY id",
                  (found["id"],))
    v = shown(version)
    out = []
    for c in listed:
        author = one(episode.db, "SELECT * FROM users WHERE id = ?", (c["author_id"],))
        assert author is not None
        out.append(render.comment(c, author, base, v, version == "3"))
    return ok(page_bean(out, startAt, maxResults, COMMENTS_CAP, key="comments"))


@router.post("/issue/{issue}/comment", operation_id="add_comment",
             summary="Add a comment", status_code=201)
async def add_comment(version: Version, issue: IssueRef, body: Json, episode: EpisodeDep,
                      base: Base) -> Response:
    """A comment on the issue: {"body": text (v2) or an Atlassian Document (v3)}."""
    found = _issue(episode, issue)
    made = issues.add_comment(episode.db, found, body.get("body"), CALLER, episode.now(),
                              adf=version == "3")
    author = one(episode.db, "SELECT * FROM users WHERE id = ?", (CALLER,))
    assert author is not None
    return ok(render.comment(made, author, base, shown(version), version == "3"), 201)
