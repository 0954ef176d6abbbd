"""What ties issues to each other and to people: links (``inwardIssue`` is the source, so
type Blocks with inwardIssue A and outwardIssue B means A blocks B, as Jira Cloud reads it),
remote links, watchers."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.db import one

from ..errors import JiraError
from ..world import data
from . import permissions
from .issues import get

Row = dict[str, Any]
# The helpdesk's ticket pages, as the support integration links them.
TICKET_URL = "https://shop.zendesk.com/agent/tickets/{id}"
_TICKET_IN_URL = re.compile(r"/tickets/(\d+)(?:\.json)?(?:[/?#]|$)")


def ticket_link(ticket_id: int) -> Row:
    """The remote link's columns for the helpdesk's ticket ``ticket_id``."""
    return {"global_id": f"zendesk-ticket-{ticket_id}", "url": TICKET_URL.format(id=ticket_id),
            "title": f"Ticket #{ticket_id}", "relationship": "mentioned in",
            "application": "Zendesk Support", "ticket_id": ticket_id}


def _remote_columns(issue: Row, body: Any) -> Row:
    """A remote link's columns from ``{globalId?, relationship?, application?: {name},
    object: {url, title}}`` (what the body leaves out is null), else Jira's 400."""
    target = body.get("object") if isinstance(body, dict) else None
    errors: dict[str, str] = {}
    if not isinstance(target, dict) or not str(target.get("url") or "").strip():
        errors["url"] = "'url' cannot be null or empty."
    if not isinstance(target, dict) or not str(target.get("title") or "").strip():
        errors["title"] = "'title' cannot be null or empty."
    if errors:
        raise JiraError(400, [], errors, code="remote_link_invalid")
    assert isinstance(body, dict) and isinstance(target, dict)
    url = str(target["url"]).strip()
    named = _TICKET_IN_URL.search(url)
    application = body.get("application")
    return {"issue_id": issue["id"], "global_id": body.get("globalId"), "url": url,
            "title": str(target["title"]).strip(), "relationship": body.get("relationship"),
            "application": application.get("name") if isinstance(application, dict) else None,
            "ticket_id": int(named.group(1)) if named else None}


def remote_link(db: sqlite3.Connection, issue: Row, body: Any, caller_id: int) -> tuple[int, bool]:
    """Add (or, with a known ``globalId``, replace) a link from ``issue`` to a URL (Link
    issues). A URL naming a helpdesk ticket (``…/tickets/123``, its page or its API URL)
    links that ticket. The link's id, and whether it is new."""
    permissions.require(db, issue["project_id"], caller_id, "link", key=issue["key"])
    columns = _remote_columns(issue, body)
    if columns["global_id"]:
        found = one(db, "SELECT id FROM remote_links WHERE issue_id = ? AND global_id = ?",
                    (issue["id"], columns["global_id"]))
        if found is not None:
            sql.update(db, "remote_links", found["id"], columns)
            return int(found["id"]), False
    return sql.insert(db, "remote_links", columns), True


def find_remote(db: sqlite3.Connection, issue: Row, link_id: int) -> Row:
    """The issue's remote link ``link_id``, else Jira's 404."""
    found = one(db, "SELECT * FROM remote_links WHERE id = ? AND issue_id = ?",
                (link_id, issue["id"]))
    if found is None:
        raise JiraError(404, [f"No remote link with id '{link_id}' on this issue."],
                        code="remote_link_not_found")
    return found


def update_remote(db: sqlite3.Connection, issue: Row, link_id: int, body: Any,
                  caller_id: int) -> None:
    """Replace a remote link's fields (Link issues); what the body leaves out is null."""
    permissions.require(db, issue["project_id"], caller_id, "link", key=issue["key"])
    find_remote(db, issue, link_id)
    sql.update(db, "remote_links", link_id, _remote_columns(issue, body))


def unlink_remote(db: sqlite3.Connection, issue: Row, caller_id: int, *,
                  link_id: int | None = None, global_id: str | None = None) -> None:
    """Remove a remote link, by id or by its global id (Link issues and Edit issues, as
    Jira asks)."""
    permissions.require(db, issue["project_id"], caller_id, "link", key=issue["key"])
    permissions.require(db, issue["project_id"], caller_id, "edit")
    if link_id is None:
        found = one(db, "SELECT id FROM remote_links WHERE issue_id = ? AND global_id = ?",
                    (issue["id"], global_id))
        if found is None:
            raise JiraError(404, [f"No remote link with globalId '{global_id}' on this "
                                  "issue."], code="remote_link_not_found")
        link_id = found["id"]
    assert link_id is not None
    db.execute("DELETE FROM remote_links WHERE id = ?", (find_remote(db, issue, link_id)["id"],))


def link(db: sqlite3.Connection, type_name: str, source: str, target: str,
         caller_id: int) -> int:
    """Link ``source`` (inwardIssue) to ``target`` (outwardIssue) by the type's outward
    phrase; the link's id."""
    if type_name not in {t[1] for t in data()["link_types"]}:
        raise JiraError(404, [f"No issue link type with name '{type_name}' found."],
                        code="link_type_not_found")
    a, b = get(db, source, caller_id), get(db, target, caller_id)
    for issue in (a, b):
        permissions.require(db, issue["project_id"], caller_id, "link", key=issue["key"])
    same = one(db, "SELECT id FROM issue_links WHERE link_type = ? AND inward_id = ? AND "
               "outward_id = ?", (type_name, a["id"], b["id"]))
    if same is not None:  # linking again changes nothing
        return int(same["id"])
    return sql.insert(db, "issue_links", {"link_type": type_name, "inward_id": a["id"],
                                          "outward_id": b["id"]})


_LINK = ("SELECT l.*, i.key AS inward_key, o.key AS outward_key, i.project_id FROM "
         "issue_links l JOIN issues i ON i.id = l.inward_id JOIN issues o ON "
         "o.id = l.outward_id WHERE l.id = ?")


def find_link(db: sqlite3.Connection, link_id: int, caller_id: int) -> Row:
    """The link ``link_id`` between two issues the caller may browse (with both keys and
    its inward issue's project), else Jira's 404."""
    found = one(db, _LINK, (link_id,))
    if found is None:
        raise JiraError(404, [f"No issue link with id '{link_id}' exists."],
                        code="link_not_found")
    for key in (found["inward_key"], found["outward_key"]):
        get(db, key, caller_id)  # both issues visible, or a 404
    return found


def unlink(db: sqlite3.Connection, link: Row, caller_id: int) -> None:
    permissions.require(db, link["project_id"], caller_id, "link", key=link["inward_key"])
    db.execute("DELETE FROM issue_links WHERE id = ?", (link["id"],))


def watch(db: sqlite3.Connection, issue: Row, account: str | None, caller_id: int) -> None:
    """Add a watcher (the caller when ``account`` is None); others need Manage watchers."""
    user_id = caller_id
    if account is not None:
        found = one(db, "SELECT id FROM users WHERE account_id = ?", (account,))
        if found is None:
            raise JiraError(404, ["The user does not exist."], code="user_not_found")
        user_id = found["id"]
    if user_id != caller_id:
        permissions.require(db, issue["project_id"], caller_id, "watchers")
    if one(db, "SELECT 1 AS y FROM watchers WHERE issue_id = ? AND user_id = ?",
           (issue["id"], user_id)) is None:
        sql.insert(db, "watchers", {"issue_id": issue["id"], "user_id": user_id})


def unwatch(db: sqlite3.Connection, issue: Row, account: str, caller_id: int) -> None:
    found = one(db, "SELECT id FROM users WHERE account_id = ?", (account,))
    if found is None:
        raise JiraError(404, ["The user does not exist."], code="user_not_found")
    if found["id"] != caller_id:
        permissions.require(db, issue["project_id"], caller_id, "watchers")
    db.execute("DELETE FROM watchers WHERE issue_id = ? AND user_id = ?",
               (issue["id"], found["id"]))
