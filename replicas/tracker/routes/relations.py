"""Links, link types, remote links and watchers (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Interval
from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import CANONICAL
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import issues, relations
from ..world import data
from .common import CALLER, Base, IssueRef, Version, shown

router = APIRouter(tags=["links"])
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


def _found_link(episode: EpisodeDep, link_id: int) -> dict[str, Any]:
    return relations.find_link(episode.db, link_id, CALLER)


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
    """A remote link; what it has no value for is left out, as Jira does."""
    optional = {"globalId": row["global_id"], "relationship": row["relationship"]}
    return {"id": row["id"], "self": f"{render.api(base, v)}/issue/{key}/remotelink/{row['id']}",
            **{k: x for k, x in optional.items() if x is not None},
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


@router.get("/issue/{issue}/remotelink/{link_id}", operation_id="get_remote_link",
            summary="Get a remote issue link by ID")
async def get_remote_link(version: Version, issue: IssueRef, link_id: LinkId,
                          episode: EpisodeDep, base: Base) -> Response:
    """One of the issue's remote links."""
    found = issues.get(episode.db, issue, CALLER)
    return ok(_remote(relations.find_remote(episode.db, found, link_id), found["key"], base,
                      shown(version)))


@router.put("/issue/{issue}/remotelink/{link_id}", operation_id="update_remote_link",
            summary="Update a remote issue link by ID", status_code=204)
async def update_remote_link(version: Version, issue: IssueRef, link_id: LinkId,
                             episode: EpisodeDep, body: Annotated[dict[str, Any], Body(
                                 description="{globalId?, relationship?, application?: "
                                 "{name}, object: {url, title}}: every field (those left "
                                 "out become null).")]) -> Response:
    """Replace one of the issue's remote links."""
    relations.update_remote(episode.db, issues.get(episode.db, issue, CALLER), link_id, body,
                            CALLER)
    return Response(status_code=204)


@router.delete("/issue/{issue}/remotelink/{link_id}", operation_id="delete_remote_link",
               summary="Delete a remote issue link", status_code=204)
async def delete_remote_link(version: Version, issue: IssueRef, link_id: LinkId,
                             episode: EpisodeDep) -> Response:
    """Remove one of the issue's remote links."""
    relations.unlink_remote(episode.db, issues.get(episode.db, issue, CALLER), CALLER,
                            link_id=link_id)
    return Response(status_code=204)


@router.delete("/issue/{issue}/remotelink", operation_id="delete_remote_link_by_global_id",
               summary="Delete a remote issue link by global ID", status_code=204)
async def delete_remote_link_by_global_id(
        version: Version, issue: IssueRef, episode: EpisodeDep,
        globalId: Annotated[str, Query(min_length=1, max_length=255, description=(
            "The link's global id (URL-escaped)."))]) -> Response:
    """Remove the issue's remote link with this global id."""
    relations.unlink_remote(episode.db, issues.get(episode.db, issue, CALLER), CALLER,
                            global_id=globalId)
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
