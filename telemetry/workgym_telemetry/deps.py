"""Dependencies of the telemetry routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .store import SpanStore


def _store(request: Request) -> SpanStore:
    return request.app.state.store  # type: ignore[no-any-return]


StoreDep = Annotated[SpanStore, Depends(_store)]
