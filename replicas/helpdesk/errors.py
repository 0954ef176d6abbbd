"""Zendesk's error bodies, and the error style that renders every error the helpdesk answers
in them::

    404 {"error": "RecordNotFound", "description": "Not found"}
    422 {"error": "RecordInvalid", "description": "Record validation errors",
         "details": {"status": [{"description": "Status: closed prevents ticket update",
                                 "error": "ticket_closed"}]}}

A refused rule, an invalid parameter or a record named in the body that does not exist is
Zendesk's 422 RecordInvalid, its ``details`` keyed by the field, each entry naming the rule
in ``error``; a record named by the path that does not exist is 404 RecordNotFound. The
trajectory records the top-level ``error``. The gateway in front (the proxy) answers its own
refusals (token, quotas, episode state) in WorkGym's body ``{"error": {code, message}}``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from replicas.runtime.errors import ErrorStyle
from workgym_core.error_docs import RETRY_AFTER, ErrorDetail
from workgym_core.errors import InvalidRequest, NotFound, RuleViolation, WorkGymError, json_response

# WorkGym's error classes -> Zendesk's error names.
_NAMES = {404: "RecordNotFound", 409: "UpdateConflict", 403: "Forbidden",
          405: "InvalidEndpoint", 400: "InvalidValue", 500: "InternalError"}


# A request body's envelope keys: ``ticket.status`` is about the attribute ``status``.
_ENVELOPES = frozenset({"body", "ticket", "tickets", "user", "users", "identity",
                        "organization", "group", "macro", "view", "trigger"})


def _field(exc: WorkGymError) -> str:
    """The attribute an error is about, as Zendesk keys details: ``ticket.comment.body`` ->
    ``comment``, ``ids.0`` -> ``ids``, a missing ``ticket`` -> ``ticket``; ``base`` when
    none."""
    parts = [p for p in (exc.field or "").split(".") if p and not p.isdigit()]
    while len(parts) > 1 and parts[0] in _ENVELOPES:
        parts.pop(0)
    return parts[0] if parts and parts[0] != "body" else "base"


def body(exc: WorkGymError) -> dict[str, Any]:
    """Zendesk's error body for ``exc``."""
    if isinstance(exc, NotFound) and exc.field in (None, "id") or exc.code == "not_found":
        return {"error": "RecordNotFound", "description": "Not found"}
    if isinstance(exc, RuleViolation | InvalidRequest | NotFound):
        entry = {"description": exc.message, "error": exc.rule or exc.code}
        return {"error": "RecordInvalid", "description": "Record validation errors",
                "details": {_field(exc): [entry]}}
    return {"error": _NAMES.get(exc.status_code, exc.code), "description": exc.message}


def status_of(exc: WorkGymError) -> int:
    if isinstance(exc, NotFound) and not (exc.field in (None, "id") or exc.code == "not_found"):
        return 422  # a record named in the body that does not exist is the body's fault
    return 422 if isinstance(exc, InvalidRequest) else exc.status_code


def render(exc: WorkGymError) -> Response:
    return json_response(body(exc), status_code=status_of(exc), headers=exc.headers)


class ZendeskErrorEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = Field(description="What was refused and why.")
    error: str = Field(description="The rule that refused, e.g. 'ticket_closed'.")


class ZendeskErrorBody(BaseModel):
    """``{"error": name, "description", "details": {field: [{description, error}]}}``."""

    model_config = ConfigDict(extra="forbid")

    error: str | ErrorDetail = Field(
        description="Zendesk's error name: RecordNotFound, RecordInvalid, InvalidValue, "
        "Forbidden, UpdateConflict. The gateway's own refusals (token, quotas, episode "
        "state) carry an object {code, message} instead.")
    description: str | None = Field(None, description="What went wrong.")
    details: dict[str, list[ZendeskErrorEntry]] | None = Field(
        None, description="RecordInvalid: the refusals by field.")


STYLE = ErrorStyle(render=render, model=ZendeskErrorBody, statuses={
    422: ("RecordInvalid: a parameter is invalid, or a rule refused the change (the "
          "details name the field and the rule).", {}),
    429: ("Too many requests: wait Retry-After seconds.", RETRY_AFTER),
})
