"""The ticket page and what an agent does on it::

    GET  /agent/tickets/{id}          the ticket: subject, the conversation, the requester,
                                      the properties and the reply editor; ?macro= with
                                      ?macro_action=preview shows what a macro would do,
                                      apply puts its comment and changes into the editor
    POST /agent/tickets/{id}          the editor submitted ("Submit as <status>"): one update
                                      with the changed properties and the comment
                                      (?play= the view being played, its filters and
                                      ?played=: the editor's submit goes on to the next)
    GET  /agent/tickets/{id}/merge    merge into another ticket: ?target= its id, then the two
                                      comments, prefilled as the merge leaves them
    POST /agent/tickets/{id}/merge    the merge confirmed -> the ticket merged into

The editor's POST is the API's ``PUT /api/v2/tickets/{id}`` (the same request model, the
same ``change_of`` and ``tickets.update``: status rules, triggers, SLA, the audit, via web);
only what the agent changed is sent, as the workspace does. A macro is the API's
``macros.effect``: nothing is saved until the agent submits. A merge is the API's
``merges.merge_tickets`` and its job.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends
from replicas.runtime.params import Id

from ..changes import change_of
from ..rules import jobs, macros, merges, tickets
from ..rules.common import invalid, normal_tags, tags_of
from ..rules.conditions import PRIORITY_ORDER, TICKET_TYPES
from ..schemas import TicketIn
from ..world import custom_fields
from .common import (
    PAGES,
    STATUS_NAMES,
    VIA,
    PageRoute,
    agents,
    assignees,
    form,
    groups,
    names,
    validated,
)
from .views import Filters, FiltersDep, Played, PlayedIds

router = APIRouter(route_class=PageRoute, include_in_schema=False)

TicketId = Annotated[Id, Path()]
MacroParam = Annotated[Id | None, Query()]
IdParam = Annotated[Id | None, Query()]
DONE = {"updated": "Ticket updated.", "merged": "Tickets merged."}


def _id(text: str, name: str) -> int | None:
    """A select's id value ('' is none)."""
    if text == "":
        return None
    if not text.isdigit() or len(text) > 10:
        raise invalid(name, f"{text!r} is not an id", "id")
    return int(text)


def _changes(current: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
    """What the agent changed in the editor, as the API's ticket attributes."""
    wanted: dict[str, Any] = {
        "priority": given.get("priority"), "type": given.get("type"),
        "assignee_id": _id(given.get("assignee_id", ""), "assignee_id"),
        "group_id": _id(given.get("group_id", ""), "group_id")}
    out = {k: v for k, v in wanted.items() if k in given and v != current[k]}
    if given.get("status") != current["status"]:
        out["status"] = given.get("status")
    tags = normal_tags(given.get("tags", "").split())
    if "tags" in given and tags != tags_of(current):
        out["tags"] = tags
    custom = [{"id": fid, "value": given[f"field_{fid}"] or None}
              for fid, column, *_ in custom_fields()
              if f"field_{fid}" in given and (given[f"field_{fid}"] or None) != current[column]]
    if custom:
        out["custom_fields"] = custom
    body = given.get("comment_body", "")
    if body.strip():
        out["comment"] = {"body": body, "public": given.get("comment_public") != "false"}
    return out


def _conversation(db: sqlite3.Connection, ticket_id: int,
                  people: dict[int, str]) -> list[dict[str, Any]]:
    staff = {u["id"] for u in rows(db, "SELECT id FROM users WHERE role != 'end-user'")}
    return [{**c, "author": people.get(c["author_id"], f"User {c['author_id']}"),
             "staff": c["author_id"] in staff}
            for c in rows(db, "SELECT * FROM comments WHERE ticket_id = ? "
                          "ORDER BY created_at, id", (ticket_id,))]


def _macro(db: sqlite3.Connection, macro_id: int | None, ticket_id: int, action: str | None,
           now: Any) -> dict[str, Any] | None:
    """The picked macro's effect on the ticket (nothing saved)."""
    if macro_id is None or action is None:
        return None
    after, changes, comment = macros.effect(db, macro_id, ticket_id, now)
    title = get_row(db, "macros", macro_id)["title"]
    return {"id": macro_id, "title": title, "action": action, "after": after,
            "changes": changes, "comment": comment, "shown": _shown(db, changes)}


def _shown(db: sqlite3.Connection, changes: dict[str, Any]) -> list[tuple[str, str, str]]:
    """A macro's changes as the agent reads them: (column, field name, value)."""
    people, teams = names(db), {g["id"]: g["name"] for g in groups(db)}
    titles = {column: title for _, column, title, _ in custom_fields()}
    shown = []
    for key, value in changes.items():
        text = {"assignee_id": people.get(value, "nobody"), "group_id": teams.get(value, "-"),
                "tags": " ".join(value) if isinstance(value, list) else value,
                "status": STATUS_NAMES.get(value, value)}.get(key, value)
        shown.append((key, titles.get(key, key.removesuffix("_id")), str(text)))
    return shown


def _assignable(db: sqlite3.Connection, ticket: dict[str, Any]) -> list[dict[str, Any]]:
    """The agents to pick from, with the ticket's own assignee even if deactivated (the
    editor keeps what it does not change)."""
    found = agents(db)
    held = ticket["assignee_id"]
    if held is not None and all(a["id"] != held for a in found):
        found.append({"id": held, "name": assignees(db).get(held, str(held))})
    return found


@router.get("/agent/tickets/{ticket_id}")
async def ticket_page(request: Request, ticket_id: TicketId, episode: EpisodeDep,
                      filters: FiltersDep,
                      macro: MacroParam = None,
                      macro_action: Literal["preview", "apply"] | None = None,
                      done: Literal["updated", "merged"] | None = None,
                      play: IdParam = None, played: Played = "") -> Response:
    db = episode.db
    ticket = get_row(db, "tickets", ticket_id)
    playing = {"view": get_row(db, "views", play), "filters": filters, "played": played,
               "next": f"{played},{ticket_id}".lstrip(",")} if play is not None else None
    people = names(db)
    requester = get_row(db, "users", ticket["requester_id"])
    company = one(db, "SELECT * FROM organizations WHERE id = ?",
                  (requester["organization_id"],)) \
        if requester["organization_id"] is not None else None
    effect = _macro(db, macro, ticket_id, macro_action, episode.now())
    editor = {**ticket, "tags": tags_of(ticket)}
    comment = {"body": "", "public": True}
    if effect is not None and effect["action"] == "apply":
        editor = effect["after"]
        comment = effect["comment"] or comment
    statuses = [s for s in ("new", "open", "pending", "hold", "solved")
                if s != "new" or ticket["status"] == "new"]
    return PAGES.page(
        request, "ticket.html", ticket=ticket, tags=tags_of(ticket), people=people,
        requester=requester, organization=company,
        conversation=_conversation(db, ticket_id, people), editor=editor, comment=comment,
        statuses=statuses, status_names=STATUS_NAMES, priorities=PRIORITY_ORDER,
        types=TICKET_TYPES, agents=_assignable(db, ticket), groups=groups(db),
        fields=custom_fields(), effect=effect, notice=DONE.get(done or ""),
        macros=rows(db, "SELECT id, title FROM macros WHERE active ORDER BY position, id"),
        merged_into=ticket["merged_into_id"], play=playing,
        group_name=get_row(db, "groups", ticket["group_id"])["name"]
        if ticket["group_id"] is not None else None)


@router.post("/agent/tickets/{ticket_id}")
@performs("update_ticket")
async def submit(request: Request, ticket_id: TicketId, episode: EpisodeDep) -> Response:
    db, now = episode.db, episode.now()
    current = get_row(db, "tickets", ticket_id)
    given = await form(request)
    changes = _changes(current, given)
    sends(request, {"ticket": changes})
    if given.get("status") not in STATUS_NAMES:
        raise invalid("status", "choose a Submit as <status> button", "status_required")
    change = change_of(db, validated(TicketIn, changes), current, now)
    change.channel = VIA
    tickets.update(db, ticket_id, change, now)
    if given.get("play"):  # play mode: on to the view's next ticket
        view = _id(given["play"], "play")
        return redirect(request, f"/agent/filters/{view}/play",
                        **Filters(_id(given.get("play_organization", ""), "organization"),
                                  _id(given.get("play_group", ""), "group"),
                                  given.get("play_requester", "")).query(),
                        played=validated(PlayedIds, {"played": given.get("played", "")}
                                         ).played, done="updated")
    return redirect(request, f"/agent/tickets/{ticket_id}", done="updated")


@router.get("/agent/tickets/{ticket_id}/merge")
async def merge_page(request: Request, ticket_id: TicketId, episode: EpisodeDep,
                     target: Annotated[Id | None, Query()] = None) -> Response:
    db = episode.db
    source = get_row(db, "tickets", ticket_id)
    into = get_row(db, "tickets", target, field="target") if target is not None else None
    defaults = merges.default_comments(into, [source]) if into is not None else ("", "")
    return PAGES.page(request, "merge.html", ticket=source, target=into,
                      target_comment=defaults[0], source_comment=defaults[1])


@router.post("/agent/tickets/{ticket_id}/merge")
@performs("merge_tickets")  # the API's ticket is the target: this one is merged into it
async def merge(request: Request, ticket_id: TicketId, episode: EpisodeDep) -> Response:
    db, now = episode.db, episode.now()
    get_row(db, "tickets", ticket_id)
    given = await form(request)
    target = _id(given.get("target", ""), "target")
    body: dict[str, Any] = {"ids": [ticket_id],
                             "target_comment": given.get("target_comment", "").strip() or None,
                             "source_comment": given.get("source_comment", "").strip() or None,
                             "target_comment_is_public": given.get("target_public") == "true",
                             "source_comment_is_public": given.get("source_public") == "true"}
    sends(request, body, **({"ticket_id": target} if target is not None else {}))
    if target is None:
        raise invalid("target", "name the ticket to merge into", "target_required")
    results = merges.merge_tickets(
        db, target_id=target, source_ids=[ticket_id], target_comment=body["target_comment"],
        source_comment=body["source_comment"], target_public=body["target_comment_is_public"],
        source_public=body["source_comment_is_public"], now=now, channel=VIA)
    jobs.record(db, "merge", results, now)
    return redirect(request, f"/agent/tickets/{target}", done="merged")
