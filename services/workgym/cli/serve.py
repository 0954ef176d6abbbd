"""``workgym serve``: the all-in-one server, or one service alone (--role)."""

from __future__ import annotations

import argparse
import gc
import os
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands import what they run: --help loads no web stack
    from collections.abc import Callable
    from multiprocessing.sharedctypes import Synchronized

    from fastapi import FastAPI

    from workgym_core.settings import Settings
    from workgym_telemetry.settings import TelemetrySettings

    from ..app import Server


PORT = 8000
PROXY_PORT = 8080  # compose's
SWITCH_INTERVAL_S = 0.001
TELEMETRY_PORT = 4318  # OTLP/HTTP's
TELEMETRY_URL = f"http://127.0.0.1:{TELEMETRY_PORT}"  # where `workgym export` reads by default


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the all-in-one server (gym API, proxy, "
                                "replicas) or, with --role, one service alone")
    serve.add_argument("--role", action="append",
                       choices=["gym", "proxy", "replica", "telemetry"],
                       help="serve only this (repeatable); others are reached over HTTP "
                       "(WORKGYM_REPLICA_URLS, REDIS_URL, WORKGYM_INTERNAL_SECRET). "
                       "telemetry (the span store and episode pages) runs alone")
    serve.add_argument("--app", action="append",
                       help="with --role replica: the replica app, e.g. helpdesk")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int,
                       help=f"default {PORT}; {TELEMETRY_PORT} with --role telemetry")
    serve.add_argument("--log-level", default="warning")
    serve.add_argument("--workers", type=_count, metavar="N",
                       help="processes serving the one port (WORKGYM_WORKERS; default: the "
                       "cores; 1: one process). Not with --role replica or telemetry")
    serve.set_defaults(func=_serve)


def _count(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of processes >= 1, not {value!r}")
    return int(value)


def _serve(args: argparse.Namespace) -> int:
    telemetry = "telemetry" in (args.role or ())
    if args.port is None:
        args.port = TELEMETRY_PORT if telemetry else PORT
    if telemetry:
        _workers(args.workers, None, alone="--role telemetry")
        app, roles, telemetry_settings = _telemetry_app(args)
        _announce(args, roles, telemetry_settings, 1)
        _run(app, telemetry_settings, [_bind(args.host, args.port, "")], args)
        return 0
    settings = _workgym_settings(args)
    roles = sorted(settings.roles)
    workers = _workers(args.workers, settings.workers, alone="--role replica" if
                       "gym" not in roles and "proxy" not in roles else None)
    _announce(args, roles, settings, workers)
    ports = settings.app_ports if "proxy" in roles else {}
    for name, port in ports.items():
        print(f"workgym: serving {name} at its product's own base path on "
              f"http://{args.host}:{port}", file=sys.stderr)
    sockets = [_bind(args.host, args.port, ""), *(
        _bind(args.host, port, " (WORKGYM_APP_PORTS)") for port in ports.values())]
    if workers == 1:
        from ..app import create_app

        _run(create_app(settings), settings, sockets, args)
        return 0
    from ..supervisor import Supervisor

    work = _worker(_shared(settings, workers), sockets, args)
    gc.freeze()  # what the workers inherit stays shared with the parent's pages
    return Supervisor(workers, work).run()


def _announce(args: argparse.Namespace, roles: list[str],
              settings: Settings | TelemetrySettings, workers: int) -> None:
    print(f"workgym: serving {', '.join(roles)} on http://{args.host}:{args.port}"
          f"{f' in {workers} worker processes' if workers > 1 else ''}  (Ctrl-C to stop)",
          file=sys.stderr)
    if {"gym", "telemetry"} & set(roles):
        print(f"workgym: operator API key: {api_key_location(settings)}", file=sys.stderr)


def _workers(requested: int | None, configured: int | None, alone: str | None) -> int:
    """How many processes serve: --workers, else WORKGYM_WORKERS, else the cores; one for
    what keeps its state in its process (``alone``: a replica, the telemetry store)."""
    from workgym_core.errors import ConfigError

    if alone is None:  # the cores this process may run on (a container's cpuset, taskset)
        return requested or configured or len(os.sched_getaffinity(0))
    if requested and requested > 1:
        raise ConfigError(f"{alone} runs in one process (its state lives there), not "
                          f"--workers {requested}: run more instances of it instead")
    return 1


def _run(app: Server | FastAPI, settings: Settings | TelemetrySettings,
         sockets: list[socket.socket], args: argparse.Namespace) -> None:
    """Serve ``app`` on ``sockets`` until a stop signal."""
    import uvicorn

    from .. import http_server

    # What start-up built (modules, apps, the catalogue) lives as long as the process: out of
    # the collector's way, so full collections among many live episodes stay short.
    gc.freeze()
    # Replica work runs in worker threads (replicas/runtime/workers.py): a thread in Python
    # code hands the GIL to the serving loop after 1 ms rather than Python's 5 ms, so one
    # episode's costly request adds at most that to the others' steps.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    config = http_server.config(app, settings, host=args.host, port=args.port,
                                log_level=args.log_level)
    uvicorn.Server(config).run(sockets=sockets)


def _bind(host: str, port: int, setting: str) -> socket.socket:
    """A listening socket on ``host`` and ``port`` (``setting``: where the port was set)."""
    import uvicorn

    from workgym_core.errors import ConfigError

    try:  # the app named is never loaded: only the address is used. log_config=None: a
        # Config configures logging as it is made, and its defaults would turn the access log
        # (a line per request) back on past --log-level.
        return uvicorn.Config("workgym.app:health_only", host=host, port=port,
                              log_config=None).bind_socket()
    except SystemExit as exc:  # uvicorn exits when the port is taken
        raise ConfigError(f"cannot listen on port {port}{setting}: in use") from exc


def _shared(settings: Settings, workers: int) -> Settings:
    """``settings`` for ``workers`` processes: one Redis for all of them (the embedded one
    started here, once), and the default memory ceiling and scoring processes shared
    between them."""
    from replicas.runtime.memory import default_limit_mb
    from workgym_core import redis_store

    update: dict[str, object] = {}
    if not settings.redis_url:
        update["redis_url"] = "unix://" + redis_store.embedded_socket(settings.redis_dir)
    if settings.memory_limit_mb is None:
        update["memory_limit_mb"] = max(1, int(default_limit_mb() / workers))
    if settings.scoring_workers is None:  # the cores, shared between the workers' pools
        update["scoring_workers"] = max(1, settings.scoring_processes // workers)
    return settings.model_copy(update=update)


def _worker(settings: Settings, sockets: list[socket.socket],
            args: argparse.Namespace) -> Callable[[int, Synchronized[float]], None]:
    """What each worker process runs: the server of ``settings`` on the shared ``sockets``
    and, all in one, each of its in-process replicas on a loopback port of its own, where
    its episodes are placed and the other workers forward their requests."""
    # Imported here, before the workers fork: each inherits the modules loaded.
    from replicas.catalog import served_apps
    from workgym_core import redis_store

    from ..app import create_app, plan

    local, _ = plan(settings, served_apps(settings.framework_apps))  # bad settings fail here
    shared = local if {"gym", "proxy"} <= settings.roles else []

    def work(index: int, shutdown_s: Synchronized[float]) -> None:
        redis_store.die_with_parent()
        private = {app: _bind("127.0.0.1", 0, " (a worker's replica)") for app in shared}
        ports = {app: sock.getsockname()[1] for app, sock in private.items()}
        server = create_app(settings, replica_ports=ports)
        shutdown_s.value = server.shutdown_s
        if ports:
            print(f"workgym: worker {index} (pid {os.getpid()}): its replicas on 127.0.0.1 "
                  f"ports {', '.join(f'{app} {port}' for app, port in ports.items())}",
                  file=sys.stderr, flush=True)
        try:
            _run(server, settings, [*sockets, *private.values()], args)
        finally:  # how many of its requests crossed workers (keep-alive keeps most home)
            print(f"workgym: worker {index} (pid {os.getpid()}) stopped: it proxied "
                  f"{server.proxied} agent requests and served {server.forwarded_here} "
                  "forwarded by the other workers for its episodes", file=sys.stderr, flush=True)
    return work


def default_app_ports(port: int) -> dict[str, int]:
    """Each app on a port of its own after ``port``, in the catalogue's order: the public apps
    by name, then the framework's (the same port whether or not they are served)."""
    from replicas.catalog import app_names, framework_apps

    framework = framework_apps()
    ordered = sorted(app_names() - framework) + sorted(framework)
    return {app: port + 1 + i for i, app in enumerate(ordered)}


def api_key_location(settings: Settings | TelemetrySettings) -> str:
    """Where the operator finds the API key these settings hold."""
    from workgym_core import credentials

    if "api_key" in settings.model_fields_set:
        return "WORKGYM_API_KEY"
    return (f"{settings.config_dir / credentials.API_KEY_FILE} (the SDK and CLI on this "
            "machine read it from there)")


def _workgym_settings(args: argparse.Namespace) -> Settings:
    """The settings of the gym API, proxy and replicas served (all of them by default)."""
    from workgym_core.errors import ConfigError
    from workgym_core.settings import Settings

    settings = Settings()
    if args.role:
        replicas = [f"replica:{app}" for app in args.app] if args.app else ["replicas"]
        roles = {role for role in args.role if role != "replica"}
        settings = Settings(roles=roles | set(replicas) if "replica" in args.role else roles)
        if "replica" in args.role and settings.redis_url and not settings.instance_url:
            import socket

            # Placement: this instance registers where the others reach it (compose --scale).
            settings = settings.model_copy(
                update={"instance_url": f"http://{socket.gethostname()}:{args.port}"})
    elif args.app:
        raise ConfigError("--app goes with --role replica")
    if "public_url" not in settings.model_fields_set:  # agents reach this server's proxy
        host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
        settings = settings.model_copy(update={"public_url": f"http://{host}:{args.port}"})
    if "proxy" in settings.roles and "app_ports" not in settings.model_fields_set:
        settings = settings.model_copy(update={"app_ports": default_app_ports(args.port)})
    return settings


def _telemetry_app(args: argparse.Namespace) -> tuple[FastAPI, list[str], TelemetrySettings]:
    """The telemetry store, with its own settings (WORKGYM_TELEMETRY_*): a process of its own,
    never combined with another role (the services export their spans to it)."""
    from workgym_core.errors import ConfigError
    from workgym_telemetry.app import create_app
    from workgym_telemetry.settings import TelemetrySettings

    if set(args.role) != {"telemetry"} or args.app:
        raise ConfigError("--role telemetry runs alone: serve the other roles in another process")
    settings = TelemetrySettings()
    return create_app(settings), ["telemetry"], settings
