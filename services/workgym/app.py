"""Assembly of a WorkGym server: gym API, proxy and (in-process) replicas.

``create_app(settings)`` is what ``workgym serve``, ``workgym.make`` and the
tests run. Apps listed in ``settings.replica_urls`` are reached over HTTP;
every other replica runs in this process, reached through an ASGI transport
at ``http://<app>.replica`` — the same client, the same code path.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from fastapi import FastAPI

from replicas.catalog import specs
from replicas.runtime.app import create_replica_app
from workgym_proxy import Proxy
from workgym_proxy.proxy import PREFIX

from .gym.replica_client import ReplicaClient
from .gym.routes import control, router
from .gym.service import EpisodeService
from .registry import Registry
from .runtime import errors, redis_store
from .runtime.asgi import ASGIApp, BodyLimit, Receive, Scope, Send
from .runtime.settings import Settings
from .tasks import catalogue


def local_url(app: str) -> str:
    return f"http://{app}.replica"


@dataclass
class Server:
    """A running WorkGym: the ASGI entry point and the parts tests reach into."""

    settings: Settings
    gym: FastAPI
    proxy: Proxy
    replicas: dict[str, FastAPI]
    registry: Registry
    http: httpx.AsyncClient

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(PREFIX):
            await self.proxy(scope, receive, send)
        else:
            await self._gym(scope, receive, send)

    def __post_init__(self) -> None:
        self._gym: ASGIApp = BodyLimit(self.gym, self.settings.max_body_bytes)

    async def aclose(self) -> None:
        await self.http.aclose()
        await self.registry.redis.aclose()


def create_gym_app(settings: Settings, service: EpisodeService) -> FastAPI:
    app = FastAPI(
        title="WorkGym", version="0.1.0",
        description="Episodes of enterprise-software replicas for training and evaluating agents.",
    )
    app.state.settings = settings
    app.state.service = service
    app.include_router(router)
    app.include_router(control)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    errors.install(app)
    return app


def create_app(settings: Settings | None = None) -> Server:
    settings = settings or Settings()
    apps = specs()
    replicas = {
        name: create_replica_app(spec, settings)
        for name, spec in apps.items() if name not in settings.replica_urls
    }
    http = httpx.AsyncClient(
        mounts={local_url(name): httpx.ASGITransport(app=app) for name, app in replicas.items()},
        timeout=httpx.Timeout(30.0),
    )
    registry = Registry(redis_store.connect(settings))
    instances = {name: settings.replica_urls.get(name, local_url(name)) for name in apps}
    service = EpisodeService(
        settings=settings, registry=registry, catalogue=catalogue(),
        replicas=ReplicaClient(http, settings.internal_secret), instances=instances,
    )
    return Server(
        settings=settings, gym=create_gym_app(settings, service),
        proxy=Proxy(settings, registry, http, frozenset(apps)),
        replicas=replicas, registry=registry, http=http,
    )
