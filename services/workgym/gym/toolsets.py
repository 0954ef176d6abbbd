"""An episode's tools, serialised once per set of apps: what the create response refers to
(``tools_url``, ``tools_etag``) and ``GET /v1/tools/{apps}`` serves, cacheable by its ETag."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from ..tools import REFRESH_TOOL, ToolCatalogue

# The separator of the apps in a tool set's path (app names are identifiers: never in one).
SEPARATOR = ","


@dataclass(frozen=True)
class ToolSet:
    """The union of some apps' tools, in their order (each name prefixed by its app), and the
    gym's own token refresh; their JSON and its ETag."""

    apps: tuple[str, ...]
    schemas: list[dict[str, Any]]
    json: bytes
    etag: str

    @classmethod
    def of(cls, catalogues: dict[str, ToolCatalogue]) -> ToolSet:
        schemas = [*(s for catalogue in catalogues.values() for s in catalogue.schemas()),
                   REFRESH_TOOL]
        data = orjson.dumps(schemas)
        return cls(tuple(catalogues), schemas, data,
                   f'"{hashlib.sha256(data).hexdigest()[:32]}"')

    @property
    def path(self) -> str:
        """Where the gym API serves it (a path on the gym API that created the episode)."""
        return f"/v1/tools/{SEPARATOR.join(self.apps)}"
