"""Dependencies of the telemetry routes: the store and the settings of the app."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .settings import TelemetrySettings
from .store import SpanStore


def _store(request: Request) -> SpanStore:
    store: SpanStore = request.app.state.store
    return store


def settings_of(request: Request) -> TelemetrySettings:
    settings: TelemetrySettings = request.app.state.settings
    return settings


StoreDep = Annotated[SpanStore, Depends(_store)]
SettingsDep = Annotated[TelemetrySettings, Depends(settings_of)]
