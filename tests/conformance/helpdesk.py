"""Zendesk's operations, as node-zendesk (npm ``node-zendesk@6.0.1``) calls them.

Zendesk publishes no machine-readable API description on the registries. Its two most used
clients describe it instead: zenpy (PyPI ``zenpy==2.0.57``) gives the shapes of its objects
(``zendesk_shapes.py``), but its endpoint tree (``zenpy/lib/endpoint.py``) names paths
without their methods (one ``PrimaryEndpoint`` stands for list, show, create, update and
delete alike); node-zendesk's client classes name both, one call per operation
(``this.put(["tickets", id], ticket)``), grouped by the class that makes it. The operations
are read from its bundle, ``dist/index.js``, where they are unpacked (never copied here): each
class (exported as ``Tickets``, ``Users``, ...), the API it speaks (core ``/api/v2``, help
center ``/api/v2/help_center``, voice, services), and each of its calls' method and path
segments; a segment that is not a literal is a parameter, named after the collection before
it (after an action, ``["users", "search", params]``, or last in a list call, ``getAll``, it is
the query).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tests.conformance.coverage import Description, Operation
from tests.conformance.registry import npm_package

PACKAGE = ("node-zendesk", "6.0.1")
PREFIXES = {"core": "/api/v2", "helpcenter": "/api/v2/help_center",
            "voice": "/api/v2/channels/voice", "services": "/api/services/jira"}
TITLES = {"core": "", "helpcenter": "Help Center ", "voice": "Voice ", "services": "Services "}
_CLASS = re.compile(r"([\w$]+)=class extends [\w$]+\{(.*?)\};[\w$]+\.(\w+)=\1\}", re.DOTALL)
_API = re.compile(r"super\(e,\w+\.(\w+)\)")
_CALL = re.compile(r"(?:this|super)\.(get|getAll|post|put|patch|delete|requestUpload)\(\[")
_METHOD = {"get": "GET", "getAll": "GET", "post": "POST", "put": "PUT", "patch": "PATCH",
           "delete": "DELETE", "requestUpload": "POST"}
_LITERAL = re.compile(r'"([^"?]*)"')


def _segments(source: str, start: int) -> list[str]:
    """The top-level elements of the array literal opening before ``start``."""
    parts, depth, current, quoted = [], 0, "", False
    for char in source[start:]:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "[{(":
            depth += 1
        elif not quoted and char in "]})":
            if depth == 0:
                break
            depth -= 1
        elif not quoted and char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return [*parts, current] if current else parts


def _singular(word: str) -> str:
    for plural, one in (("ies", "y"), ("sses", "ss"), ("uses", "us"), ("s", "")):
        if word.endswith(plural):
            return word[: -len(plural)] + one
    return word


def _path(prefix: str, segments: list[str], listing: bool) -> str:
    path = [prefix]
    for index, segment in enumerate(segments):
        literal = _LITERAL.fullmatch(segment.strip())
        if segment.lstrip().startswith(('"?', "{")) or "?" in segment:
            break  # the query: not part of the path
        if literal:
            path.append(literal.group(1))
        else:
            before = path[-1].rsplit("/", 1)[-1] if len(path) > 1 else ""
            if before and not before.endswith("s") or listing and index == len(segments) - 1:
                break  # after an action ("search"), or a list's last: its parameters
            path.append(f"{{{_singular(before)}_id}}" if before else "{locale}")
    return "/".join(path)


@cache
def bundle() -> str:
    package: Path = npm_package(*PACKAGE)
    return (package / "dist" / "index.js").read_text()


def operations() -> Iterator[Operation]:
    source = bundle()
    for match in _CLASS.finditer(source):
        body, name = match.group(2), match.group(3)
        api = _API.search(body)
        kind = api.group(1) if api else "core"
        for call in _CALL.finditer(body):
            path = _path(PREFIXES[kind], _segments(body, call.end()),
                         listing=call.group(1) == "getAll")
            yield Operation(f"{TITLES[kind]}{name}", _METHOD[call.group(1)], path)


def normalize(path: str) -> str:
    """The replica's optional ``.json`` suffix is Zendesk's; node-zendesk sends none."""
    return path.removesuffix(".json")


DESCRIPTION = Description(
    product="Zendesk Support API v2 (as node-zendesk 6.0.1 calls it)",
    source="npm node-zendesk@6.0.1 (dist/index.js: each client class's calls, method and "
           "path; Zendesk publishes no OpenAPI on the registries)",
    operations=operations, normalize=normalize)
