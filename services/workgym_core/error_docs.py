"""The one error body every WorkGym service answers, as a model for OpenAPI documents."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Machine-readable error code, e.g. 'refund_exceeds_captured'.")
    message: str = Field(description="What was refused and why, in plain words.")
    field: str | None = Field(None, description="The request field the error is about, if any.")
    rule: str | None = Field(None, description="The business or validation rule that refused.")


class ErrorBody(BaseModel):
    """``{"error": {code, message, field, rule}}``."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail = Field(description="The error.")


# The response header of every 429 and 503, as documented.
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.",
                               "schema": {"type": "integer", "minimum": 0}}}
