"""Assembly of the telemetry store: OTLP receiver, read API, pages and their login over one
SpanStore."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from workgym_core import errors
from workgym_core.asgi import BodyLimit, EntryLimits

from . import api, login, pages, receiver
from .settings import TelemetrySettings
from .store import SpanStore


def create_app(settings: TelemetrySettings | None = None) -> FastAPI:
    settings = settings or TelemetrySettings()
    store = SpanStore(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(
        title="WorkGym telemetry", version="0.1.0", lifespan=lifespan, redirect_slashes=False,
        description="OTLP/HTTP receiver and span store; per-episode traces, timelines and pages.",
    )
    app.state.settings = settings
    app.state.store = store
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(EntryLimits, limits=settings)  # outermost: headers first
    app.include_router(receiver.router)
    app.include_router(api.router)
    app.include_router(pages.router)
    login.install(app)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        """Open to anyone (probes), so it says nothing about what is stored."""
        return {"status": "ok"}

    errors.install(app)
    return app
