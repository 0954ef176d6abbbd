"""Stripe's cursor-paged lists: ``{"object": "list", "data", "has_more", "url"}``, newest
first, ``limit`` 1-100 (default 10) after ``starting_after`` or before ``ending_before`` (an
object's id; not both)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from annotated_types import Interval
from fastapi import Query

from replicas.runtime import db as sql
from replicas.runtime.params import CANONICAL

from .errors import InvalidRequestError, ResourceMissing
from .render import Objects, Row

DEFAULT_LIMIT = 10

Limit = Annotated[int, Interval(ge=1, le=100), CANONICAL, Query(
    description="How many objects to return, 1 to 100 (default 10).")]
StartingAfter = Annotated[str | None, Query(max_length=255, description=(
    "A cursor: the id of the object after which the page starts (the last object of the "
    "previous page), for the next page."))]
EndingBefore = Annotated[str | None, Query(max_length=255, description=(
    "A cursor: the id of the object before which the page ends (the first object of the "
    "next page), for the previous page."))]
Expand = Annotated[list[str] | None, Query(max_length=20, description=(
    "References to expand into objects (repeat for each; 'customer', "
    "'data.customer' on lists). Stripe's expand[] also works."))]


def cursor_page(objects: Objects, table: str, where: Sequence[str], params: Sequence[Any], *,
                url: str, limit: int, starting_after: str | None, ending_before: str | None,
                expand: Sequence[str] = (), kind: str) -> Row:
    """One page of ``table``'s objects matching ``where`` (SQL in code), newest first."""
    _one_cursor(starting_after, ending_before)
    conds, args, descending = list(where), list(params), True
    cursor = starting_after or ending_before
    if cursor is not None:
        param = "starting_after" if starting_after else "ending_before"
        row = objects.row(table, cursor, kind=kind, param=param)
        op, descending = ("<", True) if starting_after else (">", False)
        conds.append(f"(created {op} ? OR (created = ? AND id {op} ?))")
        args += [row["created"], row["created"], row["id"]]
    order = "DESC" if descending else "ASC"
    clause = f" WHERE {' AND '.join(conds)}" if conds else ""
    rows = sql.rows(objects.db, f"SELECT * FROM {table}{clause} ORDER BY created {order}, "
                    f"id {order} LIMIT ?", (*args, limit + 1))
    has_more = len(rows) > limit
    rows = rows[:limit] if descending else rows[:limit][::-1]
    return _list(objects, [objects.render(table, r) for r in rows], has_more, url, expand)


def memory_page(objects: Objects, items: Sequence[Row], *, url: str, limit: int,
                starting_after: str | None, ending_before: str | None,
                expand: Sequence[str] = (), kind: str) -> Row:
    """One page of ``items`` (objects saved nowhere, in their order: a preview's lines),
    paged as :func:`cursor_page` pages a table."""
    _one_cursor(starting_after, ending_before)
    ids = [item["id"] for item in items]
    cursor = starting_after or ending_before
    if cursor is not None and cursor not in ids:
        raise ResourceMissing(kind, cursor, param="starting_after" if starting_after
                              else "ending_before")
    if ending_before is not None:
        before = items[:ids.index(ending_before)]
        return _list(objects, before[-limit:], len(before) > limit, url, expand)
    after = items[ids.index(starting_after) + 1:] if starting_after is not None else items
    return _list(objects, after[:limit], len(after) > limit, url, expand)


def _one_cursor(starting_after: str | None, ending_before: str | None) -> None:
    if starting_after and ending_before:
        raise InvalidRequestError("You may only specify one of these parameters: "
                                  "ending_before, starting_after.", code="parameter_invalid",
                                  param="ending_before")


def _list(objects: Objects, items: Sequence[Row], has_more: bool, url: str,
          expand: Sequence[str]) -> Row:
    """Stripe's list object of ``items``, their properties expanded (``data.`` paths)."""
    inner = [path.removeprefix("data.") for path in expand if path.startswith("data.")]
    if len(inner) != len(expand):
        raise InvalidRequestError("Lists expand their objects' properties: "
                                  "prefix each with 'data.'", code="parameter_invalid",
                                  param="expand")
    return {"object": "list", "data": [objects.expand(i, inner) for i in items],
            "has_more": has_more, "url": url}
