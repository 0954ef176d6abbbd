"""Stripe's answer to a method and path under /v1 it does not serve (an unknown resource, or
a known one with another method): 404 "Unrecognized request URL (GET: /v1/nope). ...".
Its route matches last (``routes/__init__.py``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from ..errors import UnrecognizedURL

router = APIRouter()


@router.api_route("/v1/{path:path}", methods=["GET", "POST", "DELETE", "PUT", "PATCH"],
                  include_in_schema=False)
async def unrecognized(request: Request, path: str) -> Response:
    raise UnrecognizedURL(request.method, request.url.path)
