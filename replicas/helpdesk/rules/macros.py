"""Macros as Zendesk applies them: applying one changes nothing. It returns what the ticket
would become (its fields and the comment to add) for the agent to review and save with an
update."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime.db import get_row

from .common import invalid
from .conditions import apply_actions
from .triggers import as_evaluated, placeholders

Row = dict[str, Any]


def effect(db: sqlite3.Connection, macro_id: int, ticket_id: int | None,
           now: datetime) -> tuple[Row, dict[str, Any], Row | None]:
    """(the ticket's columns after the macro, the columns it changes, its comment or None);
    without a ticket, the changes on an empty one."""
    macro = get_row(db, "macros", macro_id)
    if not macro["active"]:
        raise invalid("macro_id", f"macro {macro_id} ({macro['title']}) is inactive",
                      "macro_inactive")
    ticket = get_row(db, "tickets", ticket_id) if ticket_id is not None else None
    result = apply_actions(orjson.loads(macro["actions"]),
                           as_evaluated(ticket) if ticket is not None else {})
    comment = None
    if result.comment is not None:
        body = placeholders(result.comment["body"], ticket, db) if ticket is not None \
            else result.comment["body"]
        comment = {"body": body, "public": result.comment["public"]}
    after = {**(as_evaluated(ticket) if ticket is not None else {}), **result.changes}
    return after, result.changes, comment
