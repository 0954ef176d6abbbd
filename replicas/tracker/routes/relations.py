"""Links, link types, watchers and worklogs (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Interval
from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import CANONICAL
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..formats import format_duration, jira_time
from ..rules import issues, relations
from ..world import data
from .common import CALLER, Base, IssueRef, MaxResults, StartAt, Version, page_bean, shown

router = APIRouter(tags=["links"])
WORKLOGS_CAP = 5000
Account = Annotated[str, Query(max_length=128, description="The user's accountId.")]


@router.get("/issueLinkType", operation_id="get_issue_link_types",
            summary="Get issue link types")
async def link_types(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """The link types, each with its inward and outward phrase."""
    v = shown(version)
    return ok({"issueLinkTypes": [render.link_type(t[1], base, v)
                                   for t in data()["link_types"]]})


@router.post("/issueLink", operation_id="link_issues", summary="Link two issues",
             status_code=201)
async def link_issues(version: Version, episode: EpisodeDep,
                      body: Annotated[dict[str, Any], Body(description=(
                          "{type: {name | id}, inwardIssue: {key | id}, outwardIssue: "
                          "{key | id}}: the inward issue <outward phrase> the outward one "
                          "(Blocks: inward blocks outward)."))]) -> Response:
    """Link two issues."""
    try:
        kind = body["type"]
        name = kind.get("name") or next((t[1] for t in data()["link_types"]
                                         if str(t[0]) == str(kind.get("id"))), None)
        inward, outward = (body[side].get("key") or body[side]["id"]
                           for side in ("inwardIssue", "outwardIssue"))
        if name is None:
            raise KeyError("type")
    except (KeyError, TypeError, AttributeError) as error:
        raise JiraError(400, ["Link type, inwardIssue and outwardIssue are required."],
                        code="link_body") from error
    relations.link(episode.db, str(name), str(inward), str(outward), CALLER)
    return Response(status_code=201)


def _link(row: dict[str, Any], base: str, v: str) -> dict[str, Any]:
    return {"id": str(row["id"]), "self": f"{render.api(base, v)}/issueLink/{row['id']}",
            "type": render.link_type(row["link_type"], base, v),
            "inwardIssue": {"id": str(row["inward_id"]), "key": row["inward_key"]},
            "outwardIssue": {"id": str(row["outward_id"]), "key": row["outward_key"]}}


LinkId = Annotated[int, Interval(ge=1, le=2**31 - 1), CANONICAL, Path(
    description="The link's id.")]
_LINK = ("SELECT l.*, i.key AS inward_key, o.key AS outward_key, i.project_id FROM "
         "issue_links l JOIN issues i ON i.id = l.inward_id JOIN issues o ON "
         "o.id = l.outward_id WHERE l.id = ?")


def _found_link(episode: EpisodeDep, link_id: int) -> dict[str, Any]:
    found = one(episode.db, _LINK, (link_id,))
    if found is None:
        raise JiraError(404, [f"No issue link with id '{link_id}' exists."],
                        code="link_not_found")
    for key in (found["inward_key"], found["outward_key"]):
        issues.get(episode.db, key, CALLER)  # both issues visible, or a 404
    return found


@router.get("/issueLink/{link_id}", operation_id="get_issue_link", summary="Get an issue link")
async def get_link(version: Version, link_id: LinkId, episode: EpisodeDep,
                   base: Base) -> Response:
    """A link: its type and its inward and outward issue."""
    return ok(_link(_found_link(episode, link_id), base, shown(version)))


@router.delete("/issueLink/{link_id}", operation_id="delete_issue_link",
               summary="Delete an issue link", status_code=204)
async def delete_link(version: Version, link_id: LinkId, episode: EpisodeDep) -> Response:
    """Remove a link between two issues (Link issues on both)."""
    found = _found_link(episode, link_id)
    relations.unlink(episode.db, found, CALLER)
    return Response(status_code=204)


def _remote(row: dict[str, Any], key: str, base: str, v: str) -> dict[str, Any]:
    return {"id": row["id"], "self": f"{render.api(base, v)}/issue/{key}/remotelink/{row['id']}",
            "globalId": row["global_id"], "relationship": row["relationship"],
            "application": {"name": row["application"]} if row["application"] else {},
            "object": {"url": row["url"], "title": row["title"]}}


@router.get("/issue/{issue}/remotelink", operation_id="get_remote_links",
            summary="Get remote issue links")
async def remote_links(version: Version, issue: IssueRef, episode: EpisodeDep,
                       base: Base) -> Response:
    """The issue's links to the outside: the helpdesk's tickets among them."""
    found = issues.get(episode.db, issue, CALLER)
    return ok([_remote(r, found["key"], base, shown(version)) for r in rows(
        episode.db, "SELECT * FROM remote_links WHERE issue_id = ? ORDER BY id",
        (found["id"],))])


@router.post("/issue/{issue}/remotelink", operation_id="add_remote_link",
             summary="Create or update a remote issue link")
async def add_remote_link(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                          body: Annotated[dict[str, Any], Body(description=(
                              "{globalId?, relationship?, application?: {name}, object: "
                              "{url, title}}: a link to a URL (a helpdesk ticket's: its "
                              "…/tickets/{id} URL); a known globalId replaces its link."))]
                          ) -> Response:
    """Link the issue to a URL (201; 200 when the globalId's link was replaced)."""
    found = issues.get(episode.db, issue, CALLER)
    link_id, new = relations.remote_link(episode.db, found, body, CALLER)
    return ok({"id": link_id, "self": f"{render.api(base, shown(version))}/issue/"
               f"{found['key']}/remotelink/{link_id}"}, 201 if new else 200)


@router.delete("/issue/{issue}/remotelink/{link_id}", operation_id="delete_remote_link",
               summary="Delete a remote issue link", status_code=204)
async def delete_remote_link(version: Version, issue: IssueRef, link_id: LinkId,
                             episode: EpisodeDep) -> Response:
    """Remove one of the issue's remote links."""
    relations.unlink_remote(episode.db, issues.get(episode.db, issue, CALLER), link_id, CALLER)
    return Response(status_code=204)


@router.get("/issue/{issue}/watchers", operation_id="get_watchers", summary="Get watchers")
async def watchers(version: Version, issue: IssueRef, episode: EpisodeDep,
                   base: Base) -> Response:
    """Who watches the issue."""
    found = issues.get(episode.db, issue, CALLER)
    people = rows(episode.db, "SELECT u.* FROM users u JOIN watchers w ON w.user_id = u.id "
                  "WHERE w.issue_id = ? ORDER BY u.id", (found["id"],))
    v = shown(version)
    return ok({"self": f"{render.api(base, v)}/issue/{found['key']}/watchers",
               "isWatching": any(p["id"] == CALLER for p in people),
               "watchCount": len(people), "watchers": [render.user(p, base, v)
                                                        for p in people]})


@router.post("/issue/{issue}/watchers", operation_id="add_watcher", summary="Add a watcher",
             status_code=204)
async def add_watcher(version: Version, issue: IssueRef, episode: EpisodeDep,
                      body: Annotated[str | None, Body(max_length=128, description=(
                          "The accountId as a bare JSON string (none: yourself)."))] = None
                      ) -> Response:
    """Add a watcher (others need Manage watchers)."""
    relations.watch(episode.db, issues.get(episode.db, issue, CALLER), body, CALLER)
    return Response(status_code=204)


@router.delete("/issue/{issue}/watchers", operation_id="remove_watcher",
               summary="Remove a watcher", status_code=204)
async def remove_watcher(version: Version, issue: IssueRef, episode: EpisodeDep,
                         accountId: Account) -> Response:
    """Remove a watcher."""
    relations.unwatch(episode.db, issues.get(episode.db, issue, CALLER), accountId, CALLER)
    return Response(status_code=204)


def _worklog(row: dict[str, Any], author: dict[str, Any], base: str, v: str) -> dict[str, Any]:
    return {"self": f"{render.api(base, v)}/issue/{row['issue_id']}/worklog/{row['id']}",
            "id": str(row["id"]), "issueId": str(row["issue_id"]),
            "author": render.user(author, base, v), "timeSpent": format_duration(
                row["time_spent_s"]), "timeSpentSeconds": row["time_spent_s"],
            "comment": render.text(row["comment"], v == "3"),
            "started": jira_time(row["started"]), "created": jira_time(row["created"]),
            "updated": jira_time(row["created"])}


@router.post("/issue/{issue}/worklog", operation_id="add_worklog", summary="Log work",
             status_code=201)
async def add_worklog(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                      body: Annotated[dict[str, Any], Body(description=(
                          "{timeSpent: '2h 30m' | timeSpentSeconds, started}"))],
                      adjustEstimate: Annotated[str, Query(
                          pattern="^(auto|leave|new|manual)$", description=(
                              "How the remaining estimate changes."))] = "auto",
                      newEstimate: Annotated[str | None, Query(max_length=40, description=(
                          "adjustEstimate=new: the new remaining estimate."))] = None,
                      reduceBy: Annotated[str | None, Query(max_length=40, description=(
                          "adjustEstimate=manual: how much to reduce it by."))] = None
                      ) -> Response:
    """Log time spent on the issue."""
    made = relations.log_work(episode.db, issues.get(episode.db, issue, CALLER), body, CALLER,
                              episode.now(), adf=version == "3", adjust=adjustEstimate,
                              new_estimate=newEstimate,
                              reduce_by=reduceBy)
    author = one(episode.db, "SELECT * FROM users WHERE id = ?", (CALLER,))
    assert author is not None
    return ok(_worklog(made, author, base, shown(version)), 201)


@router.get("/issue/{issue}/worklog", operation_id="get_worklogs", summary="Get worklogs")
async def get_worklogs(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                       startAt: StartAt = 0, maxResults: MaxResults = WORKLOGS_CAP
                       ) -> Response:
    """Work logged on the issue, oldest first."""
    found = issues.get(episode.db, issue, CALLER)
    logs = rows(episode.db, "SELECT * FROM worklogs WHERE issue_id = ? ORDER BY id",
                (found["id"],))
    v = shown(version)
    authors = {u["id"]: u for u in rows(episode.db, "SELECT * FROM users")}
    return ok(page_bean([_worklog(w, authors[w["author_id"]], base, v) for w in logs], startAt,
                        maxResults, WORKLOGS_CAP, key="worklogs"))
