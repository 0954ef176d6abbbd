"""Stripe's error object, the checkout's exception tree, and the error style that renders every
error the app answers in Stripe's shape::

    {"error": {"type": "card_error", "code": "card_declined", "decline_code":
               "insufficient_funds", "message": "Your card has insufficient funds.",
               "param": null, "charge": "ch_...", "payment_intent": {...}}}

``type`` follows the status (402 card_error, 5xx api_error, others invalid_request_error)
unless an error says otherwise (idempotency_error); ``code`` is there (trajectories
record it): Stripe's where it has one, else the runtime's (``episode_not_found``...);
only a 404 for a URL the app does not serve has none, as Stripe's (``type`` and ``message``
alone; under /v1 in Stripe's words: :class:`UnrecognizedURL`). Request validation (FastAPI's,
the runtime's canonical integers) becomes Stripe's 400 with its codes and wording
(``Missing required param: amount.``) and the parameter in bracket notation
(``payment_method_data[card][number]``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from replicas.runtime.errors import ErrorStyle
from workgym_core.error_docs import RETRY_AFTER
from workgym_core.errors import InvalidRequest, WorkGymError, json_response

ErrorType = Literal["api_error", "card_error", "idempotency_error", "invalid_request_error"]


class StripeError(WorkGymError):
    """Root of the checkout's errors: Stripe's ``type``, ``param`` and extra fields."""

    status_code = 400
    code = "invalid_request_error"
    type: ErrorType = "invalid_request_error"
    # Stripe's error has only its type and message (no code, no param).
    bare = False

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None,
                 **extra: Any) -> None:
        super().__init__(message, code=code, field=param)
        self.extra = {k: v for k, v in extra.items() if v is not None}


class InvalidRequestError(StripeError):
    """A request Stripe refuses: parameters, or the object's state (400)."""


class ResourceMissing(StripeError):
    """No such object: 404 when the path names it, 400 when a parameter does."""

    status_code = 404
    code = "resource_missing"

    def __init__(self, kind: str, object_id: str, *, param: str = "id") -> None:
        super().__init__(f"No such {kind}: '{object_id}'", param=param)
        if param != "id":
            self.status_code = 400


class UnrecognizedURL(StripeError):
    """A method and path under /v1 that Stripe does not serve: its 404, in its words."""

    status_code = 404
    bare = True

    def __init__(self, method: str, path: str) -> None:
        super().__init__(f"Unrecognized request URL ({method}: {path}). Please see "
                         "https://stripe.com/docs or we can help at https://support.stripe.com/.")


class CardError(StripeError):
    """The card was declined or failed (402); the intent and charge it left are named."""

    status_code = 402
    code = "card_declined"
    type = "card_error"


class IdempotencyError(StripeError):
    """An Idempotency-Key reused with other parameters (400)."""

    code = "idempotency_key_reused"
    type = "idempotency_error"


class IdempotencyKeyInUse(StripeError):
    """Another request with the same Idempotency-Key is being served (409: retry later)."""

    status_code = 409
    code = "idempotency_key_in_use"


# Pydantic's error types (the runtime's validation rules) -> Stripe's code and wording.
_VALIDATION: dict[str, tuple[str, str]] = {
    "missing": ("parameter_missing", "Missing required param: {param}."),
    "extra_forbidden": ("parameter_unknown", "Received unknown parameter: {param}"),
    "int_parsing": ("parameter_invalid_integer", "Invalid {param}: must be an integer"),
    "int_type": ("parameter_invalid_integer", "Invalid {param}: must be an integer"),
    # schemas.requests.INTEGER's refusal, worded by it: "Invalid integer: <value>".
    "stripe_integer": ("parameter_invalid_integer", "{detail}"),
    "canonical_integer": ("parameter_invalid_integer", "Invalid {param}: must be an integer "
                          "in canonical form (digits only)"),
    "greater_than_equal": ("parameter_invalid_integer",
                           "Invalid {param}: this value is below its minimum."),
    "less_than_equal": ("parameter_invalid_integer",
                        "Invalid {param}: this value is above its maximum."),
    "bool_parsing": ("parameter_invalid_boolean", "Invalid {param}: must be a boolean"),
    "json_invalid": ("malformed_json", "Invalid JSON body: {param}"),
}


def bracketed(field: str | None) -> str | None:
    """``payment_method_data.card.number`` -> ``payment_method_data[card][number]``."""
    if not field or field == "body":
        return None
    head, *rest = field.split(".")
    return head + "".join(f"[{part}]" for part in rest)


def _validation(exc: InvalidRequest) -> dict[str, Any]:
    param = bracketed(exc.field)
    named = param or "the request body"
    code, wording = _VALIDATION.get(exc.rule or "", ("parameter_invalid", ""))
    message = (wording.format(param=named, detail=exc.detail) if wording
               else f"Invalid {named}: {exc.message}")
    if exc.code == "malformed_json":
        code = "malformed_json"
    return {"type": "invalid_request_error", "code": code, "param": param, "message": message}


def _type_of(status: int) -> ErrorType:
    if status == 402:
        return "card_error"
    return "api_error" if status >= 500 else "invalid_request_error"


def error_object(exc: WorkGymError) -> dict[str, Any]:
    """Stripe's error object for ``exc``."""
    if isinstance(exc, StripeError) and exc.bare or exc.code == "not_found":
        return {"type": "invalid_request_error", "message": exc.message}
    if isinstance(exc, StripeError):
        error = {"type": exc.type, "code": exc.code, "message": exc.message,
                 "param": exc.field, **exc.extra}
    elif isinstance(exc, InvalidRequest):
        error = _validation(exc)
    else:
        error = {"type": _type_of(exc.status_code), "code": exc.code, "message": exc.message,
                 "param": bracketed(exc.field)}
    return {k: v for k, v in error.items() if v is not None}


def render(exc: WorkGymError) -> Response:
    """Every error the checkout answers: Stripe's body, the status Stripe uses (its 400 for
    a parameter WorkGym's runtime refuses with 422)."""
    status = 400 if isinstance(exc, InvalidRequest) else exc.status_code
    return json_response({"error": error_object(exc)}, status_code=status, headers=exc.headers)


class StripeErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: ErrorType | None = Field(
        None, description="The kind of error: card_error (a declined card, HTTP 402), "
        "invalid_request_error (parameters or the object's state), idempotency_error, "
        "api_error. Absent from the gateway's own refusals (token, quotas, episode state).")
    code: str | None = Field(None, description="Machine-readable error code, e.g. "
                             "'card_declined', 'resource_missing', "
                             "'payment_intent_unexpected_state'; absent from Stripe's 404 for "
                             "a URL it does not serve.")
    message: str = Field(description="What was refused and why.")
    param: str | None = Field(None, description="The parameter the error is about, in "
                              "bracket notation, if any.")
    decline_code: str | None = Field(None, description="Card errors: the issuer's reason, "
                                     "e.g. 'insufficient_funds'.")
    charge: str | None = Field(None, description="Card errors: the failed charge's id.")
    payment_intent: dict[str, Any] | None = Field(
        None, description="Card errors on a PaymentIntent: the PaymentIntent as it is now.")
    payment_method: dict[str, Any] | None = Field(
        None, description="Card errors: the PaymentMethod that failed.")
    field: str | None = Field(None, description="The gateway's own refusals: the field.")
    rule: str | None = Field(None, description="The gateway's own refusals: the rule.")


class StripeErrorBody(BaseModel):
    """Stripe's ``{"error": {type, code, message, param, ...}}``."""

    model_config = ConfigDict(extra="forbid")

    error: StripeErrorDetail = Field(description="The error.")


STYLE = ErrorStyle(render=render, model=StripeErrorBody, statuses={
    400: ("Invalid request: a parameter is missing, unknown or invalid, the object is not in a "
          "state that allows it (e.g. 'payment_intent_unexpected_state'), or an "
          "Idempotency-Key was reused with other parameters (type idempotency_error).", {}),
    402: ("The card was declined or failed (type card_error): see code and decline_code; the "
          "PaymentIntent and the failed charge are named.", {}),
    409: ("Another request with the same Idempotency-Key is in progress "
          "('idempotency_key_in_use': retry), or the episode accepts no more requests.", {}),
    422: ("The gateway refused the body: nested too deep ('too_deep').", {}),
    429: ("Too many requests: wait Retry-After seconds.", RETRY_AFTER),
})
