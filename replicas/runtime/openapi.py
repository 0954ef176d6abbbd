"""The replica's OpenAPI document, as agents meet it: every status they can get, documented.

Agents reach a replica only through the fault proxy, which answers on its own
(token, episode state, quotas, sizes, injected faults) besides what the replica
answers (validation, rules, missing records, internal errors). :data:`AGENT_ERRORS`
lists them once; :func:`document_agent_errors` adds each, with the error body
schema, to every operation of the generated document.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from workgym_core.error_docs import RETRY_AFTER as _RETRY_AFTER

from .errors import ErrorStyle

# status -> (description, response headers). 400 only where a body is sent (see below).
AGENT_ERRORS: dict[int, tuple[str, dict[str, Any]]] = {
    400: ("The request body could not be decoded (e.g. not UTF-8): error.code "
          "'malformed_body', error.field 'body'. Malformed JSON is a 422 'malformed_json'.", {}),
    401: ("The episode token is missing, unknown or expired ('token_expired': refresh it).", {}),
    404: ("A referenced record, the route or the episode does not exist.", {}),
    409: ("The request conflicts with the current state, or the episode accepts no more "
          "requests (finished, step budget spent).", {}),
    410: ("The episode expired and was reclaimed; start a new episode.", {}),
    413: ("The request body is too large.", {}),
    422: ("Invalid request (a field, a parameter, malformed JSON, a body nested too deep) or a "
          "business rule refused it: see error.code, error.field and error.rule.", {}),
    429: ("Too many requests: wait Retry-After seconds.", _RETRY_AFTER),
    431: ("The request headers are too many or too large.", {}),
    500: ("Internal error; the request was not applied. Retrying is safe.", {}),
    502: ("Bad gateway, or the episode was lost. May be an HTML page from a gateway.", {}),
    503: ("The service or one of its dependencies is unavailable: retry after Retry-After.",
          _RETRY_AFTER),
    504: ("The request timed out; it may have been applied: check before retrying.", {}),
}
# Gateways answer some statuses with their own HTML pages rather than JSON.
_HTML = {502: {"text/html": {"schema": {"type": "string"}}}}
_FASTAPI_VALIDATION = ("HTTPValidationError", "ValidationError")
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _error_schemas(model: type[BaseModel]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the error body's $ref, the component schemas it needs)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    components = schema.pop("$defs", {})
    components[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}, components


def document_agent_errors(document: dict[str, Any], style: ErrorStyle) -> dict[str, Any]:
    """Document every :data:`AGENT_ERRORS` status and the style's own on every operation (in
    place), with the style's error body, replacing FastAPI's own 422 (``{"detail": [...]}``,
    a body WorkGym never answers)."""
    ref, components = _error_schemas(style.model)
    statuses = {**AGENT_ERRORS, **style.statuses}
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name in _FASTAPI_VALIDATION:
        schemas.pop(name, None)
    schemas.update(components)
    for item in document.get("paths", {}).values():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status, (description, headers) in sorted(statuses.items()):
                if status == 400 and "requestBody" not in operation and 400 not in style.statuses:
                    continue  # WorkGym's 400 is an undecodable body: only a body can be
                content = {"application/json": {"schema": ref}, **_HTML.get(status, {})}
                response: dict[str, Any] = {"description": description, "content": content}
                if headers:
                    response["headers"] = headers
                responses[str(status)] = response
    return document
