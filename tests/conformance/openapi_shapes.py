"""A product's shapes from its OpenAPI 3.0 document: ``validate(shape, body) -> problems``, with
jsonschema against the document's component schemas (``$ref`` resolved in the document).

A shape is a component schema's name (``"IssueBean"``), or ``"Name[]"`` for an array of
them. OpenAPI 3.0 is not quite JSON Schema: ``nullable: true`` becomes a type that also takes
``null``; the rest (Draft 4's vocabulary, ``readOnly``, ``xml``, ``example``) is read as
Draft 4 does. Each problem names where in the body and the rule; a problem that is only an
extra property (a member the schema does not list where it sets ``additionalProperties:
false``) starts with ``EXTRA``, so a report can count "valid ignoring extra properties"."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

EXTRA = "extra property"
URI = "urn:openapi:document"
METHODS = ("get", "post", "put", "patch", "delete")


def _json_schema(node: Any) -> Any:
    """The document with OpenAPI's ``nullable`` turned into JSON Schema (a copy)."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _json_schema(value) for key, value in node.items()}
    if out.pop("nullable", False) is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass
class OpenAPIShapes:
    """The shapes of one OpenAPI document (a JSON file); ``corrections``: properties that
    replace or add to a component schema's where the document's own examples contradict it
    (schema name -> property -> schema)."""

    path: Path
    corrections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    _validators: dict[str, Draft4Validator] = field(default_factory=dict)

    @cached_property
    def document(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.path.read_text())
        for name, properties in self.corrections.items():
            found["components"]["schemas"][name]["properties"].update(properties)
        return found

    @cached_property
    def _registry(self) -> Registry[Any]:
        resource: Resource[Any] = DRAFT4.create_resource(_json_schema(self.document))
        return Registry().with_resource(URI, resource)

    @property
    def schemas(self) -> dict[str, Any]:
        found: dict[str, Any] = self.document["components"]["schemas"]
        return found

    def _validator(self, shape: str) -> Draft4Validator:
        if shape not in self._validators:
            name = shape.removesuffix("[]")
            if name not in self.schemas:
                raise KeyError(f"the document has no component schema {name!r}")
            ref = {"$ref": f"{URI}#/components/schemas/{name}"}
            schema = {"type": "array", "items": ref} if shape.endswith("[]") else ref
            self._validators[shape] = Draft4Validator(schema, registry=self._registry)
        return self._validators[shape]

    def validate(self, shape: str, body: Any) -> list[str]:
        """What in ``body`` the schema ``shape`` does not allow (empty: valid)."""
        errors = sorted(self._validator(shape).iter_errors(body), key=lambda e: list(e.path))
        return [_problem(shape, error) for error in errors]

    def responses(self) -> Iterator[tuple[str, str, str, str | None]]:
        """(method, path, status, documented shape or None) of every documented response."""
        for path, item in self.document["paths"].items():
            for method, operation in item.items():
                if method not in METHODS:
                    continue
                for status, response in operation.get("responses", {}).items():
                    schema = response.get("content", {}).get("application/json", {}).get(
                        "schema")
                    yield method.upper(), path, status, _shape_of(schema)


def _shape_of(schema: dict[str, Any] | None) -> str | None:
    if not schema:
        return None
    if schema.get("type") == "array" and "$ref" in schema.get("items", {}):
        return f"{schema['items']['$ref'].rsplit('/', 1)[1]}[]"
    ref: str | None = schema.get("$ref")
    return ref.rsplit("/", 1)[1] if ref else None


def _problem(shape: str, error: ValidationError) -> str:
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path) or "."
    if error.validator == "additionalProperties":
        return f"{EXTRA}: {shape} at {where}: {error.message}"
    return f"{shape} at {where}: {error.message}"
