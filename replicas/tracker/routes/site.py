"""The site: server info, the caller, fields, users, the catalogues (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.clock import iso
from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..formats import jira_time
from ..rules import issues, permissions
from ..world import data
from .common import CALLER, Base, MaxResults, StartAt, Version, shown
from .projects import found_project

router = APIRouter(tags=["site"])
USERS_CAP = 1000  # the user searches look at the first thousand users at most
# The system fields the API shows (GET /field), with the custom ones from world.yaml.
SYSTEM_FIELDS = ("summary", "description", "issuetype", "project", "status", "resolution",
                 "priority", "assignee", "reporter", "labels", "components", "fixVersions",
                 "duedate", "created", "updated", "resolutiondate", "parent", "comment",
                 "issuelinks", "subtasks", "timetracking", "watches")


@router.get("/serverInfo", operation_id="get_server_info",
            summary="Get server info")
async def server_info(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """The site: a Jira Cloud deployment."""
    return ok({"baseUrl": base, "version": "1001.0.0-SNAPSHOT", "versionNumbers": [1001, 0, 0],
               "deploymentType": "Cloud", "buildNumber": 100290, "serverTitle": "Jira",
               "serverTime": jira_time(iso(episode.now()))})


@router.get("/myself", operation_id="get_myself", summary="Get yourself")
async def myself(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """Your account (the AI agent)."""
    return ok(render.account(one(episode.db, "SELECT * FROM users WHERE id = ?", (CALLER,)),
                          base, shown(version)))


@router.get("/field", operation_id="get_fields", summary="Get fields")
async def fields(version: Version, episode: EpisodeDep) -> Response:
    """Every field, system and custom (custom ones by id: customfield_NNNNN)."""
    system = [{"id": f, "key": f, "name": f, "custom": False, "navigable": True,
               "searchable": True, "clauseNames": [f]} for f in SYSTEM_FIELDS]
    custom = [{"id": cf[0], "key": cf[0], "name": cf[1], "custom": True, "navigable": True,
               "searchable": True, "clauseNames": [f"cf[{cf[0].split('_')[1]}]", cf[1]],
               "schema": {"type": cf[3], "custom": cf[0], "customId": int(cf[0].split("_")[1])}}
              for cf in data()["custom_fields"]]
    return ok(system + custom)


Query_ = Annotated[str | None, Query(max_length=200, description=(
    "Matches account ids exactly, display names and emails by their start."))]


def _users(episode: EpisodeDep, query: str | None, where: str = "1",
           params: tuple[object, ...] = ()) -> list[dict[str, object]]:
    found = rows(episode.db, f"SELECT * FROM users WHERE {where} ORDER BY id", params)
    if query:
        q = query.lower()
        found = [u for u in found if q == u["account_id"] or any(
            part.startswith(q) for part in (u["display_name"].lower(),
                                            *u["display_name"].lower().split(),
                                            (u["email"] or "").lower()))]
    return found


def _page(found: list[dict[str, object]], start_at: int, max_results: int, base: str,
          version: str) -> Response:
    """A page of users, as a bare list: ``maxResults`` above the cap is the cap."""
    return ok([render.account(u, base, shown(version))
               for u in found[start_at:start_at + min(max_results, USERS_CAP)]])


@router.get("/user/search", operation_id="find_users",
            summary="Find users")
async def find_users(version: Version, episode: EpisodeDep, base: Base,
                     query: Query_ = None, startAt: StartAt = 0,
                     maxResults: MaxResults = 50) -> Response:
    """Users by account id, name or email, a page at a time."""
    return _page(_users(episode, query), startAt, maxResults, base, version)


@router.get("/user/assignable/search", operation_id="find_assignable_users",
            summary="Find users assignable to issues")
async def assignable(version: Version, episode: EpisodeDep, base: Base,
                     project: Annotated[str | None, Query(max_length=40, description=(
                         "The project's key or id (unless issueKey is given)."))] = None,
                     issueKey: Annotated[str | None, Query(max_length=40, description=(
                         "The issue's key: the users who may be assigned it."))] = None,
                     query: Query_ = None, startAt: StartAt = 0,
                     maxResults: MaxResults = 50) -> Response:
    """Users who may be assigned the issue, or issues of the project: the active members of
    the roles holding Assignable user in its project."""
    if issueKey:
        project_id = issues.get(episode.db, issueKey, CALLER)["project_id"]
    elif project:
        project_id = found_project(episode, project)["id"]
    else:
        raise JiraError(400, ["Project or issue key must be specified"], code="project_needed")
    where, params = permissions.assignable(project_id)
    return _page(_users(episode, query, where, params), startAt, maxResults, base, version)


@router.get("/issuetype", operation_id="get_issue_types", summary="Get issue types")
async def issue_types(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """Every issue type (Sub-task is a sub-task type)."""
    return ok([render.issue_type(t[1], base, shown(version)) for t in data()["issue_types"]])


@router.get("/priority", operation_id="get_priorities", summary="Get priorities")
async def priorities(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """The priorities, highest first."""
    return ok([render.named("priority", "priorities", p[1], base, shown(version))
               for p in data()["priorities"]])


@router.get("/resolution", operation_id="get_resolutions", summary="Get resolutions")
async def resolutions(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """The resolutions a finishing transition may set."""
    return ok([render.named("resolution", "resolutions", r[1], base, shown(version))
               for r in data()["resolutions"]])


@router.get("/status", operation_id="get_statuses", summary="Get statuses")
async def statuses(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """Every status, with its category (To Do, In Progress, Done)."""
    return ok([render.status(s[1], base, shown(version)) for s in data()["statuses"]])
