"""What every adapter shares: where its sessions come from (this process or a server), a
task's tool schemas known before any episode, and tools bound as Python functions from
their JSON schemas (for the frameworks that read a tool's signature: TRL, verifiers).

Where sessions come from, in every adapter: ``url`` (a WorkGym server, with ``api_key``,
default ``WORKGYM_API_KEY`` or the key ``workgym serve`` stored on this machine) or, when
``url`` is None, the in-process server of this process (started on first use)."""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import httpx
import orjson

from replicas.catalog import app_names

from ..errors import reaching, refusal
from ..sdk import operator_key
from ..session import Session
from ..tools import FINISH_TOOL, REFRESH_TOOL, ToolCatalogue

# JSON Schema type -> the annotation a signature-reading framework turns back into it.
_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool,
                           "array": list, "object": dict}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def open_session(url: str | None = None, api_key: str | None = None) -> Session:
    """A session on the server at ``url``, else on this process's in-process server."""
    return Session.connect(url, api_key=api_key) if url else Session.inprocess()


def _gym_client(url: str | None, api_key: str | None) -> httpx.Client:
    if url is None:
        from ..local import local_server

        found = local_server()
        client = found.client()
        client.headers["authorization"] = f"Bearer {found.server.settings.api_key}"
        return client
    return httpx.Client(base_url=url, timeout=60.0,
                        headers={"authorization": f"Bearer {operator_key(api_key)}"})


def _get(client: httpx.Client, path: str) -> Any:
    with reaching("the WorkGym server", str(client.base_url).rstrip("/")):
        response = client.get(path)
    if response.status_code >= 400:
        raise refusal(response)
    return orjson.loads(response.content)


@cache
def _task_tools(tasks: tuple[str, ...], url: str | None, api_key: str | None
                ) -> tuple[dict[str, Any], ...]:
    with _gym_client(url, api_key) as client:
        apps: list[str] = []
        for task in tasks:
            apps += [a for a in _get(client, f"/v1/tasks/{task}")["apps"] if a not in apps]
        found = [schema for app in apps for schema in ToolCatalogue.from_openapi(
            app, _get(client, f"/v1/apps/{app}/openapi.json")).schemas()]
    return (*found, REFRESH_TOOL, FINISH_TOOL)


def task_tools(tasks: str | Iterable[str], *, url: str | None = None,
               api_key: str | None = None) -> list[dict[str, Any]]:
    """The tools an episode of ``tasks`` gets (the union over their apps, the gym's token
    refresh, ``finish``), read from the apps' OpenAPI without starting an episode: the same
    list, in the same order, as ``Session.start(...)["tools"]``."""
    names = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    return list(_task_tools(names, url, api_key))


def tool_surface(tools: list[dict[str, Any]]) -> str:
    """A short stable name for a set of tools: its apps (``tracker``, ``checkout+helpdesk``),
    the catalogue's apps whose tools it has."""
    names = [t["function"]["name"] for t in tools]
    apps = sorted(a for a in app_names() if any(n.startswith(f"{a}_") for n in names))
    return "+".join(apps) or "none"


def _annotation(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None:
        for key in ("anyOf", "oneOf"):
            options = [o for o in schema.get(key, []) if o.get("type") != "null"]
            if options:
                return _annotation(options[0])
    return _TYPES.get(kind, str) if isinstance(kind, str) else str


def _describe(schema: dict[str, Any]) -> str:
    """A parameter's line in a docstring's Args: its description, and for the shapes a
    signature cannot carry (objects, arrays, enums, patterns) the schema itself."""
    text = " ".join(str(schema.get("description", "")).split()) or "See the schema."
    detail = {k: v for k, v in schema.items() if k != "description"}
    shaped = any(k in detail for k in ("properties", "items", "anyOf", "oneOf"))
    if "enum" in detail or (shaped and _annotation(schema) in (dict, list)):
        text += " JSON schema: " + orjson.dumps(detail).decode()
    return text


def _aliases(properties: dict[str, Any]) -> dict[str, str]:
    """A Python name for each parameter (``page[size]`` -> ``page_size``): argument name ->
    parameter name."""
    found: dict[str, str] = {}
    for name in properties:
        alias = name if _NAME.match(name) else re.sub(r"\W+", "_", name).strip("_") or "arg"
        if alias[0].isdigit() or keyword.iskeyword(alias):
            alias = f"arg_{alias}"
        while alias in found:
            alias += "_"
        found[alias] = name
    return found


def signature_of(tool: dict[str, Any], *, method: bool
                 ) -> tuple[inspect.Signature, dict[str, Any], str, dict[str, str]]:
    """(signature, annotations, Google-style docstring, argument -> parameter names) of a
    tool's function: required parameters first, optional ones defaulting to None, each
    named as Python allows; ``method``: with ``self``."""
    function = tool["function"]
    parameters = function.get("parameters", {})
    properties: dict[str, Any] = parameters.get("properties", {})
    required = set(parameters.get("required", []))
    aliases = _aliases(properties)
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] \
        if method else []
    annotations: dict[str, Any] = {}
    for alias in sorted(aliases, key=lambda a: aliases[a] not in required):  # stable sort
        schema = properties[aliases[alias]]
        annotations[alias] = _annotation(schema)
        params.append(inspect.Parameter(
            alias, inspect.Parameter.KEYWORD_ONLY, annotation=annotations[alias],
            default=inspect.Parameter.empty if aliases[alias] in required else None))
    doc = " ".join(str(function.get("description") or function["name"]).split())
    if properties:
        doc += "\n\nArgs:\n" + "\n".join(
            f"    {alias}: {_describe(properties[name])}" for alias, name in aliases.items())
    return (inspect.Signature(params, return_annotation=str),
            {**annotations, "return": str}, doc, aliases)


def bind_tool(tool: dict[str, Any], forward: Callable[[str, dict[str, Any]], Any] | None = None,
              *, method: bool = False) -> Callable[..., Any]:
    """A function standing for ``tool`` whose signature, annotations and docstring describe
    its JSON schema (``transformers.utils.get_json_schema`` and MCP servers read them); a
    call forwards ``(name, the arguments given, None dropped)``. No ``exec``: the signature
    is set, not written. ``method``: a method (first argument ``self``) forwarding to
    ``self._forward`` instead."""
    name = tool["function"]["name"]
    if not _NAME.match(name):
        raise ValueError(f"tool name {name!r} is no identifier")
    signature, annotations, doc, aliases = signature_of(tool, method=method)

    def given(kwargs: dict[str, Any]) -> dict[str, Any]:
        return {aliases.get(k, k): v for k, v in kwargs.items() if v is not None}

    bound: Callable[..., Any]
    if method:
        def bound(self: Any, **kwargs: Any) -> Any:
            return self._forward(name, given(kwargs))
    elif forward is not None:
        def bound(**kwargs: Any) -> Any:
            return forward(name, given(kwargs))
    else:
        raise ValueError("a function tool needs forward=")
    bound.__name__ = bound.__qualname__ = name
    # What inspect.signature() reads first; typeshed gives functions no such attribute.
    bound.__signature__ = signature  # type: ignore[union-attr]
    bound.__annotations__ = annotations
    bound.__doc__ = doc
    return bound


def tool_prompt(brief: str, tools: list[dict[str, Any]]) -> str:
    """A system message for text-level adapters (SkyRL, verl) whose chat template may not
    be given ``tools=``: the episode's brief, its tools and the Hermes call format that
    :mod:`workgym.adapters.toolcalls` reads."""
    listed = "\n".join(orjson.dumps(t).decode() for t in tools)
    return (f"{brief}\n\n# Tools\n\nYou may call one or more functions to do the task. "
            f"Their signatures are within <tools></tools> XML tags:\n<tools>\n{listed}\n"
            "</tools>\n\nFor each function call, return a JSON object with the function name "
            "and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
            '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>\n'
            "Call `finish` when you are done.")
