"""Assembly of a WorkGym server: the roles one process serves, from its settings.

``create_app(settings)`` is what ``workgym serve``, ``workgym.make`` and the
tests run. ``settings.roles`` picks the gym API, the proxy and replicas; by
default all of them, in one process. Apps listed in ``settings.replica_urls``
are reached over HTTP; every other replica runs in this process, called directly
as an ASGI app at ``http://<app>.replica`` by the gym API and the proxy alike
(one :class:`~workgym_proxy.upstream.Upstream`, the same code path). Without the gym
API, a process serves at most one replica, at ``/`` (its API, ``/_env`` routes and
``/openapi.json``), for the others to reach. One of several worker processes behind one port
(``workgym serve --workers``) also serves each of its in-process replicas on a loopback port
of its own (``replica_ports``): its episodes are placed there, so another worker's gym API and
proxy reach them over loopback, and it reaches them directly.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from replicas.catalog import app_names, gateways, served_apps, spec
from workgym_core import observability as obs
from workgym_core import redis_store
from workgym_core.asgi import (
    ASGIApp,
    BodyLimit,
    EntryLimits,
    Message,
    Receive,
    Scope,
    Send,
    send_error,
    send_response,
)
from workgym_core.errors import INTERNAL_ERROR, ConfigError, NotFound
from workgym_core.internal import APPS_PREFIX
from workgym_core.registry import Registry
from workgym_core.settings import Settings
from workgym_core.waits import within

from .placement import Heartbeat

if TYPE_CHECKING:  # each role imports only what it serves (start-up CPU in containers)
    from fastapi import FastAPI

    from workgym_proxy import Proxy
    from workgym_proxy.upstream import Upstream

    from .gym.scoring import Scorer
    from .gym.service import EpisodeService


log = logging.getLogger("workgym")
# How long a shutdown waits on each part of the server before naming it and going on.
SHUTDOWN_WAIT_S = 10.0


def local_url(app: str) -> str:
    return f"http://{app}.replica"


def loopback_url(port: int) -> str:
    """Where the other workers reach a worker's in-process replica served on ``port``."""
    return f"http://127.0.0.1:{port}"


@dataclass
class Server:
    """A running WorkGym: the ASGI entry point and the parts tests reach into."""

    settings: Settings
    gym: FastAPI | None
    proxy: Proxy | None
    replicas: dict[str, FastAPI]
    registry: Registry | None
    upstream: Upstream | None  # how the gym API and the proxy reach replicas
    heartbeat: Heartbeat | None = None  # a replica instance registering itself for placement
    scorer: Scorer | None = None  # the gym's scoring (its worker processes)
    # port -> the in-process replica served there for the other workers (replica_ports).
    replica_ports: dict[int, ASGIApp] = field(default_factory=dict)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._root(scope, receive, self._lifespan(send))
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._entry(scope, receive, tracked)
        except ConnectionResetError:
            raise  # the connection_reset fault: the agent's connection drops
        except Exception:
            # Whatever failed, the client gets JSON (never a traceback), the log the details,
            # in every way of running (in-process, uvicorn, compose) alike.
            log.exception("unhandled error serving %s %s", scope.get("method"), scope["path"])
            if scope["type"] == "http" and not started:
                await send_response(send, 500, orjson.dumps(INTERNAL_ERROR),
                                    [(b"content-type", b"application/json")])

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._by_port and scope["type"] == "http":
            port = (scope.get("server") or ("", 0))[1]
            if replica := self.replica_ports.get(port):
                self.forwarded_here += 1  # another worker's request for an episode here
                await replica(scope, receive, send)
                return
            if self.proxy and (app := self._own_ports.get(port)):
                self.proxied += 1
                await self.proxy.at_root(app, scope, receive, send)  # an app's own port
                return
        if scope["type"] == "http" and self.proxy and scope["path"].startswith(APPS_PREFIX):
            self.proxied += 1
            await self.proxy(scope, receive, send)
        else:
            await self._root(scope, receive, send)

    def __post_init__(self) -> None:
        self._entry = EntryLimits(self._dispatch, self.settings)
        # port -> the app served there at its product's own base path (WORKGYM_APP_PORTS).
        self._own_ports = {port: app for app, port in self.settings.app_ports.items()
                           } if self.proxy else {}
        self._by_port = bool(self._own_ports or self.replica_ports)
        self.proxied = 0  # agent requests
        self.forwarded_here = 0  # requests other workers forwarded to replica_ports
        self._root: ASGIApp = (
            BodyLimit(self.gym, self.settings.max_body_bytes, self.settings.max_json_depth)
            if self.gym
            else next(iter(self.replicas.values())) if self.replicas
            else health_only
        )

    def _lifespan(self, send: Send) -> Send:
        """Register a replica instance when the server (uvicorn's lifespan) has started;
        deregister it and close clients when it shuts down."""
        async def lifespan(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete" and self.heartbeat:
                await self.heartbeat.start()
            if message["type"] == "lifespan.shutdown.complete":
                await self.aclose()
            await send(message)
        return lifespan

    def _parts(self) -> list[tuple[str, float, Callable[[], Awaitable[object]]]]:
        """What a shutdown closes, in order: (what it waits on, its bound, how)."""
        parts: list[tuple[str, float, Callable[[], Awaitable[object]]]] = []
        if self.heartbeat:
            parts.append((f"the deregistration of replica {self.heartbeat.url} from Redis",
                          SHUTDOWN_WAIT_S, self.heartbeat.stop))
        if self.proxy:
            # A step's write is retried through a Redis outage: a clean shutdown loses none.
            parts.append(("the proxy's trajectory writer (steps queued for Redis)",
                          self.settings.redis_retry_s + SHUTDOWN_WAIT_S, self.proxy.aclose))
        parts += [(f"the {name} replica's request workers", SHUTDOWN_WAIT_S,
                   replica.state.store.aclose) for name, replica in self.replicas.items()]
        if self.upstream:
            parts.append(("the connections to the replicas", SHUTDOWN_WAIT_S,
                          self.upstream.aclose))
        if self.registry:
            parts.append(("the connections to Redis", SHUTDOWN_WAIT_S, self.registry.redis.aclose))
        if self.scorer:
            parts.append(("the scoring workers", SHUTDOWN_WAIT_S, self.scorer.aclose))
        return parts

    @property
    def shutdown_s(self) -> float:
        """The longest :meth:`aclose` takes."""
        return sum(bound for _, bound, _ in self._parts())

    async def aclose(self) -> None:
        """Close every part, each within its bound: a part past it is named in one error
        line and left behind, and the shutdown goes on."""
        for what, bound, close in self._parts():
            await within(close(), bound, what)
        self.heartbeat = None


async def healthz() -> dict[str, str]:
    return {"status": "ok"}


async def health_only(scope: Scope, receive: Receive, send: Send) -> None:
    """What a process without the gym API or a replica (the proxy alone) answers outside
    /apps/: ``/healthz``, else a JSON 404. Pure ASGI: the proxy never imports FastAPI."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/healthz":
        await send_response(send, 200, b'{"status":"ok"}', [(b"content-type", b"application/json")])
    else:
        await send_error(send, NotFound(f"no route {scope['path']}", code="not_found"))


def create_gym_app(settings: Settings, service: EpisodeService) -> FastAPI:
    from fastapi import FastAPI, Request, Response
    from redis.exceptions import RedisError

    from workgym_core import errors

    from .gym.index import index
    from .gym.mcp import EpisodeMCP
    from .gym.routes import control, router

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with app.state.mcp.run():
            yield

    app = FastAPI(
        title="WorkGym", version="0.1.0", redirect_slashes=False, lifespan=lifespan,
        description="Episodes of enterprise-software replicas for training and evaluating agents."
        " Every call but /healthz needs 'Authorization: Bearer <credential>': the operator's "
        "API key, or (where a route allows) an episode's token.",
    )
    app.state.settings = settings
    app.state.service = service
    app.include_router(router)
    app.include_router(control)
    app.add_api_route("/healthz", healthz, include_in_schema=False)
    app.add_api_route("/", index, include_in_schema=False)
    # MCP (streamable HTTP) for an episode's agent, by its token; its manager runs in the
    # lifespan. It reaches the proxy over the network until create_app says it runs here.
    app.state.mcp = EpisodeMCP(service, app)
    app.router.routes.append(app.state.mcp.route)
    errors.install(app)

    async def store_down(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, RedisError)
        return redis_store.unavailable(exc).response()

    app.add_exception_handler(RedisError, store_down)
    return app


def plan(settings: Settings, apps: Collection[str], replica_ports: Mapping[str, int] = {},
         ) -> tuple[list[str], dict[str, str]]:
    """The replicas this process runs, and where the gym API places each app's episodes (an
    in-process replica with a port of ``replica_ports`` at its loopback address); ConfigError
    for settings that could not work."""
    roles, urls = settings.roles, settings.replica_urls
    named = [r.partition(":")[2] for r in sorted(roles) if r.startswith("replica:")]
    # A replica named by its role is served whatever the deployment's app set (a framework
    # app's own container does not need WORKGYM_FRAMEWORK_APPS: the gym does).
    if unknown := [name for name in named if name not in app_names()]:
        raise ConfigError(f"no replica app {unknown}; the apps are {sorted(app_names())}")
    if unknown := sorted(set(settings.app_ports) - app_names()):
        raise ConfigError(f"WORKGYM_APP_PORTS names no app {unknown}; the apps are "
                          f"{sorted(app_names())}")
    local = named + [n for n in apps if "replicas" in roles and n not in urls and n not in named]
    if "gym" not in roles and len(local) > 1:
        raise ConfigError(f"without the gym API a process serves one replica, at /; got {local}")
    # In-process replicas are reached only by a gym API and a proxy both in this process.
    together = {"gym", "proxy"} <= roles
    # Apps neither here nor configured are placed on instances that registered in Redis
    # (compose, --scale); an app with none answers 503 replica_unavailable, naming it.
    instances = {n: address(n, replica_ports) if n in local and together else urls[n]
                 for n in apps if (n in local and together) or n in urls}
    if stray := sorted(set(replica_ports) - {n for n in local if together}):
        raise ConfigError(f"replica ports for {stray}: only replicas in-process beside the gym "
                          "API and the proxy are served on one")
    if ("gym" in roles) != ("proxy" in roles) and not settings.redis_url:
        raise ConfigError("the gym API and the proxy share episodes through Redis: set REDIS_URL "
                          "in both processes")
    return local, instances


def address(app: str, replica_ports: Mapping[str, int]) -> str:
    """Where the gym API and the proxy reach the in-process replica ``app``."""
    port = replica_ports.get(app)
    return local_url(app) if port is None else loopback_url(port)


def service_name(roles: frozenset[str]) -> str:
    """OTel service.name: ``workgym`` all in one, else e.g. ``workgym-proxy``."""
    return "workgym" if len(roles) > 1 else "workgym-" + next(iter(roles)).replace(":", "-")


def create_app(settings: Settings | None = None, *,
               replica_ports: Mapping[str, int] = {}) -> Server:
    """The server ``settings`` describe; ``replica_ports``: app -> a loopback port on which
    this process also serves that in-process replica, for the other workers of one
    ``workgym serve --workers`` (the caller listens on it)."""
    settings = settings or Settings()
    apps = served_apps(settings.framework_apps)
    local, instances = plan(settings, apps, replica_ports)
    obs.setup(settings, service_name(settings.roles))
    replicas = {}
    if local:
        from replicas.runtime.app import create_replica_app

        replicas = {name: create_replica_app(spec(name), settings) for name in local}
    roles = settings.roles
    registry = upstream = None
    if roles & {"gym", "proxy"}:
        from workgym_proxy.upstream import make_upstream

        registry = Registry(redis_store.connect(settings), settings.token_secret)
        # How the gym API and the proxy reach replicas: in-process ones directly, others
        # over the network.
        upstream = make_upstream(settings.proxy_client, {
            address(name, replica_ports): app for name, app in replicas.items()})
    gym = proxy = scorer = None
    if registry and upstream and "gym" in roles:
        from .gym.replica_client import ReplicaClient
        from .gym.scoring import Scorer
        from .gym.service import EpisodeService
        from .tasks import catalogue

        tasks = catalogue(settings.tasks)
        scorer = Scorer(settings.scoring_processes, tasks, settings.tasks)
        service = EpisodeService(
            settings=settings, registry=registry, catalogue=tasks,
            replicas=ReplicaClient(upstream, settings.internal_secret), apps=apps,
            instances=instances, scorer=scorer,
            local=[address(name, replica_ports) for name in replicas],
        )
        gym = create_gym_app(settings, service)
    if registry and upstream and "proxy" in roles:
        from workgym_proxy import Proxy
        from workgym_proxy.gateway import Gateway

        # Any app of the catalogue: each episode says which it has (its record).
        proxy = Proxy(settings, registry, upstream, app_names(), {
            name: Gateway.model_validate(data) for name, data in gateways().items()})
    heartbeat = None
    if roles == {f"replica:{name}" for name in local} and len(local) == 1 and settings.redis_url \
            and settings.instance_url:
        store = replicas[local[0]].state.store
        heartbeat = Heartbeat(redis_store.connect(settings), local[0], settings.instance_url,
                              live=lambda: len(store))
    server = Server(settings=settings, gym=gym, proxy=proxy, replicas=replicas,
                    registry=registry, upstream=upstream, heartbeat=heartbeat, scorer=scorer,
                    replica_ports={port: replicas[app] for app, port in replica_ports.items()})
    if gym is not None and proxy is not None:  # the MCP endpoint's tool calls, in-process
        gym.state.mcp.through(server)
    return server
