"""One recorded agent request: what the proxy writes and the reward engine reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field


class TrajectoryStep(BaseModel):
    index: int = Field(description="0-based position of the request in the episode.")
    app: str = Field(description="Replica the request was addressed to, e.g. 'helpdesk'.")
    method: str = Field(description="HTTP method, upper case.")
    path: str = Field(description="Path inside the app, e.g. '/api/v2/tickets/12': the "
                      "canonical path of the route the replica matched (its template filled "
                      "with the canonical parameters), else the decoded path as sent.")
    route: str | None = Field(
        None, description="Template of the route the replica matched, e.g. "
        "'/api/v2/tickets/{ticket_id}'; None when no route matched (or no replica answered).")
    params: dict[str, Any] = Field(
        default_factory=dict, description="The matched route's path parameters, canonical "
        "(ids as integers).")
    query: str = Field("", description="Raw query string, without '?'.")
    request_body: Any = Field(None, description="Parsed JSON body, or None.")
    request_text: str | None = Field(
        None, description="The body as text (cut), when it was not JSON.")
    idempotency_key: str | None = Field(
        None, description="The request's Idempotency-Key header (cut to 255 characters): a "
        "write sent again with the same key is a safe retry where the app honours keys.")
    status: int = Field(description="Status code the agent received.")
    response_body: Any = Field(None, description="Parsed JSON response (None when cut).")
    error_code: str | None = Field(None, description="error.code of an error response.")
    duration_ms: float = Field(0.0, description="Wall time spent serving the request.")
    fault: str | None = Field(
        None, description="Fault kinds injected on this step, comma-separated, if any.")
    changes: list[dict[str, Any]] = Field(
        default_factory=list, description="Rows the step changed: {table, op, id, ref} (ref: "
        "the id the app's API shows for the row).")
    reads: list[str] = Field(
        default_factory=list, description="Tables a read read (what it could have seen).")
    affected: list[dict[str, Any]] = Field(
        default_factory=list, description="Rows a fault on this step changed behind the "
        "agent's back, {table, op, id, ref} (another actor's changes: state_drift).")
    browser: bool = Field(False, description="Sent by a browser on the app's pages (with the "
                          "episode's browser cookie: a page load or a form's post), not by an "
                          "API client.")

    @property
    def is_write(self) -> bool:
        return self.method in {"POST", "PUT", "PATCH", "DELETE"}


def steps_of(recorded: Iterable[str | bytes]) -> list[TrajectoryStep]:
    """Steps from their recorded JSON (ValidationError for one that does not parse)."""
    return [TrajectoryStep.model_validate_json(item) for item in recorded]
