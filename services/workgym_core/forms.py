"""Form-encoded bodies in bracket notation (Stripe's wire format, also Rails' and PHP's) as the
JSON they stand for: what a replica of such a product validates (``replicas/runtime/forms.py``)
and what the proxy records on the trajectory::

    metadata[order]=A-10423&expand[]=customer&expand[1]=latest_charge&card[number]=4242...
      -> {"metadata": {"order": "A-10423"}, "expand": ["customer", "latest_charge"],
          "card": {"number": "4242..."}}
    ?expand[0]=customer&expand[1]=invoice  ->  ?expand=customer&expand=invoice

Values stay text: the routes' models read ``"2000"`` as 2000 and ``"true"`` as true, as they
would a JSON body's. An object whose keys are all indices (``[]`` appends, ``[0]`` names one)
becomes a list in index order.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from .errors import WorkGymError

FORM = b"application/x-www-form-urlencoded"
MAX_DEPTH = 8  # brackets in one key; Stripe's deepest parameters have four
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


def is_form(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a request's content type is a form body."""
    kind = next((v for k, v in headers if k == b"content-type"), b"")
    return kind.split(b";")[0].strip().lower() == FORM
