"""What the workspace's pages share: the renderer (``templates/``) and its route class, the
agent the pages act as (the episode's own agent, as the API's token is), the channel their
changes are audited through, how a form is read (and checked as the API's request), and the
people and groups they name."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from replicas.runtime.db import rows
from replicas.runtime.pages import Pages
from workgym_core.errors import InvalidRequest

from ..rules.common import ACTING_AGENT_ID, invalid

PAGES = Pages(Path(__file__).with_name("templates"))
PageRoute = PAGES.route_class("This link or form is not one of the workspace's.")
CALLER = ACTING_AGENT_ID
VIA = "web"  # Zendesk audits what an agent does in the agent workspace as via web
MAX_FORM = 65_536
STATUS_NAMES = {"new": "New", "open": "Open", "pending": "Pending", "hold": "On-hold",
                "solved": "Solved", "closed": "Closed"}

Form = dict[str, list[str]]
M = TypeVar("M", bound=BaseModel)


async def read_form(request: Request) -> Form:
    """The posted form's fields (each a list of its values, blanks kept); a form past
    :data:`MAX_FORM` bytes is refused."""
    raw = await request.body()
    if len(raw) > MAX_FORM:
        raise invalid("form", f"is larger than {MAX_FORM} bytes", "form_too_large")
    return parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)


def field(form: Form, name: str) -> str:
    """A form field's (first) value, '' when absent."""
    return form.get(name, [""])[0]


def validated(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as the API's request ``model`` (its rules, its limits); a refusal names the
    first field at fault and the rule, as the API's 422 does."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = ".".join(str(part) for part in error["loc"])
        raise InvalidRequest(f"{name}: {error['msg']}", field=name,
                             rule=error["type"]) from exc


def names(db: sqlite3.Connection) -> dict[int, str]:
    """Every user's name by id."""
    return {u["id"]: u["name"] for u in rows(db, "SELECT id, name FROM users")}


def groups(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The groups tickets can be routed to."""
    return rows(db, "SELECT id, name FROM groups WHERE NOT deleted ORDER BY id")


def agents(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """The agents tickets can be assigned to."""
    return rows(db, "SELECT id, name FROM users WHERE role != 'end-user' AND active "
                "ORDER BY name, id")


__all__ = ["CALLER", "PAGES", "STATUS_NAMES", "VIA", "Form", "PageRoute", "agents", "field",
           "groups", "names", "read_form", "validated"]
