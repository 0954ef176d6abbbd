"""WorkGym on a Ray cluster: ``workgym ray up`` serves the gym API, the proxy and replica
instances as Ray actors; ``workgym ray down`` stops them.

Each actor serves what ``workgym serve --role ...`` would (:func:`workgym.app.create_app`
under uvicorn), in its own event loop (an async actor), on its node's IP:

- ``workgym-redis``: REDIS_URL's stand-in when it is unset, a password-protected
  redis-server (the embedded one's binary) on the head node;
- ``workgym-proxy`` and ``workgym-gym`` on the head node, where clients are pointed;
- ``workgym-replica-<app>-<i>``: one replica instance each, one CPU, spread over the nodes on
  a free port, registering its URL in Redis with the same heartbeat as a compose replica, so
  the gym places episodes on it and the proxy marks them lost when it dies.

Every actor is detached and named in the ``workgym`` namespace: ``up`` again reuses the
running ones, as they are (new settings take a ``down`` first), and scales each app's replicas
to the count asked for; ``down`` stops them, from any driver. The deployment's settings are the
driver's: what its environment configures (``WORKGYM_*``) and its credentials go to every
actor, so that instances on other machines sign and check the same tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workgym_core import redis_store
from workgym_core.errors import ConfigError
from workgym_core.settings import Settings

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError
except ImportError as exc:  # an optional extra
    raise ConfigError("Ray is not installed: install workgym[ray] "
                      "(pip install 'workgym[ray]')") from exc

if TYPE_CHECKING:
    import uvicorn

NAMESPACE = "workgym"
REDIS, PROXY, GYM = "workgym-redis", "workgym-proxy", "workgym-gym"
REPLICA_PREFIX = "workgym-replica-"
# Ray's own marker resource of the head node (Ray Train and Data pin their state there too).
HEAD = {"node:__internal_head__": 0.001}
START_TIMEOUT_S = 300.0  # imports, snapshot caches, and waiting for a free CPU
STOP_TIMEOUT_S = 30.0


def replica_name(app: str, index: int) -> str:
    return f"{REPLICA_PREFIX}{app}-{index}"


class RoleServer:
    """An async actor serving WorkGym roles with uvicorn in its event loop, on its node's IP."""

    def __init__(self, configured: dict[str, Any]) -> None:
        self.configured = configured  # Settings fields: the driver's, and the Redis URL
        self.url: str | None = None
        self._server: uvicorn.Server | None = None
        self._serving: asyncio.Task[None] | None = None

    async def start(self, roles: list[str], port: int, public_url: str | None,
                    log_level: str) -> str:
        """Serve ``roles`` on ``port`` of this node (0: a free one), once; the URL.
        A replica registers it for placement; agents reach the proxy at ``public_url``
        (None: this server)."""
        if self.url is not None:
            return self.url
        import uvicorn

        from . import http_server
        from .app import create_app

        listener = socket.create_server((ray.util.get_node_ip_address(), port))
        host, bound = listener.getsockname()[:2]
        url = f"http://{host}:{bound}"
        placed = {"instance_url": url} if any(r.startswith("replica:") for r in roles) else {}
        try:
            settings = Settings(**{**self.configured, "roles": frozenset(roles),
                                   "public_url": public_url or url, **placed})
            self._server = uvicorn.Server(
                http_server.config(create_app(settings), settings, log_level=log_level))
            self._serving = asyncio.create_task(self._server.serve(sockets=[listener]))
            while not self._server.started:  # a replica is registered once started
                if self._serving.done():
                    self._serving.result()
                    raise RuntimeError(f"{sorted(roles)} stopped while starting; see this "
                                       "actor's log")
                await asyncio.sleep(0.02)
        except BaseException:
            listener.close()  # the port is free for the next try
            raise
        self.url = url
        return url

    async def stop(self) -> None:
        """Shut down as on SIGTERM: in-flight requests end, a replica deregisters."""
        if self._server is not None and self._serving is not None:
            self._server.should_exit = True
            await self._serving


class RedisServer:
    """The deployment's redis-server on this node, for as long as the actor lives."""

    def __init__(self, data_dir: Path) -> None:
        self._url = redis_store.serve_tcp(data_dir, ray.util.get_node_ip_address())

    def url(self) -> str:
        return self._url


@dataclass(frozen=True)
class Deployment:
    gym: str
    proxy: str
    redis: str  # its URL, password included
    replicas: dict[str, list[str]]  # app -> its instances' URLs, i-th: replica_name(app, i)


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``auto``, ``ray://host:10001``) as a driver."""
    try:
        ray.init(address=address, namespace=NAMESPACE, log_to_driver=False)
    except ConnectionError as exc:
        raise ConfigError(f"no Ray cluster at {address!r}: start one (`ray start --head`) "
                          f"or pass --address ({exc})") from exc


def _actor(cls: type, name: str, **options: Any) -> Any:
    """The detached actor ``name``: the running one, else a new one."""
    return ray.remote(cls).options(name=name, namespace=NAMESPACE, lifetime="detached",
                                   get_if_exists=True, **options)


def _running() -> list[str]:
    return sorted(actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True)
                  if actor["namespace"] == NAMESPACE)


def _wait(refs: list[Any], what: str) -> list[Any]:
    try:
        return list(ray.get(refs, timeout=START_TIMEOUT_S))
    except RayTaskError as exc:
        raise ConfigError(f"{what} did not start: {exc.cause!r}") from exc
    except RayActorError as exc:  # its constructor failed
        raise ConfigError(f"{what} did not start: {exc}") from exc
    except GetTimeoutError as exc:
        raise ConfigError(f"{what} did not start within {START_TIMEOUT_S:.0f} s: does the "
                          "cluster have a free CPU for each replica instance?") from exc


def up(settings: Settings, counts: Mapping[str, int], *, port: int = 8000,
       proxy_port: int = 8080, log_level: str = "warning") -> Deployment:
    """Start, or find running, the deployment's actors on the connected cluster, with each
    served app's replica instances scaled to ``counts`` (default one) and any other replica
    actor stopped; ports 0 are free ones. The gym API, the proxy and Redis reserve no CPU (as
    Ray Serve's proxies do): each replica instance reserves one."""
    from replicas.catalog import app_names, served_apps

    if unknown := sorted(set(counts) - app_names()):
        raise ConfigError(f"no replica app {unknown}; the apps are {sorted(app_names())}")
    counts = {**dict.fromkeys(served_apps(settings.framework_apps), 1), **counts}
    redis_url = settings.redis_url
    if redis_url is None:
        redis = _actor(RedisServer, REDIS, num_cpus=0, resources=HEAD).remote(settings.redis_dir)
        [redis_url] = _wait([redis.url.remote()], "Redis")
    # Credentials are filled from the config directory outside model_fields_set: sent too.
    # Replicas never get the token secret (least privilege: they cannot mint episode tokens).
    configured = {**settings.model_dump(exclude_unset=True, exclude={"token_secret"}),
                  "redis_url": redis_url, "api_key": settings.api_key,
                  "internal_secret": settings.internal_secret}
    public = settings.public_url if "public_url" in settings.model_fields_set else None

    def role(name: str, **options: Any) -> Any:
        signs = name in (PROXY, GYM)
        return _actor(RoleServer, name, **options).remote(
            {**configured, "token_secret": settings.token_secret} if signs else configured)

    [proxy] = _wait([role(PROXY, num_cpus=0, resources=HEAD).start.remote(
        ["proxy"], proxy_port, public, log_level)], "the proxy")
    [gym] = _wait([role(GYM, num_cpus=0, resources=HEAD).start.remote(
        ["gym"], port, public or proxy, log_level)], "the gym API")
    wanted = [(app, i) for app, count in counts.items() for i in range(count)]
    started = [role(replica_name(app, i), num_cpus=1, scheduling_strategy="SPREAD").start.remote(
        [f"replica:{app}"], 0, None, log_level) for app, i in wanted]
    instances: dict[str, list[str]] = {app: [] for app in counts}
    for (app, _), url in zip(wanted, _wait(started, "the replica instances"), strict=True):
        instances[app].append(url)
    names = {replica_name(app, i) for app, i in wanted}
    _stop([name for name in _running() if name.startswith(REPLICA_PREFIX) and name not in names])
    return Deployment(gym=gym, proxy=proxy, redis=redis_url, replicas=instances)


def _stop(names: list[str]) -> None:
    """End these actors: their servers shut down first (in-flight requests answered,
    replicas deregistered while Redis still runs), then each actor exits (its atexit
    handlers stop the redis-server), else is killed."""
    actors = []
    for name in names:
        with contextlib.suppress(ValueError):  # gone already
            actors.append((name, ray.get_actor(name, namespace=NAMESPACE)))
    _settle([actor.stop.remote() for name, actor in actors if name != REDIS])
    _settle([actor.__ray_terminate__.remote() for _, actor in actors])
    for _, actor in actors:
        ray.kill(actor)  # one that did not exit in time


def _settle(refs: list[Any]) -> None:
    """Wait for every call to end, well or not (an actor already dead), up to a timeout."""
    if refs:
        ray.wait(refs, num_returns=len(refs), timeout=STOP_TIMEOUT_S)


def down() -> list[str]:
    """Stop every WorkGym actor on the connected cluster; their names."""
    names = _running()
    _stop(names)
    return names
