"""HubSpot's error body, the exceptions that carry its fields, and the error style that
renders every error a HubSpot-shaped app answers in it::

    400 {"status": "error", "message": "Property values were not valid: [...]",
         "correlationId": "...", "category": "VALIDATION_ERROR",
         "errors": [{"message": "Property \\"nickname\\" does not exist",
                     "code": "PROPERTY_DOESNT_EXIST", "context": {"propertyName": ["nickname"]}}]}
    404 {"status": "error", "message": "Object not found.  objectId are usually numeric.",
         "correlationId": "...", "category": "OBJECT_NOT_FOUND", "context": {"id": ["9"]}}
    409 {"status": "error", "message": "Contact already exists. Existing ID: 51", ...,
         "category": "CONFLICT"}

``category`` follows the status unless an error names its own; the trajectory records the
error's code (HubSpot's category for its own errors) from a header the proxy never forwards.
``correlationId`` is HubSpot's request id: here a UUID derived from the error itself, so the
same refusal reads the same in every replay. Request validation (FastAPI's,
the runtime's canonical integers) is HubSpot's 400 VALIDATION_ERROR naming the field.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from workgym_core.error_docs import RETRY_AFTER
from workgym_core.errors import WorkGymError, json_response
from workgym_core.internal import ERROR_CODE_HEADER

from ..errors import ErrorStyle

# HubSpot's categories by status, for errors that do not name one.
_CATEGORIES = {400: "VALIDATION_ERROR", 401: "INVALID_AUTHENTICATION", 403: "MISSING_SCOPES",
               404: "OBJECT_NOT_FOUND", 409: "CONFLICT", 413: "VALIDATION_ERROR",
               422: "VALIDATION_ERROR", 429: "RATE_LIMITS"}
_CORRELATION = uuid.UUID("6b3c8f52-1d0e-4c59-9a57-0c1e7a3d2b40")


class HubSpotError(WorkGymError):
    """An error in HubSpot's words: its category, and the details of each thing refused."""

    status_code = 400
    code = "VALIDATION_ERROR"

    def __init__(self, message: str, *, category: str | None = None,
                 errors: Sequence[Mapping[str, Any]] = (),
                 context: Mapping[str, list[str]] | None = None, field: str | None = None,
                 rule: str | None = None) -> None:
        super().__init__(message, code=category, field=field, rule=rule)
        self.errors = [dict(e) for e in errors]
        self.context = dict(context or {})


class ObjectNotFound(HubSpotError):
    """No record (or pipeline, owner) by the id a path names: 404."""

    status_code = 404
    code = "OBJECT_NOT_FOUND"

    def __init__(self, object_id: str, message: str = "Object not found.  objectId are usually "
                                                      "numeric.") -> None:
        super().__init__(message, context={"id": [object_id]}, field="id")


class ObjectExists(HubSpotError):
    """A unique property's value another record has (a contact's email): 409."""

    status_code = 409
    code = "CONFLICT"

    def __init__(self, kind: str, existing_id: int) -> None:
        super().__init__(f"{kind.capitalize()} already exists. Existing ID: {existing_id}")


class PropertyValuesInvalid(HubSpotError):
    """Property values refused: each named with HubSpot's reason (PROPERTY_DOESNT_EXIST,
    READ_ONLY_VALUE, INVALID_OPTION, ...); nothing is written."""

    def __init__(self, problems: Sequence[tuple[str, str, str]]) -> None:
        """``problems``: (property name, HubSpot's error code, message) each."""
        listed = [{"isValid": False, "message": message, "error": code, "name": name}
                  for name, code, message in problems]
        super().__init__(
            f"Property values were not valid: {json.dumps(listed)}",
            errors=[{"message": message, "code": code, "context": {"propertyName": [name]}}
                    for name, code, message in problems],
            field=f"properties.{problems[0][0]}", rule=problems[0][1])


def error_object(exc: WorkGymError) -> dict[str, Any]:
    """HubSpot's error body for ``exc``."""
    category = exc.code if isinstance(exc, HubSpotError) else _CATEGORIES.get(
        exc.status_code, "INTERNAL_ERROR" if exc.status_code >= 500 else "VALIDATION_ERROR")
    message = exc.message
    body: dict[str, Any] = {
        "status": "error", "message": message,
        "correlationId": str(uuid.uuid5(_CORRELATION, f"{exc.status_code} {message}")),
        "category": category}
    errors = exc.errors if isinstance(exc, HubSpotError) else []
    if not errors and exc.field and exc.status_code in (400, 422):
        errors = [{"message": message, "in": exc.field, "code": exc.rule or exc.code}]
    if errors:
        body["errors"] = errors
    if isinstance(exc, HubSpotError) and exc.context:
        body["context"] = exc.context
    return body


def render(exc: WorkGymError) -> Response:
    """Every error the app answers: HubSpot's body; HubSpot's 400 where WorkGym's runtime
    refuses a parameter with 422. HubSpot's body has no ``error.code``: the error's code goes
    to the proxy in its header (kept for the trajectory, never forwarded)."""
    status = 400 if exc.status_code == 422 else exc.status_code
    return json_response(error_object(exc), status_code=status,
                         headers={**(exc.headers or {}), ERROR_CODE_HEADER: exc.code})


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(description="What was refused.")
    code: str | None = Field(None, description="The reason, e.g. PROPERTY_DOESNT_EXIST, "
                             "READ_ONLY_VALUE, INVALID_OPTION.")
    in_: str | None = Field(None, alias="in", description="The request field refused.")
    subCategory: str | None = Field(None, description="A finer reason, if any.")
    context: dict[str, list[str]] | None = Field(None, description="What it is about, e.g. "
                                                 "{propertyName: [name]}.")


class Error(BaseModel):
    """HubSpot's error body."""

    model_config = ConfigDict(extra="forbid")

    status: str = Field(description="Always 'error'.")
    message: str = Field(description="What was refused and why.")
    correlationId: str = Field(description="The request's id (quote it to support).")
    category: str = Field(description="The kind of error: VALIDATION_ERROR, OBJECT_NOT_FOUND, "
                          "CONFLICT, RATE_LIMITS, INVALID_AUTHENTICATION, ...")
    subCategory: str | None = Field(None, description="A finer kind, if any.")
    errors: list[ErrorDetail] | None = Field(None, description="Each thing refused.")
    context: dict[str, list[str]] | None = Field(None, description="What the error is about, "
                                                 "e.g. {id: ['9']}.")
    links: dict[str, str] | None = Field(None, description="Documentation links, if any.")


STYLE = ErrorStyle(render=render, model=Error, statuses={
    400: ("Invalid request (category VALIDATION_ERROR): a property that does not exist, is "
          "read-only, or has a value not allowed; a malformed body or parameter; too many "
          "inputs or filters.", {}),
    404: ("No record, pipeline or owner with that id (category OBJECT_NOT_FOUND).", {}),
    409: ("A unique property's value another record has (category CONFLICT): 'Contact "
          "already exists. Existing ID: N'.", {}),
    429: ("Too many requests (category RATE_LIMITS): wait Retry-After seconds.", RETRY_AFTER),
})
