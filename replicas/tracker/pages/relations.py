"""Links and watchers, on the issue page::

    POST /browse/{key}/links                    link: a phrase (type and direction) and the
                                                other issue's key
    POST /browse/{key}/links/{id}/delete        remove a link
    POST /browse/{key}/weblinks                 a web link: a URL and its link text (a
                                                helpdesk ticket's address links the ticket)
    POST /browse/{key}/weblinks/{id}/delete     remove a web link
    POST /browse/{key}/watchers                 add a watcher (accountId)
    POST /browse/{key}/watchers/delete          remove one (accountId)

Each is the API's rule (rules/relations link, unlink, remote_link, unlink_remote, watch,
unwatch). "This issue
<outward phrase> the other" makes this issue the link's inward side (its source, as
``POST /issueLink`` reads it), "<inward phrase>" the other way round.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends

from ..errors import JiraError
from ..rules import issues, relations
from .common import CALLER, IssueKey, form, page_router

router = page_router()
LinkId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]


@router.post("/browse/{key}/links")
@performs("link_issues")
async def link(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    posted = await form(request)
    kind, _, direction = posted.get("link").partition(":")
    if direction not in ("inward", "outward") or not posted.get("issue"):
        raise JiraError(400, ["Choose how the issues are linked and the issue to link."],
                        code="link_form")
    other = issues.get(episode.db, posted.get("issue"), CALLER)["key"]
    source, target = (issue["key"], other) if direction == "outward" else (other, issue["key"])
    sends(request, {"type": {"name": kind}, "outwardIssue": {"key": source},
                    "inwardIssue": {"key": target}})
    relations.link(episode.db, kind, source, target, CALLER)
    return redirect(request, f"/browse/{issue['key']}", done="link")


@router.post("/browse/{key}/links/{link_id}/delete")
@performs("delete_issue_link")
async def unlink(request: Request, key: IssueKey, link_id: LinkId,
                 episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    relations.unlink(episode.db, relations.find_link(episode.db, link_id, CALLER), CALLER)
    return redirect(request, f"/browse/{issue['key']}", done="unlink")


@router.post("/browse/{key}/weblinks")
@performs("add_remote_link", issue="key")
async def web_link(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    posted = await form(request)
    body = {"object": {"url": posted.get("url"), "title": posted.get("title")}}
    sends(request, body)
    relations.remote_link(episode.db, issue, body, CALLER)
    return redirect(request, f"/browse/{issue['key']}", done="weblink")


@router.post("/browse/{key}/weblinks/{link_id}/delete")
@performs("delete_remote_link", issue="key")
async def remove_web_link(request: Request, key: IssueKey, link_id: LinkId,
                          episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    relations.unlink_remote(episode.db, issue, CALLER, link_id=link_id)
    return redirect(request, f"/browse/{issue['key']}", done="unweblink")


@router.post("/browse/{key}/watchers")
@performs("add_watcher", issue="key")
async def watch(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    relations.watch(episode.db, issue, (await form(request)).get("account") or None, CALLER)
    return redirect(request, f"/browse/{issue['key']}", done="watch")


@router.post("/browse/{key}/watchers/delete")
@performs("remove_watcher", issue="key")
async def unwatch(request: Request, key: IssueKey, episode: EpisodeDep) -> Response:
    issue = issues.get(episode.db, key, CALLER)
    relations.unwatch(episode.db, issue, (await form(request)).get("account"), CALLER)
    return redirect(request, f"/browse/{issue['key']}", done="unwatch")
