"""Projects, their components and versions (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import permissions, versions
from ..world import data
from .common import CALLER, Base, MaxResults, StartAt, Version, page_bean, shown

router = APIRouter(tags=["projects"])
ProjectRef = Annotated[str, Path(max_length=40, pattern=r"^[A-Za-z0-9]+$",
                                 description="The project's key or id.")]
CAP = 100  # project search's page size cap (50 by default)


def found_project(episode: EpisodeDep, ref: str) -> dict[str, Any]:
    """The project ``ref`` names (key or id) if you may browse it, else Jira's 404."""
    found = one(episode.db, "SELECT * FROM projects WHERE key = ? OR CAST(id AS TEXT) = ?",
                (ref.upper(), ref))
    if found is None or not permissions.has(episode.db, found["id"], CALLER,
                                            "BROWSE_PROJECTS"):
        raise JiraError(404, [f"No project could be found with key '{ref}'."],
                        code="project_not_found")
    return found


def _full(episode: EpisodeDep, row: dict[str, Any], base: str, v: str) -> dict[str, Any]:
    lead = one(episode.db, "SELECT * FROM users WHERE id = ?", (row["lead_id"],))
    return {**render.project(row, base, v), "description": row["description"],
            "lead": render.account(lead, base, v), "assigneeType": "PROJECT_LEAD",
            "components": [render.component(c, base, v) for c in _components(episode, row)],
            "versions": [render.fix_version(x, base, v) for x in _versions(episode, row)],
            "issueTypes": [render.issue_type(t[1], base, v) for t in data()["issue_types"]]}


def _components(episode: EpisodeDep, project: dict[str, Any]) -> list[dict[str, Any]]:
    return rows(episode.db, "SELECT * FROM components WHERE project_id = ? ORDER BY name",
                (project["id"],))


def _versions(episode: EpisodeDep, project: dict[str, Any]) -> list[dict[str, Any]]:
    return rows(episode.db, "SELECT * FROM versions WHERE project_id = ? ORDER BY "
                "release_date, id", (project["id"],))


def _browsable(episode: EpisodeDep) -> list[dict[str, Any]]:
    shown = set(permissions.browsable(episode.db, CALLER))
    return [p for p in rows(episode.db, "SELECT * FROM projects ORDER BY key")
            if p["id"] in shown]


@router.get("/project", operation_id="get_projects", summary="Get all projects")
async def projects(version: Version, episode: EpisodeDep, base: Base) -> Response:
    """Every project you may browse (unpaged; /project/search pages)."""
    return ok([render.project(p, base, shown(version)) for p in _browsable(episode)])


@router.get("/project/search", operation_id="search_projects",
            summary="Get projects paginated")
async def search_projects(version: Version, episode: EpisodeDep, base: Base,
                          query: Annotated[str | None, Query(max_length=200, description=(
                              "Matches the key or name, case-insensitively."))] = None,
                          startAt: StartAt = 0, maxResults: MaxResults = 50) -> Response:
    """Projects you may browse, a page at a time."""
    q = (query or "").lower()
    found = [render.project(p, base, shown(version)) for p in _browsable(episode)
             if q in p["key"].lower() or q in p["name"].lower()]
    return ok(page_bean(found, startAt, maxResults, CAP))


@router.get("/project/{project}", operation_id="get_project", summary="Get a project")
async def get_project(version: Version, project: ProjectRef, episode: EpisodeDep,
                      base: Base) -> Response:
    """One project, by key or id, with its lead, components, versions and issue types."""
    return ok(_full(episode, found_project(episode, project), base, shown(version)))


@router.get("/project/{project}/components", operation_id="get_project_components",
            summary="Get a project's components")
async def project_components(version: Version, project: ProjectRef, episode: EpisodeDep,
                             base: Base) -> Response:
    """The project's components (unpaged), by name."""
    found = found_project(episode, project)
    return ok([_component(episode, c, found, base, shown(version))
               for c in _components(episode, found)])


def _component(episode: EpisodeDep, row: dict[str, Any], project: dict[str, Any], base: str,
               v: str) -> dict[str, Any]:
    """A component with its lead (the default assignee of its issues) and project."""
    lead = one(episode.db, "SELECT * FROM users WHERE id = ?", (row["lead_id"],))
    return {**render.component(row, base, v), "lead": render.account(lead, base, v),
            "leadAccountId": lead["account_id"] if lead else None,
            "assigneeType": "COMPONENT_LEAD" if lead else "PROJECT_DEFAULT",
            "projectId": project["id"], "project": project["key"]}


@router.get("/project/{project}/versions", operation_id="get_project_versions",
            summary="Get a project's versions")
async def project_versions(version: Version, project: ProjectRef, episode: EpisodeDep,
                           base: Base) -> Response:
    """The project's versions (unpaged), by release date."""
    found = found_project(episode, project)
    return ok([render.fix_version(x, base, shown(version)) for x in _versions(episode, found)])


VersionId = Annotated[Id, Path(description="The version's id.")]
ComponentId = Annotated[Id, Path(description="The component's id.")]
Json = Annotated[dict[str, Any], Body(description="Jira's request body.")]


@router.get("/version/{version_id}", operation_id="get_version", summary="Get a version")
async def get_version(version: Version, version_id: VersionId, episode: EpisodeDep,
                      base: Base) -> Response:
    """One version: released or not, its release date."""
    return ok(render.fix_version(versions.find(episode.db, "versions", version_id, CALLER),
                                 base, shown(version)))


@router.post("/version", operation_id="create_version", summary="Create a version",
             status_code=201)
async def create_version(version: Version, body: Json, episode: EpisodeDep,
                         base: Base) -> Response:
    """A new version of a project ({name, projectId | project, description?, startDate?,
    releaseDate?, released?, archived?}): needs Administer projects."""
    made = versions.create_version(episode.db, body, CALLER, episode.now())
    return ok(render.fix_version(made, base, shown(version)), 201)


@router.put("/version/{version_id}", operation_id="update_version",
            summary="Update a version")
async def update_version(version: Version, version_id: VersionId, body: Json,
                         episode: EpisodeDep, base: Base) -> Response:
    """Change a version (what the body gives); release it with {"released": true}, and
    move its unresolved issues with moveUnfixedIssuesTo (the other version's self URL or
    id)."""
    made = versions.update_version(episode.db, version_id, body, CALLER, episode.now())
    return ok(render.fix_version(made, base, shown(version)))


@router.delete("/version/{version_id}", operation_id="delete_version",
               summary="Delete a version", status_code=204)
async def delete_version(version: Version, version_id: VersionId, episode: EpisodeDep,
                         moveFixIssuesTo: Annotated[str | None, Query(
                             max_length=20, pattern="^[1-9][0-9]*$", description=(
                                 "The version its issues get instead (same project)."))]
                         = None,
                         moveAffectedIssuesTo: Annotated[str | None, Query(
                             max_length=20, pattern="^[1-9][0-9]*$", description=(
                                 "Affects versions are not kept: accepted, no effect."))]
                         = None) -> Response:
    """Delete a version: its issues lose it, or get moveFixIssuesTo instead."""
    versions.delete(episode.db, "versions", version_id, moveFixIssuesTo, CALLER,
                    episode.now())
    return Response(status_code=204)


@router.get("/component/{component_id}", operation_id="get_component",
            summary="Get a component")
async def get_component(version: Version, component_id: ComponentId, episode: EpisodeDep,
                        base: Base) -> Response:
    """One component, with its lead."""
    return ok(_found_component(episode, component_id, base, version))


def _found_component(episode: EpisodeDep, component_id: int, base: str,
                     version: str) -> dict[str, Any]:
    found = versions.find(episode.db, "components", component_id, CALLER)
    project = one(episode.db, "SELECT * FROM projects WHERE id = ?", (found["project_id"],))
    assert project is not None
    return _component(episode, found, project, base, shown(version))


@router.post("/component", operation_id="create_component", summary="Create a component",
             status_code=201)
async def create_component(version: Version, body: Json, episode: EpisodeDep,
                           base: Base) -> Response:
    """A new component of a project ({name, project (key) | projectId, description?,
    leadAccountId?}): needs Administer projects."""
    made = versions.create_component(episode.db, body, CALLER)
    return ok(_found_component(episode, made["id"], base, version), 201)


@router.put("/component/{component_id}", operation_id="update_component",
            summary="Update a component")
async def update_component(version: Version, component_id: ComponentId, body: Json,
                           episode: EpisodeDep, base: Base) -> Response:
    """Change a component (what the body gives; leadAccountId "" removes the lead)."""
    versions.update_component(episode.db, component_id, body, CALLER)
    return ok(_found_component(episode, component_id, base, version))


@router.delete("/component/{component_id}", operation_id="delete_component",
               summary="Delete a component", status_code=204)
async def delete_component(version: Version, component_id: ComponentId, episode: EpisodeDep,
                           moveIssuesTo: Annotated[str | None, Query(
                               max_length=20, pattern="^[1-9][0-9]*$", description=(
                                   "The component its issues get instead (same project)."))]
                           = None) -> Response:
    """Delete a component: its issues lose it, or get moveIssuesTo instead."""
    versions.delete(episode.db, "components", component_id, moveIssuesTo, CALLER,
                    episode.now())
    return Response(status_code=204)
