"""The workspace's people pages::

    GET  /agent/users/{id}                                  the user: profile, identities,
                                                            organization, requested tickets
    POST /agent/users/{id}                                  the profile form: name, phone,
                                                            tier, notes
    POST /agent/users/{id}/identities                       add an email or phone number
    POST /agent/users/{id}/identities/{identity}/primary    make it the user's primary one
    POST /agent/users/{id}/identities/{identity}/delete     remove it
    POST /agent/users/{id}/delete                           delete the user (Zendesk's soft
                                                            delete: they stay, inactive)
    GET  /agent/organizations/{id}                          the organization: details, its
                                                            users and tickets

Every form is the API's request (``schemas``: UserIn, IdentityIn) through the API's rules
(``rules/users``, ``rules/records``): a refused one changes nothing and says why on a page.
Each write answers 303 to the user's page with what was done.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends

from ..rules import records, users
from ..rules.conditions import TIERS
from ..schemas import IdentityIn, UserIn
from .common import PAGES, PageRoute, form, validated

router = APIRouter(route_class=PageRoute, include_in_schema=False)

Id = Annotated[int, PathParam(ge=1, le=2**31 - 1)]
Row = dict[str, Any]
DONE = {"saved": "Profile saved.", "added": "Identity added.",
        "primary": "Primary identity changed.", "removed": "Identity removed.",
        "deleted": "User deleted."}
Done = Annotated[Literal["saved", "added", "primary", "removed", "deleted"] | None, Query()]
TICKETS_SHOWN = 100  # a person's or organization's tickets listed, newest first


def _tickets(episode: EpisodeDep, column: str, value: int) -> dict[str, Any]:
    """The newest tickets whose ``column`` is ``value`` and how many there are."""
    count = one(episode.db, f"SELECT count(*) AS n FROM tickets WHERE {column} = ?", (value,))
    return {"count": count["n"] if count else 0, "items": rows(
        episode.db, f"SELECT * FROM tickets WHERE {column} = ? ORDER BY created_at DESC, "
        f"id DESC LIMIT {TICKETS_SHOWN}", (value,))}


@router.get("/agent/users/{user_id}")
async def user_page(request: Request, user_id: Id, episode: EpisodeDep,
                    done: Done = None) -> Response:
    db = episode.db
    user = get_row(db, "users", user_id)
    organization = (get_row(db, "organizations", user["organization_id"])
                    if user["organization_id"] else None)
    identities = rows(db, "SELECT * FROM user_identities WHERE user_id = ? ORDER BY type, id",
                      (user_id,))
    return PAGES.page(request, "user.html", user=user, organization=organization,
                      identities=identities, tickets=_tickets(episode, "requester_id", user_id),
                      tiers=TIERS,
                      notice=DONE[done] if done else "")


@router.post("/agent/users/{user_id}")
@performs("update_user")
async def save_profile(request: Request, user_id: Id, episode: EpisodeDep) -> Response:
    fields = await form(request)
    user = {"name": fields.get("name", ""), "phone": fields.get("phone", "").strip() or None,
            "notes": fields.get("notes", ""),
            "user_fields": {"tier": fields.get("tier", "") or None}}
    sends(request, {"user": user})
    given = validated(UserIn, user)
    users.update(episode.db, user_id, given.columns(), episode.now())
    return redirect(request, f"/agent/users/{user_id}", done="saved")


@router.post("/agent/users/{user_id}/identities")
@performs("create_user_identity")
async def add_identity(request: Request, user_id: Id, episode: EpisodeDep) -> Response:
    fields = await form(request)
    identity = {"type": fields.get("type", ""), "value": fields.get("value", "").strip()}
    sends(request, {"identity": identity})
    given = validated(IdentityIn, identity)
    users.add_identity(episode.db, user_id, given.type, given.value, episode.now())
    return redirect(request, f"/agent/users/{user_id}", done="added")


@router.post("/agent/users/{user_id}/identities/{identity_id}/primary")
@performs("make_user_identity_primary")
async def make_primary(request: Request, user_id: Id, identity_id: Id,
                       episode: EpisodeDep) -> Response:
    get_row(episode.db, "users", user_id)
    users.make_primary(episode.db, user_id, identity_id, episode.now())
    return redirect(request, f"/agent/users/{user_id}", done="primary")


@router.post("/agent/users/{user_id}/identities/{identity_id}/delete")
@performs("delete_user_identity")
async def delete_identity(request: Request, user_id: Id, identity_id: Id,
                          episode: EpisodeDep) -> Response:
    get_row(episode.db, "users", user_id)
    users.delete_identity(episode.db, user_id, identity_id, episode.now())
    return redirect(request, f"/agent/users/{user_id}", done="removed")


@router.post("/agent/users/{user_id}/delete")
@performs("delete_user")
async def delete_user(request: Request, user_id: Id, episode: EpisodeDep) -> Response:
    records.delete_user(episode.db, user_id, episode.now())
    return redirect(request, f"/agent/users/{user_id}", done="deleted")


@router.get("/agent/organizations/{organization_id}")
async def organization_page(request: Request, organization_id: Id,
                            episode: EpisodeDep) -> Response:
    db = episode.db
    organization = get_row(db, "organizations", organization_id)
    people = rows(db, "SELECT * FROM users WHERE organization_id = ? ORDER BY name, id",
                  (organization_id,))
    return PAGES.page(request, "organization.html", organization=organization, people=people,
                      tickets=_tickets(episode, "organization_id", organization_id))
