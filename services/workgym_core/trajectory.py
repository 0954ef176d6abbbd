"""One recorded agent request: what the proxy writes and the reward engine reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field


class Operation(BaseModel):
    """An API operation a page's write performs (its route's declaration,
    ``replicas.runtime.pages.performs``): the API's method, route and canonical path, the
    request body the API would have been sent (when the page knew it) and the status the API
    would have answered (the page's refusal's, else the API route's success status)."""

    method: str = Field(description="HTTP method of the API operation, upper case.")
    path: str = Field(description="Its route's template filled with the canonical parameters.")
    route: str = Field(description="Template of the API route, e.g. "
                       "'/api/v2/tickets/{ticket_id}'.")
    params: dict[str, Any] = Field(default_factory=dict, description="Its path parameters.")
    request_body: Any = Field(None, description="The API's request body the page made, or None "
                              "(refused before it was made).")
    status: int = Field(description="The status the API would have answered.")


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
    operations: list[Operation] = Field(
        default_factory=list, description="The API operations a page's write performed or "
        "tried (refused: the refusal's status): trajectory assertions match them as they "
        "match API calls.")

    @property
    def is_write(self) -> bool:
        return self.method in {"POST", "PUT", "PATCH", "DELETE"}


def leads_on(browser: bool, status: int, fault: str | None) -> bool:
    """Whether an answer sends a browser on to a page it loads by itself (a form's 303): that
    load is the same action of the agent (:func:`followed`)."""
    return browser and 300 <= status < 400 and not fault


def goes_on(browser: bool, method: str) -> bool:
    """Whether a request may be the page a browser was sent on to (:func:`leads_on`)."""
    return browser and method == "GET"


def followed(before: TrajectoryStep, step: TrajectoryStep) -> bool:
    """Whether ``step`` is the page the browser loaded by itself after ``before`` (a form's
    post and the page it is sent on to are one action of a browser agent): the efficiency
    signal and the step budget count them as one."""
    return (leads_on(before.browser, before.status, before.fault)
            and goes_on(step.browser, step.method) and not step.fault)


def steps_of(recorded: Iterable[str | bytes]) -> list[TrajectoryStep]:
    """Steps from their recorded JSON (ValidationError for one that does not parse)."""
    return [TrajectoryStep.model_validate_json(item) for item in recorded]
