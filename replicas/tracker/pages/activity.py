"""Comments and work logged, on the issue page::

    POST /browse/{key}/comments                 add a comment (body)
    GET  /browse/{key}/comments/{id}            a comment's edit form
    POST /browse/{key}/comments/{id}            edit it (body)
    POST /browse/{key}/worklogs                 log work (time spent, date started, comment,
                                                how the remaining estimate moves)
    GET  /browse/{key}/worklogs/{id}            a worklog's edit form
    POST /browse/{key}/worklogs/{id}            edit it (what the form changed)

Each is the API's rule (rules/issues.add_comment, rules/comments.edit, rules/worklogs
log_work and edit): the same permissions, the same limits, the same estimate arithmetic
(logging: adjusted automatically, left, set to or reduced by a value, as the API's
``adjustEstimate``; editing: automatically, the API's default).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import Form, performs, redirect, sends

from .. import render
from ..errors import JiraError
from ..formats import format_duration, jira_time
from ..rules import comments, issues, worklogs
from ..rules.worklogs import Estimate
from .common import CALLER, PAGES, IssueKey, form, page_router, put_changed_text

router = page_router()
# How logging work moves the remaining estimate (the API's adjustEstimate), as Jira offers it.
ADJUSTMENTS = {"auto": "Adjust automatically", "leave": "Leave the estimate",
               "new": "Set to", "manual": "Reduce by"}
RecordId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]


@router.post("/browse/{key}/comments")
@performs("add_comment", issue="key")
async def add_comment(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    text = (await form(request)).text("body")
    sends(request, {"body": text})
    issue = issues.get(episode.db, key, CALLER)
    issues.add_comment(episode.db, issue, text, CALLER, episode.now(), adf=False)
    return redirect(request, f"/browse/{issue['key']}", done="comment")


@router.get("/browse/{key}/comments/{comment_id}")
async def comment_page(request: Request, key: IssueKey, comment_id: RecordId,
                       episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    found = comments.find(episode.db, issue, comment_id)
    return PAGES.page(request, "comment.html", issue=issue, comment=found,
                      body=render.text(found["body"], False) or "")


@router.post("/browse/{key}/comments/{comment_id}")
@performs("update_comment", issue="key")
async def edit_comment(request: Request, key: IssueKey, comment_id: RecordId,
                       episode: EpisodeDep) -> Response:
    text = (await form(request)).text("body")
    sends(request, {"body": text})
    issue = issues.get(episode.db, key, CALLER)
    comments.edit(episode.db, issue, comment_id, text, CALLER, episode.now(), adf=False)
    return redirect(request, f"/browse/{issue['key']}", done="comment-edit")


def _worklog(posted: Form, current: dict[str, Any] | None) -> dict[str, Any]:
    """The API's worklog body from the form: all it gives when logging, what changed when
    editing ``current``."""
    body: dict[str, Any] = {}
    spent, started, comment = posted.get("timeSpent"), posted.get("started"), posted.text("comment")
    if current is None or spent != format_duration(current["time_spent_s"]):
        body["timeSpent"] = spent
    if started and (current is None or started != jira_time(current["started"])):
        body["started"] = started
    put_changed_text(body, "comment", comment,
                     (render.text(current["comment"], False) or "") if current else "")
    return body


@router.post("/browse/{key}/worklogs")
@performs("add_worklog", issue="key")
async def log_work(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    posted = await form(request)
    adjust = posted.get("adjustEstimate") or "auto"
    if adjust not in ADJUSTMENTS:
        raise JiraError(400, [f"Unknown adjustEstimate '{adjust}'."], code="worklog_invalid")
    value = posted.get("estimate") or None
    estimate = Estimate(adjust, value if adjust == "new" else None,
                        value if adjust == "manual" else None)
    body = _worklog(posted, None)
    sends(request, body)
    worklogs.log_work(episode.db, issue, body, CALLER, episode.now(), adf=False,
                      estimate=estimate)
    return redirect(request, f"/browse/{issue['key']}", done="worklog")


@router.get("/browse/{key}/worklogs/{worklog_id}")
async def worklog_page(request: Request, key: IssueKey, worklog_id: RecordId,
                       episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    found = worklogs.find(episode.db, issue, worklog_id)
    return PAGES.page(request, "worklog.html", issue=issue, worklog=found,
                      spent=format_duration(found["time_spent_s"]),
                      started=jira_time(found["started"]),
                      comment=render.text(found["comment"], False) or "")


@router.post("/browse/{key}/worklogs/{worklog_id}")
@performs("update_worklog", issue="key")
async def edit_worklog(request: Request, key: IssueKey, worklog_id: RecordId,
                       episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    found = worklogs.find(episode.db, issue, worklog_id)
    body = _worklog(await form(request), found)
    sends(request, body)
    worklogs.edit(episode.db, issue, worklog_id, body, CALLER, episode.now(), adf=False)
    return redirect(request, f"/browse/{issue['key']}", done="worklog-edit")
