"""``workgym ray up|down``: WorkGym on a Ray cluster, its services as actors."""

from __future__ import annotations

import argparse
import sys

from .serve import PORT, PROXY_PORT, api_key_location


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ray = commands.add_parser("ray", help="serve WorkGym on a Ray cluster, many machines: the "
                              "gym API, proxy and replica instances as Ray actors (workgym[ray])")
    ray_sub = ray.add_subparsers(dest="action", required=True)
    ray_up = ray_sub.add_parser("up", help="start the actors (those running are reused); "
                                "print the gym API's and the proxy's URLs")
    ray_down = ray_sub.add_parser("down", help="stop every WorkGym actor of the cluster")
    for action in (ray_up, ray_down):
        action.add_argument("--address", default="auto",
                            help="the Ray cluster: auto (this node's, `ray start`; default) "
                            "or ray://<head>:10001")
        action.set_defaults(func=_ray)
    ray_up.add_argument("--replicas", type=replica_count, action="append", metavar="APP=N",
                        help="replica instances of an app, one CPU each (repeatable; default "
                        "one per app); other replica actors are stopped")
    ray_up.add_argument("--port", type=int, default=PORT,
                        help=f"the gym API's port on the head node (default {PORT}; 0: free)")
    ray_up.add_argument("--proxy-port", type=int, default=PROXY_PORT,
                        help=f"the proxy's port on the head node (default {PROXY_PORT}; 0: free)")
    ray_up.add_argument("--log-level", default="warning")


def _ray(args: argparse.Namespace) -> int:
    """Serve WorkGym on a Ray cluster as actors (``up``), or stop them (``down``)."""
    from workgym_core.settings import Settings

    from .. import ray_cluster

    ray_cluster.connect(args.address)
    if args.action == "down":
        stopped = ray_cluster.down()
        print(f"workgym: stopped {len(stopped)} actors: {', '.join(stopped) or 'none running'}",
              file=sys.stderr)
        return 0
    settings = Settings()
    deployment = ray_cluster.up(settings, dict(args.replicas or []), port=args.port,
                                proxy_port=args.proxy_port, log_level=args.log_level)
    counts = ", ".join(f"{app} x{len(urls)}" for app, urls in deployment.replicas.items())
    print(f"gym API:  {deployment.gym}   (workgym.connect, workgym run --url)\n"
          f"proxy:    {deployment.proxy}   (the episodes' app URLs)\n"
          f"replicas: {counts}   (actors {ray_cluster.REPLICA_PREFIX}<app>-<i>)")
    print(f"workgym: operator API key: {api_key_location(settings)}; `workgym ray down` "
          "stops the actors", file=sys.stderr)
    return 0


def replica_count(text: str) -> tuple[str, int]:
    """``helpdesk=4``: an app and its number of replica instances."""
    app, _, count = text.partition("=")
    if not app or not count.isdigit():
        raise argparse.ArgumentTypeError(f"expected APP=COUNT, e.g. helpdesk=2; got {text!r}")
    return app, int(count)
