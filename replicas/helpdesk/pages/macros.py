"""The team's macros, as an admin keeps them in the workspace::

    GET  /agent/admin/macros        every macro: title, what it is for, active
    GET  /agent/admin/macros/new    the new macro's form: its title, description, comment
                                    (a public reply or an internal note) and the properties
                                    it sets (status, priority, type, group, tags to add and
                                    to remove)
    POST /agent/admin/macros        the form saved -> the list

Saving is the API's ``POST /api/v2/macros``: the same request model and the same
``records.create`` (required attributes, each action checked as the rules read it); the
form's choices are Zendesk's actions ``[{field, value}]``, the comment first.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends

from ..rules import records
from ..rules.conditions import PRIORITY_ORDER, TICKET_TYPES
from ..schemas import MacroIn
from .common import PAGES, STATUS_NAMES, PageRoute, form, groups, validated

router = APIRouter(route_class=PageRoute, include_in_schema=False)

# The form's fields that become actions, in the order the macro lists them.
ACTIONS = ("comment_value", "comment_mode_is_public", "status", "priority", "type",
           "group_id", "current_tags", "remove_tags")


@router.get("/agent/admin/macros")
async def macros_page(request: Request, episode: EpisodeDep,
                      done: Annotated[Literal["created"] | None, Query()] = None) -> Response:
    return PAGES.page(request, "macros.html", notice="Macro created." if done else None,
                      macros=rows(episode.db, "SELECT * FROM macros ORDER BY position, id"))


@router.get("/agent/admin/macros/new")
async def new_macro(request: Request, episode: EpisodeDep) -> Response:
    return PAGES.page(request, "macro_new.html", statuses={
        k: v for k, v in STATUS_NAMES.items() if k not in ("new", "closed")},
        priorities=PRIORITY_ORDER, types=TICKET_TYPES, groups=groups(episode.db))


@router.post("/agent/admin/macros")
@performs("create_macro")
async def create_macro(request: Request, episode: EpisodeDep) -> Response:
    given = await form(request)
    if given.get("comment_value", "").strip():
        given["comment_mode_is_public"] = given.get("comment_mode_is_public", "true")
    else:
        given.pop("comment_mode_is_public", None)
    actions = [{"field": name, "value": given[name]} for name in ACTIONS
               if given.get(name, "").strip()]
    fields = {"title": given.get("title", ""), "actions": actions,
              "description": given.get("description") or None}
    sends(request, {"macro": fields})
    macro = validated(MacroIn, fields)
    records.create(episode.db, "macros", macro.model_dump(exclude_unset=True,
                                                          exclude_none=True), episode.now())
    return redirect(request, "/agent/admin/macros", done="created")
