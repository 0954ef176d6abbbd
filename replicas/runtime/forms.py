"""Form-encoded bodies in bracket notation (Stripe's wire format, also Rails' and PHP's), for an
app whose product speaks it (``SPEC.middleware``): :class:`FormBodies` turns such a body into
the JSON one the app's routes validate, and bracketed list keys of a query into repeated keys::

    metadata[order]=A-10423&expand[]=customer&expand[1]=latest_charge&card[number]=4242...
      -> {"metadata": {"order": "A-10423"}, "expand": ["customer", "latest_charge"],
          "card": {"number": "4242..."}}
    ?expand[0]=customer&expand[1]=invoice  ->  ?expand=customer&expand=invoice

Values stay text: the routes' models read ``"2000"`` as 2000 and ``"true"`` as true, as they
would a JSON body's. An object whose keys are all indices (``[]`` appends, ``[0]`` names one)
becomes a list in index order. JSON bodies pass unchanged, so agents may send either.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

import orjson

from workgym_core.asgi import ASGIApp, Receive, Scope, Send, read_body, replay
from workgym_core.errors import Render, WorkGymError

FORM = b"application/x-www-form-urlencoded"
MAX_DEPTH = 8  # brackets in one key; Stripe's deepest parameters have four
MAX_BODY_BYTES = 1_000_000  # past the proxy's own limit: a body that reached us directly
_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])*)")
_SEGMENT = re.compile(r"\[([^\[\]]*)\]")
_LIST_KEY = re.compile(rb"^([^\[\]=&]+)(?:\[\d*\]|%5B\d*%5D)(=|$)", re.IGNORECASE)


class MalformedForm(WorkGymError):
    status_code = 400
    code = "malformed_body"


def _path(key: str) -> list[str]:
    """``card[number]`` -> ``["card", "number"]``; a key that is not bracket notation is one
    name."""
    match = _KEY.fullmatch(key)
    if match is None:
        return [key]
    path = [match.group(1), *_SEGMENT.findall(match.group(2))]
    if len(path) > MAX_DEPTH + 1:
        raise MalformedForm(f"form key '{key[:80]}' nests deeper than {MAX_DEPTH} levels",
                            field=path[0], rule=f"max_depth:{MAX_DEPTH}")
    return path


def _lists(node: Any) -> Any:
    """Objects whose keys are all indices as lists, in index order, all the way down."""
    if not isinstance(node, dict):
        return node
    items = {k: _lists(v) for k, v in node.items()}
    if items and all(k.isdigit() for k in items):
        return [items[k] for k in sorted(items, key=int)]
    return items


def decode(text: str) -> dict[str, Any]:
    """A form body in bracket notation as the JSON object it stands for."""
    tree: dict[str, Any] = {}
    for key, value in parse_qsl(text, keep_blank_values=True):
        path, node = _path(key), tree
        for depth, segment in enumerate(path):
            if segment == "" and depth > 0:  # `[]`: the next index of this list
                segment = str(len(node))
            if depth == len(path) - 1:
                if isinstance(node.get(segment), dict):
                    raise MalformedForm(f"form key '{key[:80]}' is both a value and an object",
                                        field=path[0], rule="bracket_notation")
                node[segment] = value
                break
            child = node.setdefault(segment, {})
            if not isinstance(child, dict):
                raise MalformedForm(f"form key '{key[:80]}' is both a value and an object",
                                    field=path[0], rule="bracket_notation")
            node = child
    found: dict[str, Any] = _lists(tree)
    return found


def list_keys(query: bytes) -> bytes:
    """``expand[]=a&expand[1]=b`` -> ``expand=a&expand=b``; other keys unchanged."""
    return b"&".join(_LIST_KEY.sub(rb"\1\2", part) for part in query.split(b"&"))


class FormBodies:
    """Pure-ASGI: form bodies as JSON, bracketed list keys of queries as repeated keys. A
    body that is not UTF-8 or not bracket notation is refused (400 ``malformed_body``) in the
    app's error style (``render``)."""

    def __init__(self, app: ASGIApp, render: Render) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if b"[" in (query := scope.get("query_string", b"")) or b"%5" in query:
            scope = {**scope, "query_string": list_keys(query)}
        headers = scope["headers"]
        kind = next((v for k, v in headers if k == b"content-type"), b"")
        if kind.split(b";")[0].strip().lower() != FORM:
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, MAX_BODY_BYTES)
            converted = orjson.dumps(decode(body.decode("utf-8")))
        except UnicodeDecodeError:
            await self._refuse(scope, receive, send, MalformedForm(
                "request body is not valid UTF-8", field="body", rule="utf-8"))
            return
        except WorkGymError as exc:  # malformed, or too large
            await self._refuse(scope, receive, send, exc)
            return
        scope = {**scope, "headers": [
            *((k, v) for k, v in headers if k not in (b"content-type", b"content-length")),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(converted)).encode())]}
        await self.app(scope, replay(converted, receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send,
                      error: WorkGymError) -> None:
        await self.render(error)(scope, receive, send)
