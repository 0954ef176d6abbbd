"""What the workspace's pages share: the renderer (``templates/``) and its route class, the
agent the pages act as (the episode's own agent, as the API's token is), the channel their
changes are audited through, a form's fields, and the people and groups they name."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from replicas.runtime.db import rows
from replicas.runtime.pages import MAX_FORM, Pages, posted
from workgym_core.errors import InvalidRequest

from ..rules.common import ACTING_AGENT_ID

PAGES = Pages(Path(__file__).with_name("templates"))
PageRoute = PAGES.route_class("This link or form is not one of the workspace's.")
CALLER = ACTING_AGENT_ID
VIA = "web"  # Zendesk audits what an agent does in the agent workspace as via web
STATUS_NAMES = {"new": "New", "open": "Open", "pending": "Pending", "hold": "On-hold",
                "solved": "Solved", "closed": "Closed"}
M = TypeVar("M", bound=BaseModel)


async def form(request: Request) -> dict[str, str]:
    """The posted form's fields (url-encoded; the first value of each, blank ones kept; a
    textarea's CRLF line ends as LF, as the API stores text)."""
    fields = await posted(request, InvalidRequest(
        f"the form is larger than {MAX_FORM} bytes", field="form", rule="too_large"))
    return {key: values[0].replace("\r\n", "\n") for key, values in fields.items()}


def validated(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as the API's request ``model`` (its rules, its limits); a refusal names the
    first field at fault and the rule, as the API's 422 does."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        raise InvalidRequest(f"{field}: {error['msg']}", field=field,
                             rule=error["type"]) from exc


def names(db: sqlite3.Connection) -> dict[int, str]:
    """Every user's name by id."""
    return {u["id"]: u["name"] for u in rows(db, "SELECT id, name FROM users")}


def assignees(db: sqlite3.Connection) -> dict[int, str]:
    """Every agent's name by id as a ticket's assignee shows it: a deactivated one says so
    (the ticket is still theirs, and nobody is working it)."""
    return {u["id"]: u["name"] if u["active"] else f"{u['name']} (deactivated)" for u in rows(
        db, "SELECT id, name, active FROM users WHERE role != 'end-user'")}


def groups(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The groups tickets can be routed to."""
    return rows(db, "SELECT id, name FROM groups WHERE NOT deleted ORDER BY id")


def agents(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The agents tickets can be assigned to."""
    return rows(db, "SELECT id, name FROM users WHERE role != 'end-user' AND active "
                "ORDER BY name, id")


__all__ = ["CALLER", "PAGES", "STATUS_NAMES", "VIA", "PageRoute", "agents", "assignees", "form",
           "groups", "names", "validated"]
