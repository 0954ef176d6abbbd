"""Filters: saved searches, create, read, edit, delete, search, yours, favourites
(platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Body, Path, Query, Request
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import filters
from .common import CALLER, Base, MaxResults, StartAt, Version, page_bean, shown

router = APIRouter(tags=["filters"])
CAP = 100
FilterId = Annotated[Id, Path(description="The filter's id.")]
FilterBody = Annotated[dict[str, Any], Body(description=(
    "{name, jql, description?, favourite?}: the name unique among your filters, the JQL one "
    "the search accepts."))]
EXPANDABLE = ("description", "owner", "jql", "searchUrl", "viewUrl", "favourite",
              "favouritedCount", "sharePermissions", "editPermissions", "subscriptions")
Expand = Annotated[str | None, Query(max_length=300, description=(
    "Comma-separated: " + ", ".join(EXPANDABLE) + " (the search's values; the others "
    "return them all)."))]
ORDERS = {"name": "lower(name), id", "id": "id", "description": "lower(description), id",
          "favourite_count": "favourite, id", "is_favourite": "favourite, id",
          "owner": "owner_id, id", "is_shared": "id"}


def _filter(episode: EpisodeDep, row: dict[str, Any], base: str, version: str,
            expand: set[str] | None = None) -> dict[str, Any]:
    """A filter as Jira shows it: everything, or (the search) its id, name and ``expand``."""
    v = shown(version)
    owner = one(episode.db, "SELECT * FROM users WHERE id = ?", (row["owner_id"],))
    full = {"self": f"{render.api(base, v)}/filter/{row['id']}",
            "id": str(row["id"]), "name": row["name"], "description": row["description"],
            "owner": render.user(owner, base, v), "jql": row["jql"],
            "viewUrl": f"{base}/issues/?filter={row['id']}",
            "searchUrl": f"{render.api(base, v)}/search/jql?jql={quote(row['jql'])}",
            "favourite": bool(row["favourite"]), "favouritedCount": int(row["favourite"]),
            "sharePermissions": [], "editPermissions": [],
            "subscriptions": {"size": 0, "items": [], "max-results": 0, "start-index": 0,
                              "end-index": 0}}
    if expand is None:
        return full
    return {"expand": ",".join(EXPANDABLE),
            **{k: x for k, x in full.items() if k in {"self", "id", "name"} | expand}}


def _expanded(expand: str | None) -> set[str]:
    wanted = {e.strip() for e in (expand or "").split(",") if e.strip()}
    unknown = sorted(wanted - set(EXPANDABLE))
    if unknown:
        raise JiraError(400, [f"Invalid expand value: {unknown[0]}."], code="filter_expand")
    return wanted


@router.post("/filter", operation_id="create_filter", summary="Create a filter")
async def create_filter(version: Version, body: FilterBody, episode: EpisodeDep,
                        base: Base, expand: Expand = None) -> Response:
    """Save a search as a filter of yours (200, as Jira answers)."""
    _expanded(expand)
    made = filters.create(episode.db, body, CALLER, episode.now())
    return ok(_filter(episode, made, base, version))


@router.get("/filter/search", operation_id="get_filters_paginated",
            summary="Search for filters")
async def search_filters(version: Version, episode: EpisodeDep, base: Base, request: Request,
                         filterName: Annotated[str | None, Query(max_length=255, description=(
                             "Part of the name, case-insensitively."))] = None,
                         accountId: Annotated[str | None, Query(max_length=128, description=(
                             "The owner's accountId."))] = None,
                         id: Annotated[list[Id] | None, Query(max_length=200, description=(
                             "Filter ids (up to 200)."))] = None,
                         orderBy: Annotated[str, Query(
                             pattern=r"^[+-]?(" + "|".join(ORDERS) + ")$", description=(
                                 "name (default), id, description, favourite_count, "
                                 "is_favourite, owner, is_shared; - for descending."))]
                         = "name",
                         startAt: StartAt = 0, maxResults: MaxResults = 50,
                         expand: Expand = None) -> Response:
    """The filters you may see (yours), by name, id or owner, a page at a time."""
    wanted = _expanded(expand)
    where: list[str] = ["owner_id = ?"]
    params: list[Any] = [CALLER]
    if filterName:
        where.append("instr(lower(name), lower(?)) > 0")
        params.append(filterName)
    if accountId is not None:
        where.append("owner_id = (SELECT id FROM users WHERE account_id = ?)")
        params.append(accountId)
    if id:
        where.append(f"id IN ({','.join('?' * len(id))})")
        params.extend(id)
    direction = " DESC" if orderBy.startswith("-") else ""
    order = ", ".join(c + direction for c in ORDERS[orderBy.lstrip("+-")].split(", "))
    found = rows(episode.db, f"SELECT * FROM filters WHERE {' AND '.join(where)} "
                 f"ORDER BY {order}", params)
    page = page_bean([_filter(episode, f, base, version, wanted) for f in found], startAt,
                     maxResults, CAP)
    query = urlencode([(k, x) for k, x in request.query_params.multi_items()])
    return ok({"self": f"{render.api(base, shown(version))}/filter/search"
                       + (f"?{query}" if query else ""), **page})


@router.get("/filter/my", operation_id="get_my_filters", summary="Get my filters")
async def my_filters(version: Version, episode: EpisodeDep, base: Base,
                     includeFavourites: Annotated[bool, Query(description=(
                         "Also the favourite filters you may see (here: yours)."))] = False,
                     expand: Expand = None) -> Response:
    """The filters you own (unpaged), by name."""
    _expanded(expand)
    return ok([_filter(episode, f, base, version) for f in rows(
        episode.db, "SELECT * FROM filters WHERE owner_id = ? ORDER BY lower(name), id",
        (CALLER,))])


@router.get("/filter/favourite", operation_id="get_favourite_filters",
            summary="Get favorite filters")
async def favourite_filters(version: Version, episode: EpisodeDep, base: Base,
                            expand: Expand = None) -> Response:
    """Your favourite filters (unpaged), by name."""
    _expanded(expand)
    return ok([_filter(episode, f, base, version) for f in rows(
        episode.db, "SELECT * FROM filters WHERE owner_id = ? AND favourite ORDER BY "
        "lower(name), id", (CALLER,))])


@router.get("/filter/{filter_id}", operation_id="get_filter", summary="Get a filter")
async def get_filter(version: Version, filter_id: FilterId, episode: EpisodeDep, base: Base,
                     expand: Expand = None) -> Response:
    """One of your filters: its JQL, its search and view URLs."""
    _expanded(expand)
    return ok(_filter(episode, filters.find(episode.db, filter_id, CALLER), base, version))


@router.put("/filter/{filter_id}", operation_id="update_filter", summary="Update a filter")
async def update_filter(version: Version, filter_id: FilterId, body: FilterBody,
                        episode: EpisodeDep, base: Base, expand: Expand = None) -> Response:
    """Change your filter's name, description, JQL or favourite (what the body gives)."""
    _expanded(expand)
    made = filters.update(episode.db, filter_id, body, CALLER, episode.now())
    return ok(_filter(episode, made, base, version))


@router.delete("/filter/{filter_id}", operation_id="delete_filter", summary="Delete a filter",
               status_code=204)
async def delete_filter(version: Version, filter_id: FilterId,
                        episode: EpisodeDep) -> Response:
    """Delete one of your filters."""
    filters.delete(episode.db, filter_id, CALLER)
    return Response(status_code=204)


@router.put("/filter/{filter_id}/favourite", operation_id="set_favourite_for_filter",
            summary="Add filter as favorite")
async def add_favourite(version: Version, filter_id: FilterId, episode: EpisodeDep,
                        base: Base, expand: Expand = None) -> Response:
    """Make the filter one of your favourites."""
    _expanded(expand)
    return ok(_filter(episode, filters.favourite(episode.db, filter_id, CALLER, True), base,
                      version))


@router.delete("/filter/{filter_id}/favourite", operation_id="delete_favourite_for_filter",
               summary="Remove filter as favorite")
async def remove_favourite(version: Version, filter_id: FilterId, episode: EpisodeDep,
                           base: Base, expand: Expand = None) -> Response:
    """Take the filter out of your favourites."""
    _expanded(expand)
    return ok(_filter(episode, filters.favourite(episode.db, filter_id, CALLER, False), base,
                      version))
