"""The exception root of WorkGym and its single mapping to JSON responses.

Every service raises subclasses of :class:`WorkGymError`; the HTTP status lives
on the class (as in httpx's and Litestar's trees) and :func:`install` maps the
whole tree, FastAPI's validation errors and malformed bodies to one JSON shape:

    {"error": {"code": "...", "message": "...", "field": "...", "rule": "..."}}

(A replica of a product whose API has an error object of its own renders the same errors in
that shape instead: ``install(app, render)``.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from starlette.responses import Response

if TYPE_CHECKING:  # FastAPI is imported by the services that use install(), not the proxy
    from fastapi import FastAPI
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException as StarletteHTTPException


class WorkGymError(Exception):
    """Root of every error a WorkGym service reports to a client."""

    status_code = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        rule: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.field = field
        self.rule = rule
        self.headers = headers

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        if self.rule is not None:
            error["rule"] = self.rule
        return {"error": error}

    def response(self) -> Response:
        return json_response(self.body(), status_code=self.status_code, headers=self.headers)


class InvalidRequest(WorkGymError):
    status_code = 422
    code = "invalid_request"

    # The validator's own words for a request validation error (pydantic's ``msg``), for an
    # app whose product words it so (Stripe's "Invalid integer: <value>").
    detail: str | None = None


class Unauthorized(WorkGymError):
    status_code = 401
    code = "unauthorized"


class Forbidden(WorkGymError):
    status_code = 403
    code = "forbidden"


class NotFound(WorkGymError):
    status_code = 404
    code = "not_found"


class Conflict(WorkGymError):
    status_code = 409
    code = "conflict"


class Gone(WorkGymError):
    status_code = 410
    code = "gone"


class PayloadTooLarge(WorkGymError):
    status_code = 413
    code = "payload_too_large"


class RequestTimeout(WorkGymError):
    status_code = 408
    code = "request_timeout"


class HeadersTooLarge(WorkGymError):
    status_code = 431
    code = "headers_too_large"


class TooManyRequests(WorkGymError):
    """A quota refused the request; ``Retry-After`` says when to try again."""

    status_code = 429
    code = "quota_exceeded"

    def __init__(self, message: str, *, retry_after_s: float, **kwargs: Any) -> None:
        super().__init__(message, headers={"retry-after": str(max(1, round(retry_after_s)))},
                         **kwargs)


def busy() -> ServiceUnavailable:
    """What a client is told when the server sheds load: JSON 503 with Retry-After."""
    return ServiceUnavailable("the server is at capacity; retry shortly", code="server_busy",
                              retry_after_s=1)


class ServiceUnavailable(WorkGymError):
    """A dependency (Redis, a replica) is down or the service is at capacity: try later."""

    status_code = 503
    code = "service_unavailable"

    def __init__(self, message: str, *, retry_after_s: float = 1, **kwargs: Any) -> None:
        super().__init__(message, headers={"retry-after": str(max(1, round(retry_after_s)))},
                         **kwargs)


class RuleViolation(WorkGymError):
    """A business rule of a replica refused the request (the rule names which)."""

    status_code = 422
    code = "rule_violation"


class UpstreamError(WorkGymError):
    status_code = 502
    code = "upstream_error"


class ConfigError(WorkGymError):
    """Settings that cannot run (found at startup, before any request)."""

    status_code = 500
    code = "misconfigured"


# Conditions services tell apart by type (never by comparing code strings).


class EpisodeNotFound(NotFound):
    """No such episode here: a replica instance does not hold it (finished, expired, or the
    instance restarted), or a credential may not see it."""

    code = "episode_not_found"


class ReplicaUnreachable(UpstreamError):
    """A replica instance did not answer: what failed, never where (hosts stay internal)."""

    code = "replica_unreachable"

    def __init__(self, message: str = "the app's server is unreachable", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)


class EpisodeLost(UpstreamError):
    """The episode is gone with what held it; ``reason`` says what happened."""

    code = "episode_lost"

    def __init__(self, reason: str, **kwargs: Any) -> None:
        super().__init__(f"this episode is lost: {reason}; start a new episode", **kwargs)
        self.reason = reason


def _codes(root: type[WorkGymError]) -> dict[str, type[WorkGymError]]:
    found = {root.code: root}
    for sub in root.__subclasses__():
        found.update(_codes(sub))
    return found


def from_wire(status: int, body: Any) -> WorkGymError:
    """The typed error another WorkGym service answered with: the class of its code (or a
    plain WorkGymError carrying code and status), its message, field and rule."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        found = WorkGymError("the app's server refused the request", code="upstream_error")
        found.status_code = status
        return found
    cls = _codes(WorkGymError).get(error["code"], WorkGymError)
    found = WorkGymError.__new__(cls)
    WorkGymError.__init__(found, str(error.get("message", "")), code=error["code"],
                          field=error.get("field"), rule=error.get("rule"))
    found.status_code = status
    return found


def error_code(body: Any) -> str | None:
    """``error.code`` of an error body, or ``error`` itself where a product names its errors
    with a string (Zendesk's ``{"error": "RecordInvalid", ...}``)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    code = error.get("code") if isinstance(error, dict) else error
    return code if isinstance(code, str) else None


def json_response(
    content: Any, *, status_code: int = 200, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(content), status_code=status_code, headers=headers,
        media_type="application/json",
    )


# The tags pydantic puts in an error's location for the member of a union it tried
# ('dict[constrained-str,nullable[constrained-str]]', 'constrained-int', 'literal['']'):
# not fields, so not named. A bracketed parameter name (``page[size]``) is a field.
_UNION_TAG = re.compile(
    r"^(?:(?:dict|list|tuple|set|frozenset|literal|nullable|union|tagged-union|model|"
    r"function-(?:after|before|wrap|plain)|json-or-python|lax-or-strict|default|chain)"
    r"\[.*\]|constrained-[a-z]+|str|int|float|bool|none)$")


def field_path(loc: Sequence[Any]) -> list[str]:
    """A pydantic error's location as the fields it names (the union tags left out)."""
    return [str(p) for p in loc if not _UNION_TAG.match(str(p))]


def _validation_error(exc: RequestValidationError) -> WorkGymError:
    first = exc.errors()[0]
    loc = field_path(first.get("loc", ()))
    if loc and loc[0] in {"body", "query", "path", "header"}:
        where, parts = loc[0], loc[1:]
    else:
        where, parts = "body", loc
    field = ".".join(parts) or where
    kind = first.get("type", "invalid")
    if kind == "json_invalid":
        return InvalidRequest(
            f"request body is not valid JSON: {first.get('msg', '')}",
            code="malformed_json", field="body", rule="json_invalid",
        )
    found = InvalidRequest(
        f"{where} field '{field}': {first.get('msg', 'invalid')}",
        code="validation_error", field=field, rule=kind,
    )
    found.detail = first.get("msg")
    return found


def _undecodable_body(cause: BaseException) -> WorkGymError:
    """FastAPI's bare 400 for a body it could not decode (not UTF-8, nested past the parser's
    depth), raised from the decoder's error: named, without the decoder's text."""
    if isinstance(cause, UnicodeDecodeError):
        return WorkGymError("request body is not valid UTF-8", code="malformed_body",
                            field="body", rule="utf-8")
    return WorkGymError("request body could not be decoded", code="malformed_body",
                        field="body", rule="decodable")


# What a client sees of an unhandled exception: never its text, traceback, SQL or URLs.
INTERNAL_ERROR = {"error": {"code": "internal_error",
                            "message": "an internal error occurred while handling the request"}}

# How an app answers an error: WorkGym's body by default (a replica of a product with an
# error object of its own renders that instead).
Render = Callable[[WorkGymError], Response]


def _http_error(exc: StarletteHTTPException) -> WorkGymError:
    """Starlette's own refusals (no route, a method not allowed) as WorkGym errors."""
    if exc.status_code == 400 and exc.__cause__ is not None:
        return _undecodable_body(exc.__cause__)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    found = WorkGymError(str(exc.detail), code=code, headers=getattr(exc, "headers", None))
    found.status_code = exc.status_code
    return found


def internal_error() -> WorkGymError:
    """What an unhandled exception is answered as (see :data:`INTERNAL_ERROR`)."""
    found = WorkGymError(INTERNAL_ERROR["error"]["message"], code="internal_error")
    found.status_code = 500
    return found


def install(app: FastAPI, render: Render = WorkGymError.response, *,
            plain_under: str | None = None) -> None:
    """Map the WorkGym error tree, FastAPI's own errors and any unhandled exception to JSON
    answers made by ``render``, once per app; under the path ``plain_under`` (routes for
    WorkGym's own services, not the product's clients) always in WorkGym's body."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException as StarletteHTTPException

    def answer(request: Request, exc: WorkGymError) -> Response:
        if plain_under is not None and request.url.path.startswith(plain_under):
            return exc.response()
        return render(exc)

    async def workgym_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WorkGymError)
        return answer(request, exc)

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return answer(request, _validation_error(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return answer(request, _http_error(exc))

    async def unhandled(request: Request, exc: Exception) -> Response:
        # Starlette's ServerErrorMiddleware sends this, then re-raises for the server to log.
        return answer(request, internal_error())

    app.add_exception_handler(WorkGymError, workgym_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unhandled)
