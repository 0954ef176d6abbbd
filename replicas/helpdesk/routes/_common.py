"""What every helpdesk route module shares: the search parameter and the JSON reply."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query
from starlette.responses import Response

from workgym_core.errors import json_response

__all__ = ["Q", "ok"]


Q = Annotated[
    str | None,
    Query(min_length=1, max_length=200, description="Case-insensitive substring search."),
]


def ok(content: Any, status_code: int = 200) -> Response:
    """Serialise with orjson (the response_model documents the shape)."""
    return json_response(content, status_code=status_code)
