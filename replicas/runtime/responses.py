"""The JSON reply every replica route sends."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from workgym_core.errors import json_response


def ok(content: Any, status_code: int = 200) -> Response:
    """``content`` serialised with orjson (the route's response_model documents its shape)."""
    return json_response(content, status_code=status_code)
