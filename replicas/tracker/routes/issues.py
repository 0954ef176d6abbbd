"""Issues: get, create, edit, assign, transitions, comments (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import comments, issues, permissions
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
    return ok(page_bean(render.comments(episode.db, listed, base, shown(version),
                                        version == "3"),
                        startAt, maxResults, COMMENTS_CAP, key="comments"))


@router.post("/issue/{issue}/comment", operation_id="add_comment",
             summary="Add a comment", status_code=201)
async def add_comment(version: Version, issue: IssueRef, body: Json, episode: EpisodeDep,
                      base: Base) -> Response:
    """A comment on the issue: {"body": text (v2) or an Atlassian Document (v3)}."""
    found = _issue(episode, issue)
    made = issues.add_comment(episode.db, found, body.get("body"), CALLER, episode.now(),
                              adf=version == "3")
    return ok(_comment(episode, made, base, version), 201)


def _comment(episode: EpisodeDep, row: dict[str, Any], base: str,
             version: str) -> dict[str, Any]:
    return render.comments(episode.db, [row], base, shown(version), version == "3")[0]


CommentId = Annotated[Id, Path(description="The comment's id.")]


@router.get("/issue/{issue}/comment/{comment_id}", operation_id="get_comment",
            summary="Get a comment")
async def get_comment(version: Version, issue: IssueRef, comment_id: CommentId,
                      episode: EpisodeDep, base: Base) -> Response:
    """One of the issue's comments."""
    return ok(_comment(episode, comments.find(episode.db, _issue(episode, issue), comment_id),
                       base, version))


@router.put("/issue/{issue}/comment/{comment_id}", operation_id="update_comment",
            summary="Update a comment")
async def update_comment(version: Version, issue: IssueRef, comment_id: CommentId, body: Json,
                         episode: EpisodeDep, base: Base) -> Response:
    """Replace a comment's body ({"body": text (v2) or a document (v3)}): Edit own comments
    for yours, Edit all comments for anyone's."""
    made = comments.edit(episode.db, _issue(episode, issue), comment_id, body.get("body"),
                         CALLER, episode.now(), adf=version == "3")
    return ok(_comment(episode, made, base, version))


@router.delete("/issue/{issue}/comment/{comment_id}", operation_id="delete_comment",
               summary="Delete a comment", status_code=204)
async def delete_comment(version: Version, issue: IssueRef, comment_id: CommentId,
                         episode: EpisodeDep) -> Response:
    """Delete a comment: Delete own comments for yours, Delete all comments for anyone's."""
    comments.delete(episode.db, _issue(episode, issue), comment_id, CALLER, episode.now())
    return Response(status_code=204)


COMMENT_IDS_CAP = 1000


@router.post("/comment/list", operation_id="get_comments_by_ids",
             summary="Get comments by IDs")
async def comments_by_ids(version: Version, episode: EpisodeDep, base: Base,
                          body: Annotated[dict[str, Any], Body(description=(
                              "{ids: [comment ids]}: 1 to 1000 of them."))]) -> Response:
    """The comments named, on issues you may browse (others left out), by id."""
    ids = body.get("ids")
    if (not isinstance(ids, list) or not 0 < len(ids) <= COMMENT_IDS_CAP
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)):
        raise JiraError(400, [], {"ids": "Specify between 1 and 1000 comment IDs."},
                        code="comment_ids")
    visible = set(permissions.browsable(episode.db, CALLER))
    listed = [c for c in rows(episode.db, "SELECT c.*, i.project_id FROM comments c JOIN "
                              "issues i ON i.id = c.issue_id WHERE c.id IN (SELECT value "
                              "FROM json_each(?)) ORDER BY c.id", (orjson.dumps(ids),))
              if c.pop("project_id") in visible]
    return ok(page_bean(render.comments(episode.db, listed, base, shown(version),
                                        version == "3"), 0, len(listed), COMMENT_IDS_CAP))
