"""What the tracker's pages share: the renderer (``templates/``) and its route class, the
user the pages act as (the episode's agent, as the API's token is), the forms they post
(form-encoded, read by :func:`form`) and the issue key in a page's path."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam
from starlette.requests import Request

from replicas.runtime.pages import Form, Pages, posted

from ..errors import JiraError
from ..world import AGENT_ID

PAGES = Pages(Path(__file__).with_name("templates"))
CALLER = AGENT_ID
IssueKey = Annotated[str, PathParam(max_length=40, pattern=r"^[A-Za-z][A-Za-z0-9]*-[1-9][0-9]*$")]


def page_router() -> APIRouter:
    """A router of pages: outside the OpenAPI, a refusal shown as ``error.html``."""
    return APIRouter(route_class=PAGES.route_class("This link or form is not one of the "
                                                   "tracker's."), include_in_schema=False)


def put_changed_text(given: dict[str, Any], name: str, typed: str, current: str) -> None:
    """Set ``given[name]`` to the text typed in a form's field when it differs from the
    record's ``current`` text (empty: None, the field cleared), as Jira's dialogs send only
    what changed."""
    if typed.strip() != current.strip():
        given[name] = typed if typed.strip() else None


async def form(request: Request) -> Form:
    """The request's form-encoded body; a 400 when it is larger than any form of ours."""
    return Form(await posted(request, JiraError(400, ["The form is too large."],
                                                code="form_too_large")))
