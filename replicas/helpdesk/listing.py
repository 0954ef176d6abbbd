"""Zendesk's two ways of paging a list, and sideloads.

- **Offset** (``page``, ``per_page``: more than 100 is 100): ``{<key>: [...], "count",
  "next_page", "previous_page"}``, the page links absolute.
- **Cursor** (``page[size]``, ``page[after]`` / ``page[before]``): ``{<key>: [...],
  "meta": {"has_more", "after_cursor", "before_cursor"}, "links": {"next", "prev"}}``. The last page
  has ``meta.has_more`` false and ``links.next`` null (clients follow ``links.next``).

Cursors are opaque to the caller (here: a position in the list, encoded).
``include=users,groups,organizations`` sideloads the records a page's items name; anything
else (zenpy sends ``include=None``) is ignored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from annotated_types import Interval
from fastapi import Depends, Query, Request

from replicas.runtime.deps import public_base
from replicas.runtime.paging import cursor_of, offset_of
from replicas.runtime.params import CANONICAL
from workgym_core.errors import InvalidRequest

from . import render

Row = dict[str, Any]
MAX_PAGE = 100
PerPage = Annotated[int, Interval(ge=1, le=MAX_PAGE), CANONICAL]
AnyPerPage = Annotated[int, Interval(ge=1, le=1_000_000), CANONICAL]
PageNumber = Annotated[int, Interval(ge=1, le=100_000), CANONICAL]


@dataclass(frozen=True)
class Paging:
    """How the caller pages, and where the page links point."""

    base: str
    path: str
    query: dict[str, str]
    size: int
    offset: int
    cursor: bool


def _decode(cursor: str, name: str) -> int:
    offset = offset_of(cursor)
    if offset is None:
        raise InvalidRequest(f"{name} is not a cursor this list gave", field=name,
                             rule="cursor")
    return offset


async def paging(
    request: Request,
    page: Annotated[PageNumber | None, Query(description="Offset paging: the page, from 1.")]
    = None,
    per_page: Annotated[AnyPerPage | None, Query(description="Offset paging: items per "
                                                 "page (more than 100 is 100).")] = None,
    size: Annotated[PerPage | None, Query(alias="page[size]", description="Cursor paging: "
                                          "items per page (at most 100).")] = None,
    after: Annotated[str | None, Query(alias="page[after]", max_length=64, description=(
        "Cursor paging: the page after this cursor (meta.after_cursor)."))] = None,
    before: Annotated[str | None, Query(alias="page[before]", max_length=64, description=(
        "Cursor paging: the page before this cursor (meta.before_cursor)."))] = None,
) -> Paging:
    query = {k: v for k, v in request.query_params.items()
             if k not in ("page", "per_page", "page[size]", "page[after]", "page[before]")}
    cursor = size is not None or after is not None or before is not None
    if cursor:
        n = size or MAX_PAGE
        offset = _decode(after, "page[after]") if after else (
            max(0, _decode(before, "page[before]") - n) if before else 0)
    else:
        n = min(per_page or MAX_PAGE, MAX_PAGE)
        offset = ((page or 1) - 1) * n
    return Paging(await public_base(request), request.url.path, query, n, offset, cursor)


PagingDep = Annotated[Paging, Depends(paging)]


def _link(p: Paging, extra: dict[str, Any]) -> str:
    return f"{p.base}{p.path}.json?{urlencode({**p.query, **extra})}"


def page(p: Paging, key: str, items: list[Row], total: int) -> Row:
    """One page of ``items`` (already cut to ``p``), ``total`` across all pages."""
    more = p.offset + len(items) < total
    if p.cursor:
        after, before = cursor_of(p.offset + len(items)), cursor_of(p.offset)
        return {key: items,
                "meta": {"has_more": more, "after_cursor": after, "before_cursor": before},
                "links": {"next": _link(p, {"page[size]": p.size, "page[after]": after})
                          if more else None,
                          "prev": _link(p, {"page[size]": p.size, "page[before]": before})}}
    number = p.offset // p.size + 1
    return {key: items, "count": total,
            "next_page": _link(p, {"page": number + 1, "per_page": p.size}) if more else None,
            "previous_page": _link(p, {"page": number - 1, "per_page": p.size})
            if number > 1 else None}


def table_page(db: sqlite3.Connection, p: Paging, table: str, where: Sequence[str],
               params: Sequence[Any], order_by: str, convert: Callable[[Row], Row],
               key: str | None = None) -> Row:
    """One page of ``table``'s rows matching ``where`` (all code), converted, under ``key``
    (the table's name by default)."""
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    total = db.execute(f"SELECT count(*) AS n FROM {table}{clause}", tuple(params)).fetchone()
    rows = db.execute(f"SELECT * FROM {table}{clause} ORDER BY {order_by} LIMIT ? OFFSET ?",
                      (*params, p.size, p.offset)).fetchall()
    return page(p, key or table, [convert(r) for r in rows], total["n"])


def sideloads(db: sqlite3.Connection, include: str | None, items: Iterable[Row],
              base: str) -> Row:
    """``{"users": [...], "groups": [...], "organizations": [...]}`` as ``include`` asks,
    of the records ``items`` name."""
    asked = {part.strip() for part in (include or "").split(",")}
    items = list(items)
    out: Row = {}
    specs = (("users", ("requester_id", "submitter_id", "assignee_id", "author_id",
                        "user_id"),
              render.user),
             ("groups", ("group_id",), render.group),
             ("organizations", ("organization_id",), render.organization))
    for table, keys, convert in specs:
        if table not in asked:
            continue
        ids = sorted({item[k] for item in items for k in keys if item.get(k) is not None})
        marks = ",".join("?" * len(ids))
        rows = db.execute(f"SELECT * FROM {table} WHERE id IN ({marks}) ORDER BY id",
                          ids).fetchall() if ids else []
        out[table] = [convert(r, base) for r in rows]
    return out
