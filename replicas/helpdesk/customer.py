"""The scripted customer (``actors.customer``, see actors.py): answers an agent's public
replies on one ticket.

After every successful write, each new public agent comment on that ticket gets
the first not-yet-used reply whose ``when_any`` matches, posted as a public
comment by the ticket's requester one (virtual) minute later; a pending ticket
goes back to open. Used replies and the last comment seen live in
``episode.memory``; everything is a function of the episode's writes.

A reply may contain ``{verification_code}``: the code of the requester's latest
pending email change (what the customer received at the new address). Such a
reply is only eligible while a pending email change exists.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.episode import Episode
from workgym_core.refs import resolve

from .actors import Actors
from .rules import email_verification_code

_MEMORY = "helpdesk.customer"
_CODE = "{verification_code}"


def _initial_last_comment_id(episode: Episode) -> int:
    """The highest comment id of the episode's starting state (seed + task setup)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(episode.initial)
        row = conn.execute("SELECT coalesce(max(id), 0) FROM comments").fetchone()
        return int(row[0])
    finally:
        conn.close()


def after_write(episode: Episode) -> None:
    actors = episode.actors
    if not isinstance(actors, Actors) or actors.customer is None:
        return
    script = actors.customer
    state: dict[str, Any] = episode.memory.setdefault(_MEMORY, {})
    if "last_seen" not in state:
        state["last_seen"] = _initial_last_comment_id(episode)
        state["used"] = []
    ticket_id = int(resolve(script.ticket, episode.vars))
    db = episode.db
    new = sql.rows(db, "SELECT * FROM comments WHERE id > ? ORDER BY id", (state["last_seen"],))
    if not new:
        return
    state["last_seen"] = new[-1]["id"]
    for comment in new:
        if (
            comment["ticket_id"] != ticket_id
            or comment["author_type"] != "agent"
            or not comment["public"]
        ):
            continue
        text = comment["body"].lower()
        for index, reply in enumerate(script.replies):
            if index in state["used"]:
                continue
            if any(needle.lower() in text for needle in reply.when_any):
                body = _fill_code(episode, ticket_id, reply.reply)
                if body is None:
                    continue
                state["used"].append(index)
                _post_reply(db, ticket_id, body, parse_iso(comment["created_at"]))
                break
    latest = sql.one(db, "SELECT coalesce(max(id), 0) AS n FROM comments")
    assert latest is not None
    state["last_seen"] = max(state["last_seen"], latest["n"])


def _fill_code(episode: Episode, ticket_id: int, body: str) -> str | None:
    """``body`` with ``{verification_code}`` filled in; None if there is no code to give."""
    if _CODE not in body:
        return body
    action = sql.one(
        episode.db,
        "SELECT a.customer_id, a.new_email FROM account_actions a JOIN tickets t "
        "ON t.requester_id = a.customer_id WHERE t.id = ? AND a.kind = 'email_change' "
        "AND a.status = 'pending' ORDER BY a.id DESC LIMIT 1",
        (ticket_id,),
    )
    if action is None or not action["new_email"]:
        return None
    code = email_verification_code(episode.secret, action["customer_id"], action["new_email"])
    return body.replace(_CODE, code)


def _post_reply(db: sqlite3.Connection, ticket_id: int, body: str, after: datetime) -> None:
    ticket = sql.one(db, "SELECT * FROM tickets WHERE id = ?", (ticket_id,))
    if ticket is None or ticket["status"] == "closed":
        return
    stamp = iso(after + timedelta(minutes=1))
    sql.insert(
        db,
        "comments",
        {
            "ticket_id": ticket_id,
            "author_type": "customer",
            "author_id": ticket["requester_id"],
            "body": body,
            "public": True,
            "created_at": stamp,
        },
    )
    values: dict[str, Any] = {"updated_at": stamp}
    if ticket["status"] == "pending":
        values["status"] = "open"
    sql.update(db, "tickets", ticket_id, values)
