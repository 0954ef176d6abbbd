"""An admin's writes to the team's records: create, update and delete organizations,
groups, macros, views and triggers (Zendesk's POST, PUT and DELETE on each resource)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel
from starlette.responses import Response

from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..rules import records
from ..rules.common import invalid
from ..schemas import (
    GroupBody,
    GroupResult,
    MacroBody,
    MacroResult,
    OrganizationBody,
    OrganizationResult,
    TriggerBody,
    TriggerResult,
    ViewBody,
    ViewIn,
    ViewResult,
)
from .common import Base, GroupId, OrganizationId

router = APIRouter()
RULES: list[str | Enum] = ["business rules"]

Row = dict[str, Any]
Convert = Callable[[Row, str], Row]
MacroId = Annotated[Id, Path(description="Id of the macro.")]
ViewId = Annotated[Id, Path(description="Id of the view.")]
TriggerId = Annotated[Id, Path(description="Id of the trigger.")]
# What a record needs to be created, by table.
_REQUIRED = {"organizations": ("name",), "groups": ("name",),
             "macros": ("title", "actions"), "views": ("title", "conditions"),
             "triggers": ("title", "conditions", "actions")}
_RENDER: dict[str, Convert] = {
    "organizations": render.organization, "groups": render.group, "macros": render.macro,
    "views": render.view, "triggers": render.trigger}


def _sent(model: BaseModel) -> Row:
    return model.model_dump(exclude_unset=True, exclude_none=True)


def _save(episode: EpisodeDep, base: str, table: str, values: Row,
          record_id: int | None = None) -> Response:
    """Create (``record_id`` None: 201) or update a record of ``table``, answered as
    ``{<resource>: {...}}``."""
    db, now = episode.db, episode.now()
    if record_id is None:
        for name in _REQUIRED[table]:
            if not values.get(name):
                raise invalid(name, "cannot be blank", "blank")
        row = records.create(db, table, values, now)
    else:
        row = records.update(db, table, record_id, values, now)
    key = table[:-1]
    return ok({key: _RENDER[table](row, base)}, 201 if record_id is None else 200)


def _deleted(episode: EpisodeDep, table: str, record_id: int) -> Response:
    records.delete(episode.db, table, record_id)
    return Response(status_code=204)


def _organization(body: OrganizationBody) -> Row:
    values = _sent(body.organization)
    if "domain_names" in values:
        values["domain"] = (values.pop("domain_names") or [None])[0]
    return values


def _view(view: ViewIn) -> Row:
    """A view's attributes as its columns: conditions {all, any}, execution {sort_by,
    sort_order, columns}."""
    values = _sent(view)
    conditions = values.pop("conditions", {})
    for key in ("all", "any"):
        if key in values:
            conditions[key] = values.pop(key)
    if conditions:
        values["conditions"] = conditions
    output = values.pop("output", None)
    if output is not None:
        values["execution"] = {"sort_by": output.get("sort_by", "created_at"),
                               "sort_order": output.get("sort_order", "asc"),
                               **({"columns": output["columns"]} if "columns" in output
                                  else {})}
    return values


# ---------------------------------------------------------------------------
# Organizations and groups
# ---------------------------------------------------------------------------


@router.post("/api/v2/organizations", operation_id="create_organization", tags=["users"],
             summary="Create an organization", status_code=201,
             response_model=OrganizationResult)
async def create_organization(body: OrganizationBody, episode: EpisodeDep,
                              base: Base) -> Response:
    """A new organization: name (unique, required), its email domain, notes."""
    return _save(episode, base, "organizations", _organization(body))


@router.put("/api/v2/organizations/{organization_id}", operation_id="update_organization",
            tags=["users"], summary="Update an organization",
            response_model=OrganizationResult)
async def update_organization(organization_id: OrganizationId, body: OrganizationBody,
                              episode: EpisodeDep, base: Base) -> Response:
    """Change the attributes sent: name (unique), domain, notes."""
    return _save(episode, base, "organizations", _organization(body), organization_id)


@router.delete("/api/v2/organizations/{organization_id}", operation_id="delete_organization",
               tags=["users"], summary="Delete an organization", status_code=204,
               response_class=Response)
async def delete_organization(organization_id: OrganizationId,
                              episode: EpisodeDep) -> Response:
    """Delete the organization: its people and tickets are left without one."""
    return _deleted(episode, "organizations", organization_id)


@router.post("/api/v2/groups", operation_id="create_group", tags=["users"],
             summary="Create a group", status_code=201, response_model=GroupResult)
async def create_group(body: GroupBody, episode: EpisodeDep, base: Base) -> Response:
    """A new agent group: name (unique, required), description."""
    return _save(episode, base, "groups", _sent(body.group))


@router.put("/api/v2/groups/{group_id}", operation_id="update_group", tags=["users"],
            summary="Update a group", response_model=GroupResult)
async def update_group(group_id: GroupId, body: GroupBody, episode: EpisodeDep,
                       base: Base) -> Response:
    """Change the group's name or description."""
    return _save(episode, base, "groups", _sent(body.group), group_id)


@router.delete("/api/v2/groups/{group_id}", operation_id="delete_group", tags=["users"],
               summary="Delete a group", status_code=204, response_class=Response)
async def delete_group(group_id: GroupId, episode: EpisodeDep) -> Response:
    """Delete the group: it is kept as deleted (tickets may name it) and its memberships
    end. The default group cannot be deleted."""
    return _deleted(episode, "groups", group_id)


# ---------------------------------------------------------------------------
# Macros, views, triggers
# ---------------------------------------------------------------------------


@router.post("/api/v2/macros", operation_id="create_macro", tags=RULES, summary="Create a macro",
             status_code=201, response_model=MacroResult)
async def create_macro(body: MacroBody, episode: EpisodeDep, base: Base) -> Response:
    """A new macro: title and actions required ([{field, value}]: comment_value is its
    reply, comment_mode_is_public false makes it a note; status, priority, type, group_id,
    assignee_id, set_tags, current_tags, remove_tags)."""
    return _save(episode, base, "macros", _sent(body.macro))


@router.put("/api/v2/macros/{macro_id}", operation_id="update_macro", tags=RULES,
            summary="Update a macro", response_model=MacroResult)
async def update_macro(macro_id: MacroId, body: MacroBody, episode: EpisodeDep,
                       base: Base) -> Response:
    """Change the attributes sent; actions replace all its actions."""
    return _save(episode, base, "macros", _sent(body.macro), macro_id)


@router.delete("/api/v2/macros/{macro_id}", operation_id="delete_macro", tags=RULES,
               summary="Delete a macro", status_code=204, response_class=Response)
async def delete_macro(macro_id: MacroId, episode: EpisodeDep) -> Response:
    """Delete the macro."""
    return _deleted(episode, "macros", macro_id)


@router.post("/api/v2/views", operation_id="create_view", tags=["views"],
             summary="Create a view", status_code=201, response_model=ViewResult)
async def create_view(body: ViewBody, episode: EpisodeDep, base: Base) -> Response:
    """A new view: title and at least one condition in all ([{field, operator, value}],
    as triggers'), output {columns, sort_by, sort_order}."""
    return _save(episode, base, "views", _view(body.view))


@router.put("/api/v2/views/{view_id}", operation_id="update_view", tags=["views"],
            summary="Update a view", response_model=ViewResult)
async def update_view(view_id: ViewId, body: ViewBody, episode: EpisodeDep,
                      base: Base) -> Response:
    """Change the attributes sent; all/any replace its conditions."""
    return _save(episode, base, "views", _view(body.view), view_id)


@router.delete("/api/v2/views/{view_id}", operation_id="delete_view", tags=["views"],
               summary="Delete a view", status_code=204, response_class=Response)
async def delete_view(view_id: ViewId, episode: EpisodeDep) -> Response:
    """Delete the view."""
    return _deleted(episode, "views", view_id)


@router.post("/api/v2/triggers", operation_id="create_trigger", tags=RULES,
             summary="Create a trigger", status_code=201, response_model=TriggerResult)
async def create_trigger(body: TriggerBody, episode: EpisodeDep, base: Base) -> Response:
    """A new trigger: title, conditions {all, any} and actions required; it runs after
    every ticket create and update from now on, in position order (last by default)."""
    return _save(episode, base, "triggers", _sent(body.trigger))


@router.put("/api/v2/triggers/{trigger_id}", operation_id="update_trigger", tags=RULES,
            summary="Update a trigger", response_model=TriggerResult)
async def update_trigger(trigger_id: TriggerId, body: TriggerBody, episode: EpisodeDep,
                         base: Base) -> Response:
    """Change the attributes sent (active false stops it running)."""
    return _save(episode, base, "triggers", _sent(body.trigger), trigger_id)


@router.delete("/api/v2/triggers/{trigger_id}", operation_id="delete_trigger", tags=RULES,
               summary="Delete a trigger", status_code=204, response_class=Response)
async def delete_trigger(trigger_id: TriggerId, episode: EpisodeDep) -> Response:
    """Delete the trigger."""
    return _deleted(episode, "triggers", trigger_id)
