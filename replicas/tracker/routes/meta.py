"""Create and edit metadata (platform v2/v3): which fields an issue type's create screen
and an issue's edit screen take, each with its schema, the operations ``update`` may use,
whether it is required and its allowed values. Derived from the rules' screens
(rules/fields.py): a field the rules take is described here, or the import fails."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import issues as issue_rules
from ..rules import permissions
from ..rules.fields import EDIT_SCREEN, LISTS, SEVERITY_IDS
from ..world import data
from .common import CALLER, Base, IssueRef, MaxResults, StartAt, Version, page_bean, shown
from .projects import ProjectRef, found_project

router = APIRouter(tags=["issues"])
CAP = 50
# field -> (name, JSON schema type, items type or None); custom fields from world.yaml.
_SYSTEM = {
    "project": ("Project", "project", None), "issuetype": ("Issue Type", "issuetype", None),
    "summary": ("Summary", "string", None), "description": ("Description", "string", None),
    "priority": ("Priority", "priority", None), "labels": ("Labels", "array", "string"),
    "components": ("Components", "array", "component"),
    "fixVersions": ("Fix versions", "array", "version"), "duedate": ("Due date", "date", None),
    "timetracking": ("Time tracking", "timetracking", None),
    "comment": ("Comment", "comments-page", None), "assignee": ("Assignee", "user", None),
    "parent": ("Parent", "issuelink", None),
}
FIELDS = {**_SYSTEM, **{cf[0]: (cf[1], cf[3], "json" if cf[3] == "array" else None)
                        for cf in data()["custom_fields"]}}
CREATE_SCREEN = frozenset({"project", "issuetype"}) | EDIT_SCREEN - {"comment"}
assert set(FIELDS) >= EDIT_SCREEN | CREATE_SCREEN, "a field the rules take is undescribed"
REQUIRED_ON_CREATE = frozenset({"project", "issuetype", "summary"})


def _operations(field: str) -> list[str]:
    if field in LISTS:
        return ["add", "set", "remove"]
    return {"comment": ["add", "edit", "remove"], "timetracking": ["set", "edit"]}.get(
        field, ["set"])


def _allowed(episode: EpisodeDep, field: str, project: dict[str, Any], base: str,
             v: str) -> list[Any] | None:
    if field == "priority":
        return [render.named("priority", "priorities", p[1], base, v)
                for p in data()["priorities"]]
    if field == "components":
        return [render.component(c, base, v) for c in rows(
            episode.db, "SELECT * FROM components WHERE project_id = ? ORDER BY name",
            (project["id"],))]
    if field == "fixVersions":
        return [render.fix_version(x, base, v) for x in rows(
            episode.db, "SELECT * FROM versions WHERE project_id = ? AND NOT archived "
            "ORDER BY release_date, id", (project["id"],))]
    if field == "customfield_10030":
        return [{"value": s, "id": i} for i, s in SEVERITY_IDS.items()]
    if field == "project":
        return [render.project(project, base, v)]
    return None


def _field(episode: EpisodeDep, field: str, project: dict[str, Any], base: str, v: str,
           required: bool) -> dict[str, Any]:
    name, kind, items = FIELDS[field]
    schema: dict[str, Any] = {"type": kind}
    if items:
        schema["items"] = items
    schema["custom" if field.startswith("customfield_") else "system"] = field
    out = {"fieldId": field, "key": field, "name": name, "required": required,
           "schema": schema, "operations": _operations(field), "hasDefaultValue": False}
    allowed = _allowed(episode, field, project, base, v)
    if allowed is not None:
        out["allowedValues"] = allowed
    return out


def _issue_type(type_id: str) -> str:
    found: str | None = next((t[1] for t in data()["issue_types"] if str(t[0]) == type_id), None)
    if found is None:
        raise JiraError(404, [f"Issue type with id '{type_id}' does not exist."],
                        code="issue_type_not_found")
    return found


@router.get("/issue/createmeta/{project}/issuetypes", operation_id="get_create_issue_types",
            summary="Get create metadata issue types for a project")
async def create_types(version: Version, project: ProjectRef, episode: EpisodeDep,
                       base: Base, startAt: StartAt = 0,
                       maxResults: MaxResults = CAP) -> Response:
    """The issue types you may create in the project."""
    found = found_project(episode, project)
    permissions.require(episode.db, found["id"], CALLER, "create")
    return ok(page_bean([render.issue_type(t[1], base, shown(version))
                         for t in data()["issue_types"]], startAt, maxResults, CAP,
                        key="issueTypes"))


@router.get("/issue/createmeta/{project}/issuetypes/{issue_type}",
            operation_id="get_create_fields", summary="Get create field metadata")
async def create_fields(version: Version, project: ProjectRef,
                        issue_type: Annotated[str, Path(max_length=20, pattern=r"^[0-9]+$",
                                                        description="The issue type's id.")],
                        episode: EpisodeDep, base: Base, startAt: StartAt = 0,
                        maxResults: MaxResults = CAP) -> Response:
    """The fields the create screen takes for this issue type: required ones, schemas,
    allowed values (components, versions, priorities, severities)."""
    found = found_project(episode, project)
    permissions.require(episode.db, found["id"], CALLER, "create")
    _issue_type(issue_type)
    v = shown(version)
    return ok(page_bean([_field(episode, f, found, base, v, f in REQUIRED_ON_CREATE)
                         for f in sorted(CREATE_SCREEN)], startAt, maxResults, CAP,
                        key="fields"))


@router.get("/issue/{issue}/editmeta", operation_id="get_edit_issue_meta",
            summary="Get edit issue metadata")
async def edit_meta(version: Version, issue: IssueRef, episode: EpisodeDep,
                    base: Base) -> Response:
    """The fields you may edit on this issue now (none without Edit issues)."""
    found = issue_rules.get(episode.db, issue, CALLER)
    project = found_project(episode, str(found["project_id"]))
    if not permissions.has(episode.db, found["project_id"], CALLER, "EDIT_ISSUES"):
        return ok({"fields": {}})
    v = shown(version)
    return ok({"fields": {f: {k: x for k, x in _field(episode, f, project, base, v,
                                                        f == "summary").items()
                              if k != "fieldId"} for f in sorted(EDIT_SCREEN)}})
