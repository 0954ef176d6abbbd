"""Zendesk's incremental exports of tickets and users: what was created or changed since a
time, oldest change first, for a client keeping its own copy in step.

- **Cursor-based** (``/incremental/<resource>/cursor?start_time=`` then ``?cursor=``):
  ``after_cursor``, ``after_url`` (set on the last page too: the next export starts there)
  and ``end_of_stream``.
- **Time-based** (``/incremental/<resource>?start_time=``): ``end_time`` (the newest change on
  the page, the next page's start), ``next_page``, ``count`` and ``end_of_stream``. A record
  changed in the page's last second may come again on the next page, as in Zendesk.

As in Zendesk, a page holds up to 1,000 records (``per_page``), a record changed within the
last minute waits for the next export, and a ``start_time`` less than a minute old is
refused.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlencode

from annotated_types import Interval
from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import CANONICAL, MAX_ID
from replicas.runtime.responses import ok
from workgym_core.errors import InvalidRequest

from .. import render
from ..schemas import CursorExport, TimeExport
from .common import Base

router = APIRouter(tags=["exports"])

Row = dict[str, Any]
MAX_EXPORT_PAGE = 1000
UnixTime = Annotated[int, Interval(ge=0, le=MAX_ID), CANONICAL]
StartTime = Annotated[UnixTime | None, Query(
    description="Unix time: records created or changed at or after it (at least a minute "
    "ago).")]
Cursor = Annotated[str | None, Query(max_length=200, description=(
    "Cursor-based: the after_cursor of the previous page (instead of start_time)."))]
PerPage = Annotated[int, Interval(ge=1, le=MAX_EXPORT_PAGE), CANONICAL, Query(
    description="Records per page (at most 1,000).")]
_RENDER: dict[str, Callable[[Row, str], Row]] = {"tickets": render.ticket,
                                                  "users": render.user}


def _settled(now: datetime) -> str:
    """The newest change an export shows: a minute before now."""
    return iso(now - timedelta(minutes=1))


def _since(start_time: int | None, now: datetime) -> str:
    if start_time is None:
        raise InvalidRequest("start_time is required", field="start_time", rule="required")
    since = datetime.fromtimestamp(start_time, UTC)
    if since > now - timedelta(minutes=1):
        raise InvalidRequest("Too recent start_time: use a start_time older than one minute",
                             field="start_time", rule="too_recent")
    return iso(since)


def _encode(stamp: str, record_id: int) -> str:
    return base64.urlsafe_b64encode(f"{stamp}|{record_id}".encode()).decode()


def _decode(cursor: str) -> tuple[str, int]:
    try:
        stamp, record_id = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        parse_iso(stamp)
        return stamp, int(record_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidRequest("cursor is not a cursor this export gave", field="cursor",
                             rule="cursor") from None


def _rows(episode: EpisodeDep, table: str, after: tuple[str, int], per_page: int,
          inclusive: bool) -> list[Row]:
    """Up to ``per_page`` records changed after ``after`` (updated_at, id), oldest first."""
    op = ">=" if inclusive else ">"
    found: list[Row] = episode.db.execute(
        f"SELECT * FROM {table} WHERE (updated_at, id) {op} (?, ?) AND updated_at <= ? "
        "ORDER BY updated_at, id LIMIT ?",
        (*after, _settled(episode.now()), per_page)).fetchall()
    return found


def _url(base: str, request: Request, query: dict[str, Any]) -> str:
    return f"{base}{request.url.path}.json?{urlencode(query)}"


def cursor_export(episode: EpisodeDep, request: Request, base: str, table: str,
                  start_time: int | None, cursor: str | None, per_page: int) -> Response:
    if cursor is not None:
        after, inclusive = _decode(cursor), False
    else:
        after, inclusive = (_since(start_time, episode.now()), 0), True
    found = _rows(episode, table, after, per_page + 1, inclusive)
    page, more = found[:per_page], len(found) > per_page
    last = (page[-1]["updated_at"], page[-1]["id"]) if page else after
    after_cursor = _encode(*last)
    return ok({table: [_RENDER[table](r, base) for r in page], "after_cursor": after_cursor,
               "after_url": _url(base, request, {"cursor": after_cursor, "per_page": per_page}),
               "before_cursor": None, "before_url": None, "end_of_stream": not more})


def time_export(episode: EpisodeDep, request: Request, base: str, table: str,
                start_time: int | None, per_page: int) -> Response:
    since = _since(start_time, episode.now())
    found = _rows(episode, table, (since, 0), per_page + 1, True)
    page, more = found[:per_page], len(found) > per_page
    end_time = int(parse_iso(page[-1]["updated_at"]).timestamp()) if page else start_time
    return ok({table: [_RENDER[table](r, base) for r in page], "count": len(page),
               "end_time": end_time, "end_of_stream": not more,
               "next_page": _url(base, request, {"start_time": end_time, "per_page": per_page})})


@router.get("/api/v2/incremental/tickets/cursor", operation_id="export_tickets_cursor",
            summary="Incremental ticket export, cursor based", response_model=CursorExport)
async def tickets_cursor(episode: EpisodeDep, request: Request, base: Base,
                         start_time: StartTime = None, cursor: Cursor = None,
                         per_page: PerPage = MAX_EXPORT_PAGE) -> Response:
    """Tickets created or changed since start_time (Unix time), oldest change first; the
    next page (and, on the last page, the next export) from after_cursor."""
    return cursor_export(episode, request, base, "tickets", start_time, cursor, per_page)


@router.get("/api/v2/incremental/tickets", operation_id="export_tickets_time",
            summary="Incremental ticket export, time based", response_model=TimeExport)
async def tickets_time(episode: EpisodeDep, request: Request, base: Base,
                       start_time: StartTime = None,
                       per_page: PerPage = MAX_EXPORT_PAGE) -> Response:
    """Tickets created or changed since start_time (Unix time), oldest change first; the
    next page from next_page (start_time = end_time) until end_of_stream."""
    return time_export(episode, request, base, "tickets", start_time, per_page)


@router.get("/api/v2/incremental/users/cursor", operation_id="export_users_cursor",
            summary="Incremental user export, cursor based", response_model=CursorExport)
async def users_cursor(episode: EpisodeDep, request: Request, base: Base,
                       start_time: StartTime = None, cursor: Cursor = None,
                       per_page: PerPage = MAX_EXPORT_PAGE) -> Response:
    """Users created or changed since start_time (Unix time), as the ticket export."""
    return cursor_export(episode, request, base, "users", start_time, cursor, per_page)


@router.get("/api/v2/incremental/users", operation_id="export_users_time",
            summary="Incremental user export, time based", response_model=TimeExport)
async def users_time(episode: EpisodeDep, request: Request, base: Base,
                     start_time: StartTime = None,
                     per_page: PerPage = MAX_EXPORT_PAGE) -> Response:
    """Users created or changed since start_time (Unix time), as the ticket export."""
    return time_export(episode, request, base, "users", start_time, per_page)
