"""Search: JQL over the issues you may browse (platform v2/v3 ``/search/jql``), paged by
``nextPageToken`` (absent on the last page); the old ``/search`` is gone (410), as in
Jira Cloud."""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Interval
from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import cursor_of, offset_of
from replicas.runtime.params import CANONICAL
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import search as search_rules
from .common import CALLER, Base, Version, shown

router = APIRouter(tags=["search"])

CAP = 5000  # Jira's most issues per page
MaxResults = Annotated[int, Interval(ge=1, le=1_000_000), CANONICAL, Query(
    description="Issues per page: above 5000, 5000 (as Jira caps it).")]


def _offset(token: str | None) -> int:
    if not token:
        return 0
    offset = offset_of(token)
    if offset is None:
        raise JiraError(400, ["The provided next page token is invalid or expired."],
                        code="page_token")
    return offset


def compiled(text: str, episode: EpisodeDep, *, bounded: bool,
             unordered: str | None = None) -> tuple[str, list[Any], str]:
    """The JQL as SQL for the caller, now (rules/search.compiled)."""
    return search_rules.compiled(text, now=episode.now(), caller_id=CALLER, bounded=bounded,
                                 unordered=unordered)


def visible(episode: EpisodeDep) -> str:
    """SQL: the projects whose issues you may browse."""
    return search_rules.visible(episode.db, CALLER)


def shown_issues(episode: EpisodeDep, found: list[dict[str, Any]], fields: str | None,
                 base: str, version: str) -> list[dict[str, Any]]:
    """Issues as a list shows them: ``fields`` names which (id: the ids only; *all and
    *navigable: every field)."""
    wanted = {f.strip() for f in (fields or "*all").split(",")}
    out = []
    for row in found:
        if wanted == {"id"}:
            out.append({"id": str(row["id"])})
            continue
        full = render.issue(episode.db, row, base, version)
        if "*all" not in wanted and "*navigable" not in wanted:
            full["fields"] = {k: v for k, v in full["fields"].items() if k in wanted}
        out.append(full)
    return out


@router.get("/search/jql", operation_id="search_issues",
            summary="Search for issues using JQL")
async def search(version: Version, episode: EpisodeDep, base: Base,
                 jql_: Annotated[str, Query(alias="jql", max_length=5000, description=(
                     "The JQL query; it must restrict the issues (not only ORDER BY)."))] = "",
                 nextPageToken: Annotated[str | None, Query(max_length=200, description=(
                     "The page after the one that gave this token."))] = None,
                 maxResults: MaxResults = 50,
                 fields: Annotated[str | None, Query(max_length=500, description=(
                     "Fields to return: id (default), *all, *navigable or names."))] = None
                 ) -> Response:
    """Issues matching the JQL, in its ORDER BY; ids only unless `fields` asks for more."""
    where, params, order = compiled(jql_, episode, bounded=True)
    offset, size = _offset(nextPageToken), min(maxResults, CAP)
    found = rows(episode.db, f"SELECT * FROM issues WHERE ({where}) AND {visible(episode)} "
                 f"ORDER BY {order} LIMIT ? OFFSET ?", (*params, size + 1, offset))
    page, more = found[:size], len(found) > size
    out: dict[str, object] = {"issues": shown_issues(episode, page, fields or "id", base,
                                                     shown(version)), "isLast": not more}
    if more:
        out["nextPageToken"] = cursor_of(offset + size)
    return ok(out)


@router.get("/search", operation_id="search_issues_removed",
            summary="Search (removed)")
async def removed(version: Version, episode: EpisodeDep) -> Response:
    """Removed from Jira Cloud: use /search/jql."""
    raise JiraError(410, ["The requested API has been removed. Please migrate to the "
                          "/rest/api/3/search/jql API."], code="search_removed")
