"""``workgym serve``: the all-in-one server, or one service alone (--role)."""

from __future__ import annotations

import argparse
import gc
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands import what they run: --help loads no web stack
    import uvicorn
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
    serve.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .. import http_server

    telemetry = "telemetry" in (args.role or ())
    if args.port is None:
        args.port = TELEMETRY_PORT if telemetry else PORT
    app, roles, settings = _telemetry_app(args) if telemetry else _workgym_app(args)
    print(f"workgym: serving {', '.join(roles)} on http://{args.host}:{args.port}  "
          "(Ctrl-C to stop)", file=sys.stderr)
    if {"gym", "telemetry"} & set(roles):
        print(f"workgym: operator API key: {api_key_location(settings)}", file=sys.stderr)
    # What start-up built (modules, apps, the catalogue) lives as long as the process: out of
    # the collector's way, so full collections among many live episodes stay short.
    gc.freeze()
    # Replica work runs in worker threads (replicas/runtime/workers.py): a thread in Python
    # code hands the GIL to the serving loop after 1 ms rather than Python's 5 ms, so one
    # episode's costly request adds at most that to the others' steps.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    config = http_server.config(app, settings, host=args.host, port=args.port,
                                log_level=args.log_level)
    ports = getattr(settings, "app_ports", {}) if "proxy" in roles else {}
    for name, port in ports.items():
        print(f"workgym: serving {name} at its product's own base path on "
              f"http://{args.host}:{port}", file=sys.stderr)
    uvicorn.Server(config).run(sockets=[config.bind_socket(), *(
        _bind(config, port) for port in ports.values())] if ports else None)
    return 0


def _bind(config: uvicorn.Config, port: int) -> socket.socket:
    """A socket on ``config``'s host and ``port`` (an app's own, WORKGYM_APP_PORTS)."""
    import uvicorn

    from workgym_core.errors import ConfigError

    try:
        # log_config=None: a Config configures logging as it is made, and its defaults would
        # turn the access log (a line per request) back on past --log-level.
        return uvicorn.Config(config.app, host=config.host, port=port,
                              log_config=None).bind_socket()
    except SystemExit as exc:  # uvicorn exits when the port is taken
        raise ConfigError(f"cannot listen on port {port} (WORKGYM_APP_PORTS): in use") from exc


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


def _workgym_app(args: argparse.Namespace) -> tuple[Server, list[str], Settings]:
    """The gym API, proxy and replicas this process serves (all of them by default)."""
    from workgym_core.errors import ConfigError
    from workgym_core.settings import Settings

    from ..app import create_app

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
    return create_app(settings), sorted(settings.roles), settings


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
