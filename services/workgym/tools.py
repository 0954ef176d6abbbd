"""Tool schemas derived from a replica's OpenAPI document, never written by hand.

One OpenAI function-calling tool per operation, named ``<app>_<operation_id>``;
its parameters merge the operation's path, query and JSON-body parameters.
The same catalogue turns a tool call back into an HTTP request: the arguments are checked
against the tool's schema (JSON Schema 2020-12, as OpenAPI 3.1 states it) and each path
argument is sent as one percent-encoded segment, so a call reaches exactly its operation.
Every entry (the SDK's ``call_tool``, the session protocol, the MCP endpoint) goes through
:meth:`Operation.request`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl, quote

import orjson
from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import best_match, by_relevance

from workgym_core.errors import InvalidRequest
from workgym_core.internal import escapes

from .errors import UnknownName

_METHODS = ("get", "post", "put", "patch", "delete")
BODY = "body"  # the argument of an operation whose JSON body is free-form
_SAID = 200  # characters of a schema error's own message a refusal quotes
# Which schema error a refusal names: the shallowest, an unknown argument before the rest.
_FIRST = by_relevance(strong=frozenset({"additionalProperties"}))

# The one tool of the gym itself, in every episode: a new token after a 401 saying it expired
# (POST /v1/episodes/{id}/token with the refresh token), for agents that act only by tools.
REFRESH_TOKEN = "workgym_refresh_token"
REFRESH_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": REFRESH_TOKEN,
    "description": "Get a new access token when a call answers 401 saying the access "
                   "token has expired; then retry that call.",
    "parameters": {"type": "object", "properties": {}, "required": [],
                   "additionalProperties": False},
}}


# The session's own tool (workgym.session): end the episode, with the final answer if any.
FINISH = "finish"
FINISH_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": FINISH,
    "description": "End the task. Give your final answer (what you found or did, in a few "
                   "words) when the task asks a question or wants a summary.",
    "parameters": {"type": "object", "properties": {"answer": {
        "type": "string", "maxLength": 4000, "description": "Your final answer, if any."}},
        "required": [], "additionalProperties": False},
}}


def _inline(schema: Any, components: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """Replace every ``$ref`` by its target: function schemas must be self-contained."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name in seen:  # recursive model: stop at an open object
                return {"type": "object"}
            target = _inline(components[name], components, (*seen, name))
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            return {**target, **extra}
        return {k: _inline(v, components, seen) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_inline(v, components, seen) for v in schema]
    return schema


@dataclass(frozen=True)
class Operation:
    app: str
    name: str
    method: str
    path: str
    path_params: tuple[str, ...]
    query_params: tuple[str, ...]
    body_params: tuple[str, ...]
    schema: dict[str, Any]
    # Headers the operation takes (e.g. Idempotency-Key), each as the argument header_arg(name).
    header_params: tuple[str, ...] = ()
    # The JSON body is free-form (no properties documented, or not an object: Jira's bodies,
    # a bare string): the whole body is the one argument BODY.
    whole_body: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        """The path template as a regex capturing the path parameters."""
        parts = re.split(r"\{(\w+)\}", self.path)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/]+)"
                        for i, p in enumerate(parts))
        return re.compile(regex)

    def arguments(self, path: str, query: str, body: Any) -> dict[str, Any] | None:
        """The tool-call arguments a recorded request corresponds to (None: not this tool)."""
        match = self.pattern.fullmatch(path)
        if match is None:
            return None
        props = self.schema["function"]["parameters"]["properties"]
        found: dict[str, Any] = {}
        for name, value in [*match.groupdict().items(), *parse_qsl(query)]:
            found[name] = int(value) if props.get(name, {}).get("type") == "integer" \
                and value.lstrip("-").isdigit() else value
        if self.whole_body:
            if body is not None:
                found[BODY] = body
        elif isinstance(body, dict):
            found.update(body)
        return found

    @cached_property
    def _validator(self) -> Draft202012Validator:
        return Draft202012Validator(self.schema["function"]["parameters"])

    def check(self, arguments: Any) -> None:
        """InvalidRequest naming the argument and the rule of the schema ``arguments`` break
        (jsonschema's best match, _FIRST), else nothing."""
        error: ValidationError | None = best_match(self._validator.iter_errors(arguments),
                                                   key=_FIRST)
        if error is None:
            return
        rule = str(error.validator)
        where = [str(p) for p in error.absolute_path]
        parameters = self.schema["function"]["parameters"]
        if rule == "additionalProperties" and not where and isinstance(arguments, dict):
            field = sorted(set(arguments) - set(parameters["properties"]))[0]
            raise InvalidRequest(f"tool {self.name} has no argument '{field}'",
                                 field=field, rule="unknown_argument")
        if rule == "required" and not where and isinstance(arguments, dict):
            field = next(n for n in parameters["required"] if n not in arguments)
            raise InvalidRequest(f"tool {self.name} needs argument '{field}'",
                                 field=field, rule="required")
        field = ".".join(where) or "arguments"
        said = error.message if len(error.message) <= _SAID else error.message[:_SAID] + "..."
        raise InvalidRequest(f"tool {self.name} argument '{field}' breaks its schema's "
                             f"'{rule}': {said}", field=field, rule=rule)

    def _segment(self, name: str, value: Any) -> str:
        """A path argument as the one segment it fills: percent-encoded, so '?', '#' and
        '%' are part of the id; a '/' (the app would route it as a separator) is refused."""
        text = str(value)
        if not text or "/" in text:
            raise InvalidRequest(
                f"tool {self.name} argument '{name}' is one path segment: it may not be "
                "empty or contain '/'", field=name, rule="path_segment")
        return quote(text, safe="")

    def request(self, arguments: dict[str, Any]
                ) -> tuple[str, str, dict[str, Any], Any, dict[str, str]]:
        """(method, path, query params, JSON body, headers) for a tool call's arguments;
        InvalidRequest for arguments the tool's schema refuses or a path that would leave
        the operation."""
        self.check(arguments)
        headers = {name: str(arguments[header_arg(name)]) for name in self.header_params
                   if header_arg(name) in arguments}
        path = self.path
        for name in self.path_params:
            path = path.replace("{" + name + "}", self._segment(name, arguments[name]))
            if escapes(path):  # a dot segment, a control character: the proxy's 404, no step
                raise InvalidRequest(
                    f"tool {self.name} argument '{name}' is one path segment: it may not be "
                    "'.' or '..' or hold control characters (even percent-encoded)",
                    field=name, rule="path_segment")
        params = {k: arguments[k] for k in self.query_params if k in arguments}
        if self.whole_body:
            return self.method, path, params, arguments.get(BODY), headers
        body = {k: arguments[k] for k in self.body_params if k in arguments}
        return self.method, path, params, (body if self.body_params else None), headers


def header_arg(header: str) -> str:
    """A header parameter's tool argument: ``Idempotency-Key`` -> ``idempotency_key``."""
    return header.lower().replace("-", "_")


def _operation(app: str, path: str, method: str, op: dict[str, Any], components: dict[str, Any]
               ) -> Operation:
    properties: dict[str, Any] = {}
    required: list[str] = []
    kinds: dict[str, list[str]] = {"path": [], "query": [], "header": [], "body": []}
    for param in op.get("parameters", []):
        if param["in"] not in kinds:
            continue
        schema = _inline(param.get("schema", {}), components)
        if "description" in param:
            schema["description"] = param["description"]
        argument = header_arg(param["name"]) if param["in"] == "header" else param["name"]
        properties[argument] = schema
        kinds[param["in"]].append(param["name"])
        if param.get("required"):
            required.append(argument)
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    whole = False
    if body is not None:
        schema = _inline(body["schema"], components)
        closed = schema.get("type") == "object" and schema.get("additionalProperties") is False
        if schema.get("properties") or closed:  # documented fields (maybe none)
            for name, prop in schema.get("properties", {}).items():
                properties[name] = prop
                kinds["body"].append(name)
            required.extend(schema.get("required", []))
        else:  # free-form: the body itself is the argument
            whole = True
            properties[BODY] = schema
            if op["requestBody"].get("required"):
                required.append(BODY)
    parameters = {"type": "object", "properties": properties, "required": required,
                  "additionalProperties": False}
    name = f"{app}_{op['operationId']}"
    description = " ".join(filter(None, [op.get("summary"), op.get("description")]))
    return Operation(
        app=app, name=name, method=method.upper(), path=path,
        path_params=tuple(kinds["path"]), query_params=tuple(kinds["query"]),
        body_params=tuple(kinds["body"]), header_params=tuple(kinds["header"]),
        whole_body=whole,
        schema={"type": "function",
                "function": {"name": name, "description": description[:1024],
                             "parameters": parameters}},
    )


class ToolCatalogue:
    def __init__(self, operations: list[Operation]) -> None:
        self._ops = {op.name: op for op in operations}

    @classmethod
    def from_openapi(cls, app: str, document: dict[str, Any]) -> ToolCatalogue:
        document = copy.deepcopy(document)
        components = document.get("components", {}).get("schemas", {})
        return cls([
            _operation(app, path, method, op, components)
            for path, item in document.get("paths", {}).items()
            for method, op in item.items() if method in _METHODS
        ])

    def __iter__(self) -> Iterator[Operation]:
        return iter(self._ops.values())

    def merged(self, other: ToolCatalogue) -> ToolCatalogue:
        return ToolCatalogue([*self._ops.values(), *other._ops.values()])

    def schemas(self) -> list[dict[str, Any]]:
        return [op.schema for op in self._ops.values()]

    def match(self, method: str, path: str, query: str, body: Any, route: str | None = None
              ) -> tuple[str, dict[str, Any]] | None:
        """(tool name, arguments) of a recorded request, or None if no tool makes it.
        ``route``: the template of the route the app matched, when ``path`` is a
        trajectory's (the path inside the app's mount, as the route sees it) rather than a
        span's (as sent): a tool's path ends with that route, after the mount."""
        for op in self._ops.values():
            if op.method == method:
                sent = path
                if route is not None:
                    if not op.path.endswith(route):
                        continue
                    sent = op.path[:len(op.path) - len(route)] + path
                arguments = op.arguments(sent, query, body)
                if arguments is not None:
                    return op.name, arguments
        return None

    def get(self, name: str) -> Operation:
        """The tool ``name``; UnknownName listing the tools there are."""
        op = self._ops.get(name)
        if op is None:
            apps = sorted({op.app for op in self._ops.values()})
            raise UnknownName("tool", name, f"app {', '.join(apps) or '(none)'}", self._ops)
        return op


def tool_app(name: str, apps: Iterable[str]) -> str:
    """The app of the episode's tool ``name`` (its name's prefix); UnknownName listing the
    prefixes the episode's tools have."""
    apps = list(apps)
    app = next((a for a in apps if name.startswith(f"{a}_")), None)
    if app is None:
        raise UnknownName("tool", name, "this episode", [f"{a}_*" for a in apps])
    return app


# What a model reads of a tool call, through every entry (the SDK's ``Env.call_tool``, the
# session protocol, the MCP endpoint): ``{"text", "error", "finished", "status", "body",
# "not_sent"}``.
MAX_TEXT = 20_000  # how much of an app's answer a model reads (the rest is cut, and it is told)
ENDED = "The task has ended: no more tool calls."
TASK_ENDED = "Task ended."
NOT_AN_OBJECT = "Arguments must be a JSON object."

# Why a tool call was never sent to an app (a result's ``not_sent``), the one classification
# every count of an agent's tool calls reads (workgym.bench.health): a tool the episode does
# not have; arguments that are not a JSON object or do not fit the tool's schema; a call after
# the episode ended; the gym refusing its own part (its tool schemas, a token refresh).
UNKNOWN_TOOL, MALFORMED, AFTER_END, GYM_REFUSED = (
    "unknown_tool", "malformed", "after_end", "gym_refused")
NOT_SENT = (MALFORMED, UNKNOWN_TOOL, AFTER_END, GYM_REFUSED)


def said(text: str, *, error: bool = False, finished: bool = False, status: int | None = None,
         body: Any = None, not_sent: str | None = None) -> dict[str, Any]:
    """A tool call's result: ``text`` is what the model reads; ``status`` the app's HTTP
    status (0: the connection dropped; None: the call reached no app) and ``body`` its parsed
    answer, for code; ``not_sent``: why the call never reached an app (one of NOT_SENT), None
    when it did (or was the session's ``finish``, or the gym's token refresh that worked)."""
    return {"text": text, "error": error, "finished": finished, "status": status, "body": body,
            "not_sent": not_sent}


def refused(exc: Exception) -> dict[str, Any]:
    """A call refused before it reached an app (an unknown tool, arguments its schema does not
    take, the gym's refusal), as the model reads it."""
    why = UNKNOWN_TOOL if isinstance(exc, UnknownName) else \
        MALFORMED if isinstance(exc, InvalidRequest) else GYM_REFUSED
    return said(f"{exc}", error=True, not_sent=why)


def outcome_said(outcome: dict[str, Any]) -> dict[str, Any]:
    """An app's answer to a tool call, ``{"status", "body"}`` (status 0 and ``error``: the
    connection dropped), as the model reads it: ``HTTP <status>`` and the body as text, cut
    at MAX_TEXT characters; an error unless the status is 2xx or 3xx."""
    status = outcome["status"]
    body = outcome.get("body", outcome.get("error"))
    text = body if isinstance(body, str) else orjson.dumps(body).decode()
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"... [cut: {len(text) - MAX_TEXT} more characters]"
    return said(f"HTTP {status}\n{text}", error=not 200 <= status < 400, status=status,
                body=outcome.get("body"))
