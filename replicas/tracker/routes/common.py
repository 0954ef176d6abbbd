"""What the tracker's route modules share: the API version in the path (v2 text, v3 ADF,
``latest`` as v2, as the ``jira`` library calls it), the caller's public base, the caller."""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Interval
from fastapi import Depends, Path, Query, Request

from replicas.runtime.deps import PublicBase
from replicas.runtime.params import CANONICAL

from ..world import AGENT_ID


async def api_version(request: Request) -> str:
    """The REST API version the request's path names: 2 (text bodies), 3 (Atlassian
    Document Format) or latest (= 2); the same routes serve each (routes/__init__.py)."""
    return request.url.path.split("/rest/api/", 1)[1].split("/", 1)[0]


Version = Annotated[str, Depends(api_version)]
VERSIONS = ("3", "2", "latest")  # v3 documented; v2 and latest served alike
IssueRef = Annotated[str, Path(max_length=40, pattern=r"^([A-Za-z][A-Za-z0-9]*-[1-9][0-9]*|"
                                                      r"[1-9][0-9]*)$",
                               description="The issue's key (SHOP-12) or numeric id.")]
# The API's caller: the AI agent.
CALLER = AGENT_ID


Base = PublicBase


def shown(version: str) -> str:
    """The version the answer is in: ``latest`` is 2."""
    return "2" if version == "latest" else version


StartAt = Annotated[int, Interval(ge=0, le=1_000_000), CANONICAL, Query(
    description="The index of the first item to return (0: the first).")]
MaxResults = Annotated[int, Interval(ge=0, le=1_000_000), CANONICAL, Query(
    description="Items per page; above the endpoint's cap, the cap (as Jira does).")]


def page_bean(items: list[Any], start_at: int, max_results: int, cap: int,
              key: str = "values") -> dict[str, Any]:
    """Jira's PageBean over ``items``: ``startAt``, ``maxResults`` (capped per endpoint),
    ``total``, ``isLast`` and the page under ``key``."""
    size = min(max_results, cap)
    return {"startAt": start_at, "maxResults": size, "total": len(items),
            "isLast": start_at + size >= len(items), key: items[start_at:start_at + size]}
