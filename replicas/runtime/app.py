"""The factory every replica app is assembled by."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from workgym_core import errors
from workgym_core.internal import INTERNAL_PREFIX
from workgym_core.settings import Settings

from . import internal, openapi_cache
from .errors import WORKGYM_ERRORS, platform_first
from .observe import ObserveRequests
from .openapi import document_agent_errors
from .spec import ReplicaSpec
from .store import EpisodeStore


def create_replica_app(spec: ReplicaSpec, settings: Settings) -> FastAPI:
    app = FastAPI(
        title=spec.title, description=spec.description, version=spec.data_version,
        openapi_tags=spec.openapi_tags or None,
        # A trailing slash is a JSON 404, never a redirect (to the host the replica sees).
        redirect_slashes=False,
    )
    app.state.settings = settings
    app.state.store = store = EpisodeStore(spec, settings)
    app.add_middleware(ObserveRequests, store=store)
    for middleware in reversed(spec.middleware):  # each added one wraps those before it
        app.add_middleware(middleware)
    # The internal routes first: the gym's calls (an episode's create, its states) are not
    # matched against every product route before them.
    app.include_router(internal.health, include_in_schema=False)
    app.include_router(internal.router, include_in_schema=False)
    # Flattened: include_router would match every request twice (measured ~2x slower).
    app.router.routes.extend(spec.router.routes)
    style = spec.errors or WORKGYM_ERRORS
    # The internal routes' answers are read by the gym, and a lost episode by the proxy:
    # WorkGym's body whatever the product's style.
    errors.install(app, platform_first(style.render), plain_under=INTERNAL_PREFIX)

    def openapi() -> dict[str, Any]:
        """The document, built once (or ahead of time, for this code: ``openapi_cache``)."""
        if app.openapi_schema is None:
            app.openapi_schema = (openapi_cache.read(settings.data_dir, spec.name)
                                  or build_openapi(app, spec))
        return app.openapi_schema

    # FastAPI's documented way to extend the OpenAPI document: replace the method.
    app.openapi = openapi  # type: ignore[method-assign]
    return app


def build_openapi(app: FastAPI, spec: ReplicaSpec) -> dict[str, Any]:
    """The document of the replica ``app`` of ``spec`` built now: FastAPI's, plus every error
    status an agent can get."""
    app.openapi_schema = None  # FastAPI's method returns the document it built before
    return document_agent_errors(FastAPI.openapi(app), spec.errors or WORKGYM_ERRORS)
