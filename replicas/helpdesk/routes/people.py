"""People: users (end users and staff in one resource, as in Zendesk) and their identities,
organizations, groups and group memberships."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import like_pattern
from replicas.runtime.params import Id
from replicas.runtime.responses import ok
from workgym_core.errors import InvalidRequest

from .. import render
from ..listing import PagingDep, sideloads, table_page
from ..rules import jobs, merges, records, users
from ..rules.common import ACTING_AGENT_ID, invalid
from ..schemas import (
    GroupResult,
    Groups,
    Identities,
    IdentityBody,
    IdentityList,
    IdentityResult,
    JobStatusResult,
    MembershipResult,
    Memberships,
    OrganizationResult,
    Organizations,
    Role,
    UserBody,
    UserIn,
    UserMergeBody,
    UserResult,
    Users,
    UsersBody,
)
from .common import Base, GroupId, Ids, OrganizationId, UserId, ids_param

router = APIRouter(tags=["users"])

Row = dict[str, Any]
IdentityId = Annotated[Id, Path(description="Id of the identity.")]
MembershipId = Annotated[Id, Path(description="Id of the group membership.")]
UserInclude = Annotated[str | None, Query(max_length=100, description=(
    "Sideloads, comma-separated: organizations, groups (each user's default group), "
    "identities."))]
MembershipInclude = Annotated[str | None, Query(max_length=100, description=(
    "Sideloads, comma-separated: users, groups."))]
ESCAPE = " ESCAPE '\\'"
# Zendesk search syntax a client may use in `query`: `email:jane@example.com`, `name:Jane`.
_KEYED = re.compile(r"^\s*(email|name|phone|role|external_id)\s*:\s*(.+?)\s*$", re.IGNORECASE)


# ---------------------------------------------------------------------------
# Users
# ---------------------------------------------------------------------------


def _user_sideloads(db: Any, include: str | None, items: list[Row], base: str) -> Row:
    asked = {part.strip() for part in (include or "").split(",")}
    refs = [{"organization_id": u["organization_id"], "group_id": u["default_group_id"]}
            for u in items]
    out = sideloads(db, ",".join(asked & {"organizations", "groups"}), refs, base)
    if "identities" in asked:
        ids = [u["id"] for u in items]
        found = rows(db, f"SELECT * FROM user_identities WHERE user_id IN "
                     f"({','.join('?' * len(ids))}) ORDER BY user_id, id", ids) if ids else []
        out["identities"] = [render.identity(r, base) for r in found]
    return out


def _users_page(episode: EpisodeDep, paging: PagingDep, base: str, include: str | None,
                where: list[str], params: list[Any]) -> Response:
    db = episode.db
    found = table_page(db, paging, "users", where, params, "id",
                       lambda row: render.user(row, base))
    return ok({**found, **_user_sideloads(db, include, found["users"], base)})


@router.get("/api/v2/users", operation_id="list_users", summary="List users", response_model=Users)
async def list_users(episode: EpisodeDep, paging: PagingDep, base: Base,
                     role: Annotated[Role | None, Query(description=(
                         "Only this role: end-user, agent or admin."))] = None,
                     include: UserInclude = None) -> Response:
    """End users (customers) and staff (agents, admins) by id, paged (offset: page/per_page;
    cursor: page[size]/page[after]). To find someone by name, email or phone, use
    GET /api/v2/users/search. Deleted (merged) users have active false."""
    where, params = (["role = ?"], [role]) if role else ([], [])
    return _users_page(episode, paging, base, include, where, params)


@router.get("/api/v2/users/me", operation_id="show_current_user",
            summary="Show the current user", response_model=UserResult)
async def show_me(episode: EpisodeDep, base: Base) -> Response:
    """The user the API acts as (you): user 1, an agent."""
    return ok({"user": render.user(get_row(episode.db, "users", ACTING_AGENT_ID), base)})


@router.get("/api/v2/users/show_many", operation_id="show_many_users",
            summary="Show many users", response_model=Users)
async def show_many_users(episode: EpisodeDep, ids: Ids, base: Base,
                          include: UserInclude = None) -> Response:
    """The users with these ids (unknown ids are left out)."""
    wanted = ids_param(ids)
    db = episode.db
    found = rows(db, f"SELECT * FROM users WHERE id IN ({','.join('?' * len(wanted))}) "
                 "ORDER BY id", wanted)
    items = [render.user(r, base) for r in found]
    return ok({"users": items, **_user_sideloads(db, include, items, base)})


def _search_where(db: Any, query: str | None, external_id: str | None
                  ) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    if external_id is not None:
        where.append("legacy_id = ?")
        params.append(external_id)
    if query is None or not query.strip():
        return where, params
    keyed = _KEYED.match(query)
    key, text = (keyed.group(1).lower(), keyed.group(2)) if keyed else ("", query.strip())
    if key == "role":
        where.append("role = ?")
        params.append(text.lower())
    elif key == "external_id":
        where.append("legacy_id = ?")
        params.append(text)
    elif key == "name":
        where.append("name LIKE ?" + ESCAPE)
        params.append(like_pattern(text))
    else:
        owner = users.owner_of(db, "email", text) if "@" in text and key in ("", "email") \
            else None
        if owner is not None:
            where.append("id = ?")
            params.append(owner["id"])
        else:
            pattern = like_pattern(text)
            kinds = {"email": ["email"], "phone": ["phone_number"]}.get(
                key, ["email", "phone_number"])
            columns = {"email": ["email"], "phone": ["phone"]}.get(key, ["name", "email", "phone"])
            likes = [f"{column} LIKE ?{ESCAPE}" for column in columns]
            marks = ",".join("?" * len(kinds))
            likes.append(f"id IN (SELECT user_id FROM user_identities WHERE type IN ({marks}) "
                         f"AND value LIKE ?{ESCAPE})")
            where.append(f"({' OR '.join(likes)})")
            params.extend([*[pattern] * len(columns), *kinds, pattern])
    return where, params


@router.get("/api/v2/users/search", operation_id="search_users", summary="Search users",
            response_model=Users)
async def search_users(episode: EpisodeDep, paging: PagingDep, base: Base,
                       query: Annotated[str | None, Query(max_length=254, description=(
                           "A name, email or phone number, or part of one (case-insensitive); "
                           "also email:, name:, phone:, role: terms."))] = None,
                       external_id: Annotated[str | None, Query(max_length=100, description=(
                           "The user's id in the legacy system (exact)."))] = None,
                       include: UserInclude = None) -> Response:
    """Users whose name, email or phone number (any of their identities, not just the
    primary ones) contains the query; a full email address finds the one user who has it.
    Similar names may be different people or duplicate records: compare emails and phones."""
    if query is None and external_id is None:
        raise InvalidRequest("query or external_id is required", field="query",
                             rule="required")
    where, params = _search_where(episode.db, query, external_id)
    return _users_page(episode, paging, base, include, where, params)


@router.get("/api/v2/users/{user_id}", operation_id="show_user", summary="Show a user",
            response_model=UserResult)
async def show_user(user_id: UserId, episode: EpisodeDep, base: Base,
                    include: UserInclude = None) -> Response:
    """One user: name, primary email and phone, role, organization, tier (user_fields.tier),
    notes, active (false once deleted or merged away)."""
    db = episode.db
    item = render.user(get_row(db, "users", user_id), base)
    return ok({"user": item, **_user_sideloads(db, include, [item], base)})


def _created(episode: EpisodeDep, user: UserIn) -> Row:
    values = user.columns()
    if not values.get("name"):
        raise invalid("name", "is too short (minimum one character)", "required")
    return users.create(episode.db, values, episode.now())


@router.post("/api/v2/users", operation_id="create_user", summary="Create a user",
             status_code=201, response_model=UserResult)
async def create_user(body: UserBody, episode: EpisodeDep, base: Base) -> Response:
    """A new user (an end user unless role says otherwise): name required; the email and
    phone become their primary identities. An email another user has is refused."""
    return ok({"user": render.user(_created(episode, body.user), base)}, 201)


@router.post("/api/v2/users/create_many", operation_id="create_many_users",
             summary="Create many users", response_model=JobStatusResult)
async def create_many_users(body: UsersBody, episode: EpisodeDep, base: Base) -> Response:
    """Up to 100 users in one request, as a job: each is created as POST /users creates
    one (one refusal does not stop the others). The job's results give each one's index in
    the request and its new id."""
    db, now = episode.db, episode.now()
    results = jobs.each(db, range(len(body.users)),
                        lambda i: {"id": _created(episode, body.users[i])["id"]},
                        "create", "Created", key="index")
    return ok({"job_status": render.job_status(jobs.record(db, "create_many", results, now),
                                               base)})


@router.delete("/api/v2/users/{user_id}", operation_id="delete_user",
               summary="Delete a user", response_model=UserResult)
async def delete_user(user_id: UserId, episode: EpisodeDep, base: Base) -> Response:
    """Delete the user, as Zendesk does: they stay, with active false (their tickets kept);
    a deleted user cannot be changed or assigned tickets. You cannot delete yourself."""
    return ok({"user": render.user(records.delete_user(episode.db, user_id, episode.now()),
                                   base)})


@router.put("/api/v2/users/{user_id}", operation_id="update_user", summary="Update a user",
            response_model=UserResult)
async def update_user(user_id: UserId, body: UserBody, episode: EpisodeDep,
                      base: Base) -> Response:
    """Change a user's profile; only the attributes sent change. An email is added as a
    secondary identity (make it primary through the identities); a phone replaces the
    primary phone number; user_fields.tier sets the tier."""
    row = users.update(episode.db, user_id, body.user.columns(), episode.now())
    return ok({"user": render.user(row, base)})


@router.put("/api/v2/users/{user_id}/merge", operation_id="merge_users",
            summary="Merge a user into another", response_model=UserResult)
async def merge_users(user_id: UserId, body: UserMergeBody, episode: EpisodeDep,
                      base: Base) -> Response:
    """Merge the end user in the path into the end user {"user": {"id": ...}}: their
    tickets (any status), identities and satisfaction ratings move to that user, and the
    path user is deleted. Only end users can be merged. Returns the surviving user."""
    target = merges.merge_users(episode.db, source_id=user_id, target_id=body.user.id,
                                now=episode.now())
    return ok({"user": render.user(target, base)})


# ---------------------------------------------------------------------------
# Identities
# ---------------------------------------------------------------------------


@router.get("/api/v2/users/{user_id}/identities", operation_id="list_user_identities",
            summary="List a user's identities", response_model=Identities)
async def list_identities(user_id: UserId, episode: EpisodeDep, paging: PagingDep,
                          base: Base) -> Response:
    """The user's email addresses and phone numbers (primary: the one shown on the user)."""
    db = episode.db
    get_row(db, "users", user_id)
    return ok(table_page(db, paging, "user_identities", ["user_id = ?"], [user_id], "id",
                         lambda row: render.identity(row, base), key="identities"))


@router.get("/api/v2/users/{user_id}/identities/{identity_id}",
            operation_id="show_user_identity", summary="Show a user's identity",
            response_model=IdentityResult)
async def show_identity(user_id: UserId, identity_id: IdentityId, episode: EpisodeDep,
                        base: Base) -> Response:
    """One of the user's identities."""
    return ok({"identity": render.identity(users.own_identity(episode.db, user_id, identity_id),
                                           base)})


@router.post("/api/v2/users/{user_id}/identities", operation_id="create_user_identity",
             summary="Add an identity to a user", status_code=201, response_model=IdentityResult)
async def create_identity(user_id: UserId, body: IdentityBody, episode: EpisodeDep,
                          base: Base) -> Response:
    """Add an email address or phone number to the user (primary if they had none of that
    type). A value another user has is refused."""
    row = users.add_identity(episode.db, user_id, body.identity.type, body.identity.value,
                             episode.now())
    return ok({"identity": render.identity(row, base)}, 201)


@router.put("/api/v2/users/{user_id}/identities/{identity_id}/make_primary",
            operation_id="make_user_identity_primary", summary="Make an identity primary",
            response_model=IdentityList)
async def make_primary(user_id: UserId, identity_id: IdentityId, episode: EpisodeDep,
                       base: Base) -> Response:
    """Make the identity the user's primary of its type: it becomes the user's email (or
    phone). Returns all the user's identities."""
    db = episode.db
    get_row(db, "users", user_id)
    users.make_primary(db, user_id, identity_id, episode.now())
    found = rows(db, "SELECT * FROM user_identities WHERE user_id = ? ORDER BY id", (user_id,))
    return ok({"identities": [render.identity(r, base) for r in found]})


@router.delete("/api/v2/users/{user_id}/identities/{identity_id}",
               operation_id="delete_user_identity", summary="Delete an identity",
               status_code=204, response_class=Response)
async def delete_identity(user_id: UserId, identity_id: IdentityId,
                          episode: EpisodeDep) -> Response:
    """Remove an email address or phone number from the user. The primary email cannot be
    deleted (make another email primary first)."""
    get_row(episode.db, "users", user_id)
    users.delete_identity(episode.db, user_id, identity_id, episode.now())
    return Response(status_code=204)


# ---------------------------------------------------------------------------
# Group memberships
# ---------------------------------------------------------------------------


def _memberships_page(episode: EpisodeDep, paging: PagingDep, base: str, include: str | None,
                      where: list[str], params: list[Any]) -> Response:
    db = episode.db
    found = table_page(db, paging, "group_memberships", where, params,
                       "id", lambda row: render.membership(row, base))
    return ok({**found, **sideloads(db, include, found["group_memberships"],
                                                base)})


@router.get("/api/v2/users/{user_id}/group_memberships",
            operation_id="list_user_group_memberships",
            summary="List a user's group memberships", response_model=Memberships)
async def user_memberships(user_id: UserId, episode: EpisodeDep, paging: PagingDep,
                           base: Base, include: MembershipInclude = None) -> Response:
    """The groups the agent belongs to (default: their default group)."""
    get_row(episode.db, "users", user_id)
    return _memberships_page(episode, paging, base, include, ["user_id = ?"], [user_id])


@router.get("/api/v2/users/{user_id}/groups", operation_id="list_user_groups",
            summary="List a user's groups", response_model=Groups)
async def user_groups(user_id: UserId, episode: EpisodeDep, paging: PagingDep,
                      base: Base) -> Response:
    """The groups the agent is a member of."""
    db = episode.db
    get_row(db, "users", user_id)
    return ok(table_page(db, paging, "groups", [
        "id IN (SELECT group_id FROM group_memberships WHERE user_id = ?)"], [user_id], "id",
        lambda row: render.group(row, base)))


@router.get("/api/v2/group_memberships", operation_id="list_group_memberships",
            summary="List group memberships", response_model=Memberships)
async def list_memberships(episode: EpisodeDep, paging: PagingDep, base: Base,
                           include: MembershipInclude = None) -> Response:
    """Which agent is in which group, every membership."""
    return _memberships_page(episode, paging, base, include, [], [])


@router.get("/api/v2/group_memberships/{membership_id}", operation_id="show_group_membership",
            summary="Show a group membership", response_model=MembershipResult)
async def show_membership(membership_id: MembershipId, episode: EpisodeDep, base: Base,
                          include: MembershipInclude = None) -> Response:
    """One group membership: the agent and the group."""
    db = episode.db
    row = get_row(db, "group_memberships", membership_id, noun="group membership")
    return ok({"group_membership": render.membership(row, base),
               **sideloads(db, include, [row], base)})


# ---------------------------------------------------------------------------
# Organizations
# ---------------------------------------------------------------------------


@router.get("/api/v2/organizations", operation_id="list_organizations",
            summary="List organizations", response_model=Organizations)
async def list_organizations(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The companies end users belong to, by id."""
    return ok(table_page(episode.db, paging, "organizations", [], [], "id",
                         lambda row: render.organization(row, base)))


@router.get("/api/v2/organizations/search", operation_id="search_organizations",
            summary="Search organizations by name", response_model=Organizations)
async def search_organizations(
    episode: EpisodeDep, paging: PagingDep, base: Base,
    name: Annotated[str | None, Query(max_length=255, description=(
        "The organization's name (exact, case-insensitive)."))] = None,
    external_id: Annotated[str | None, Query(max_length=255, description=(
        "The organization's external id."))] = None,
) -> Response:
    """The organization with this exact name (or external id). Organizations have no
    external ids here: an external_id search finds none."""
    if name is None and external_id is None:
        raise InvalidRequest("name or external_id is required", field="name",
                             rule="required")
    where = ["lower(name) = lower(?)"] if name is not None else ["0"]
    params = [name] if name is not None else []
    return ok(table_page(episode.db, paging, "organizations", where, params,
                         "id", lambda row: render.organization(row, base)))


@router.get("/api/v2/organizations/{organization_id}", operation_id="show_organization",
            summary="Show an organization", response_model=OrganizationResult)
async def show_organization(organization_id: OrganizationId, episode: EpisodeDep,
                            base: Base) -> Response:
    """One organization: name, domain names, notes."""
    row = get_row(episode.db, "organizations", organization_id)
    return ok({"organization": render.organization(row, base)})


@router.get("/api/v2/organizations/{organization_id}/users",
            operation_id="list_organization_users", summary="List an organization's users",
            response_model=Users)
async def organization_users(organization_id: OrganizationId, episode: EpisodeDep,
                             paging: PagingDep, base: Base,
                             include: UserInclude = None) -> Response:
    """The people of the organization."""
    get_row(episode.db, "organizations", organization_id)
    return _users_page(episode, paging, base, include, ["organization_id = ?"],
                       [organization_id])


# ---------------------------------------------------------------------------
# Groups
# ---------------------------------------------------------------------------


@router.get("/api/v2/groups", operation_id="list_groups", summary="List groups",
            response_model=Groups)
async def list_groups(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The agent groups tickets are routed to (deleted ones are left out)."""
    return ok(table_page(episode.db, paging, "groups", ["NOT deleted"], [], "id",
                         lambda row: render.group(row, base)))


@router.get("/api/v2/groups/{group_id}", operation_id="show_group", summary="Show a group",
            response_model=GroupResult)
async def show_group(group_id: GroupId, episode: EpisodeDep, base: Base) -> Response:
    """One group: name and description."""
    return ok({"group": render.group(get_row(episode.db, "groups", group_id), base)})


@router.get("/api/v2/groups/{group_id}/memberships", operation_id="list_memberships_of_group",
            summary="List a group's memberships", response_model=Memberships)
async def group_memberships(group_id: GroupId, episode: EpisodeDep, paging: PagingDep,
                            base: Base, include: MembershipInclude = None) -> Response:
    """The group's members, as memberships (user_id; include=users for the agents)."""
    get_row(episode.db, "groups", group_id)
    return _memberships_page(episode, paging, base, include, ["group_id = ?"], [group_id])


@router.get("/api/v2/groups/{group_id}/users", operation_id="list_group_users",
            summary="List a group's users", response_model=Users)
async def group_users(group_id: GroupId, episode: EpisodeDep, paging: PagingDep, base: Base,
                      include: UserInclude = None) -> Response:
    """The agents in the group."""
    get_row(episode.db, "groups", group_id)
    return _users_page(episode, paging, base, include, [
        "id IN (SELECT user_id FROM group_memberships WHERE group_id = ?)"], [group_id])
