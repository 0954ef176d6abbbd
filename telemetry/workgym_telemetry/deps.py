"""Dependencies of the telemetry routes: the store and the settings of the app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .settings import TelemetrySettings
from .store import SpanStore


def _store(request: Request) -> SpanStore:
    return request.app.state.store  # type: ignore[no-any-return]


def settings_of(request: Request) -> TelemetrySettings:
    return request.app.state.settings  # type: ignore[no-any-return]


StoreDep = Annotated[SpanStore, Depends(_store)]
SettingsDep = Annotated[TelemetrySettings, Depends(settings_of)]
