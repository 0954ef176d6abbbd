"""What every replica list route shares: its common query parameters (paging, search,
time bounds), the page model, filters and the paging helper.

    @router.get("/tickets", response_model=Page[Ticket])
    async def list_tickets(episode: EpisodeDep, limit: Limit = 25, offset: Offset = 0,
                           q: Q = None):
        found = Filters()
        found.search(q, "subject", "description")
        return page(episode.db, "tickets", found.where, found.params, order_by="id",
                    limit=limit, offset=offset)

``where`` is a list of SQL conditions written in code (never user strings) whose
``?`` placeholders are bound from ``params``.
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Generic, TypeVar

from annotated_types import Interval
from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field

from .clock import ISO_DESCRIPTION, ISO_PATTERN
from .params import CANONICAL

T = TypeVar("T")

DEFAULT_LIMIT = 25
MAX_LIMIT = 100

MAX_OFFSET = 1_000_000

Limit = Annotated[
    int, Interval(ge=1, le=MAX_LIMIT), CANONICAL,
    Query(description=f"Page size: at most {MAX_LIMIT} items per page."),
]
Offset = Annotated[
    int, Interval(ge=0, le=MAX_OFFSET), CANONICAL,
    Query(description="Number of matching items to skip (0 = first page)."),
]
# A case-insensitive substring search (see Filters.search).
Q = Annotated[
    str | None,
    Query(min_length=1, max_length=200, description="Case-insensitive substring search."),
]
# A time bound in the one timestamp format (compared as text: the format sorts as time does).
IsoTime = Annotated[str | None, Query(pattern=ISO_PATTERN, description=f"{ISO_DESCRIPTION}.")]


class Page(BaseModel, Generic[T]):
    """One page of a list: the items plus what is needed to fetch the next one."""

    model_config = ConfigDict(extra="forbid")

    data: list[T] = Field(description="The items of this page, in the list's order.")
    total: int = Field(description="How many items match the filters, across all pages.")
    limit: int = Field(description="The page size that was applied.")
    offset: int = Field(description="How many matching items were skipped before this page.")


def like_pattern(text: str) -> str:
    """A LIKE pattern for a case-insensitive substring search (use with ESCAPE '\\')."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class Filters:
    """The WHERE clauses of a list route and their parameters (column names are code)."""

    def __init__(self) -> None:
        self.where: list[str] = []
        self.params: list[Any] = []

    def add(self, clause: str, *params: Any) -> None:
        self.where.append(clause)
        self.params.extend(params)

    def equal(self, **columns: Any) -> None:
        """``column = value`` for every value given (None: not filtered; bools as 0/1)."""
        for column, value in columns.items():
            if value is not None:
                self.add(f"{column} = ?", int(value) if isinstance(value, bool) else value)

    def search(self, q: str | None, *columns: str) -> None:
        """A case-insensitive substring of any of ``columns`` (SQL expressions)."""
        if q is not None:
            like = " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in columns)
            self.add(f"({like})", *[like_pattern(q)] * len(columns))


def page(
    db: sqlite3.Connection,
    table: str,
    where: Sequence[str],
    params: Sequence[Any],
    *,
    order_by: str,
    limit: int,
    offset: int,
    columns: str = "*",
    convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Count and fetch one page; ``table``, ``where``, ``order_by``, ``columns`` are code."""
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    total = db.execute(f"SELECT count(*) AS n FROM {table}{clause}", tuple(params)).fetchone()
    items = db.execute(
        f"SELECT {columns} FROM {table}{clause} ORDER BY {order_by} LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    if convert is not None:
        items = [convert(item) for item in items]
    count = total["n"] if isinstance(total, dict) else total[0]
    return {"data": items, "total": count, "limit": limit, "offset": offset}


def cursor_of(offset: int) -> str:
    """An opaque page cursor (or token) for a position in a list."""
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def offset_of(cursor: str) -> int | None:
    """The position a cursor of :func:`cursor_of` stands for; None for anything else (the
    caller refuses it in its product's words)."""
    try:
        kind, _, number = base64.urlsafe_b64decode(cursor.encode() + b"==").decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return int(number) if kind == "o" and number.isdigit() else None
