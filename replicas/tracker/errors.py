"""Jira's error body, and the error style that renders every error the tracker answers in it::

    {"errorMessages": ["Issue does not exist or you do not have permission to see it."],
     "errors": {}}
    {"errorMessages": [], "errors": {"summary": "You must specify a summary of the issue."}}

A refusal about a field goes under ``errors`` (field -> message), any other under
``errorMessages``; invalid input is Jira's 400. Jira's bodies carry no machine code: which
rule refused is our ``code``, kept on the exception and sent to the proxy in the
``x-workgym-error-code`` header (never forwarded to the agent), which the trajectory records
as the step's ``error_code``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from replicas.runtime.errors import ErrorStyle
from workgym_core.error_docs import RETRY_AFTER, ErrorDetail
from workgym_core.errors import InvalidRequest, NotFound, WorkGymError, json_response
from workgym_core.internal import ERROR_CODE_HEADER


class JiraError(WorkGymError):
    """A refusal in Jira's words: ``messages`` (errorMessages) and ``errors`` by field; its
    ``code`` names our rule (kept for the trajectory, never shown in Jira's body)."""

    def __init__(self, status: int, messages: list[str] | None = None,
                 errors: Mapping[str, str] | None = None, *, code: str) -> None:
        text = "; ".join([*(messages or []), *(errors or {}).values()])
        super().__init__(text, code=code)
        self.status_code = status
        self.messages = list(messages or [])
        self.errors = dict(errors or {})


ISSUE_NOT_FOUND = "Issue does not exist or you do not have permission to see it."


def body(exc: WorkGymError) -> dict[str, Any]:
    """Jira's body for ``exc``: its messages and field errors."""
    if isinstance(exc, JiraError):
        return {"errorMessages": exc.messages, "errors": exc.errors}
    if isinstance(exc, NotFound) and exc.field is None:
        return {"errorMessages": [ISSUE_NOT_FOUND if "issue" in exc.code else exc.message],
                "errors": {}}
    if isinstance(exc, InvalidRequest | NotFound) and exc.field:
        # The field's name, not an item's index ("id.0" is the parameter id's first value).
        name = next(p for p in reversed(exc.field.split(".")) if not p.isdigit())
        return {"errorMessages": [], "errors": {name: exc.message}}
    return {"errorMessages": [exc.message], "errors": {}}


def render(exc: WorkGymError) -> Response:
    status = 400 if isinstance(exc, InvalidRequest) else exc.status_code
    return json_response(body(exc), status_code=status,
                         headers={**(exc.headers or {}), ERROR_CODE_HEADER: exc.code})


class JiraErrorBody(BaseModel):
    """``{"errorMessages": [...], "errors": {field: message}}``; the gateway's own refusals
    (token, quotas, episode state) are ``{"error": {code, message}}`` instead."""

    model_config = ConfigDict(extra="forbid")

    errorMessages: list[str] | None = Field(None, description="What was refused, in words.")
    errors: dict[str, str] | None = Field(None, description="Refusals by field.")
    error: ErrorDetail | None = Field(None, description="The gateway's own refusals.")


STYLE = ErrorStyle(render=render, model=JiraErrorBody, statuses={
    400: ("Invalid input or a refused rule: a field not on the screen, a transition not valid "
          "now, a validator, JQL errors, or a missing permission Jira answers with 400.", {}),
    403: ("A permission Jira answers with 403 (assign, delete, manage watchers).", {}),
    410: ("A removed API (the old /search).", {}),
    429: ("Too many requests: wait Retry-After seconds.", RETRY_AFTER),
})
