"""HubSpot's forward paging: ``limit`` records, then ``paging.next.after``, the cursor the
next page starts from, with a ``link`` to it. A list's cursor is the id of the next page's
first record (records are listed by id), so a walk sees every record once even while records
are added; a search's is its offset (HubSpot's too)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from .errors import HubSpotError


def position(after: str | None) -> int:
    """The record id or offset ``after`` stands for (0: from the start)."""
    if after is None or after == "":
        return 0
    if not after.isdigit() or len(after) > 10:
        raise HubSpotError(f"Invalid paging cursor: after={after!r} is not a cursor this "
                           "list gave", field="after", rule="cursor")
    return int(after)


def paging(after: int | None, link: str | None = None) -> dict[str, Any] | None:
    """The ``paging`` of a page (None when it is the last): ``next.after`` and, for lists,
    ``next.link``: ``link`` (the list's URL) with the cursor."""
    if after is None:
        return None
    nxt: dict[str, Any] = {"after": str(after)}
    if link is not None:
        nxt["link"] = f"{link}?{urlencode({'after': after})}"
    return {"next": nxt}
