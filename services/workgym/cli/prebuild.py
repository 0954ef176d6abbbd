"""``workgym prebuild APP``: an app's pristine snapshots and OpenAPI document, built ahead of
time;
``workgym prebuild --catalogue``: the task files parsed ahead of time."""

from __future__ import annotations

import argparse
import sys

from .arguments import seed_list


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    prebuild = commands.add_parser("prebuild", help="build an app's pristine snapshots and "
                                   "OpenAPI document ahead of time (in WORKGYM_DATA_DIR, where "
                                   "its instances look first)"
                                   "; or, with --catalogue, parse the task files ahead of time")
    prebuild.add_argument("app", nargs="?", help="the replica app, e.g. helpdesk")
    prebuild.add_argument("--seeds", type=seed_list, default=seed_list("0-15"),
                          help="seeds to build, e.g. 0-15 or 0,3,7-9 (default 0-15)")
    prebuild.add_argument("--catalogue", action="store_true",
                          help="instead, cache every task root's parsed files in its "
                          "__pycache__ (read at start while the files are unchanged)")
    prebuild.set_defaults(func=_prebuild)


def _prebuild(args: argparse.Namespace) -> int:
    """Build an app's pristine snapshots under WORKGYM_DATA_DIR/snapshots and its OpenAPI
    document under WORKGYM_DATA_DIR/openapi, where every instance of the app looks first: the
    replica image runs it at build time so that no instance seeds or builds its document at
    boot or on its first episodes."""
    import time

    from replicas.catalog import app_names, spec
    from replicas.runtime import openapi_cache
    from replicas.runtime.app import build_openapi, create_replica_app
    from replicas.runtime.snapshots import SnapshotCache
    from workgym_core.errors import ConfigError
    from workgym_core.settings import Settings

    if args.catalogue == bool(args.app):
        raise ConfigError("prebuild takes an app or --catalogue (one of them)")
    if args.catalogue:
        return _catalogue()
    if args.app not in app_names():
        raise ConfigError(f"no replica app {args.app!r}; the apps are {sorted(app_names())}")
    settings = Settings()
    cache = SnapshotCache(spec(args.app), settings.data_dir, size=1)
    started = time.perf_counter()
    total = sum(len(cache.pristine(seed)) for seed in args.seeds)
    print(f"workgym: prebuild {args.app}: {len(args.seeds)} pristine snapshots "
          f"({total / 1e6:.1f} MB) in {cache.dir} in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    app = create_replica_app(spec(args.app), settings)
    where = openapi_cache.write(settings.data_dir, args.app, build_openapi(app, spec(args.app)))
    print(f"workgym: prebuild {args.app}: its OpenAPI document in {where}", file=sys.stderr)
    return 0


def _catalogue() -> int:
    """Cache the parsed task files of every task root (the gym image's build runs it)."""
    from ..task_files import write_cache
    from ..tasks import task_roots

    for root in task_roots():
        where, count = write_cache(root)
        print(f"workgym: prebuild --catalogue: {count} task files in {where}", file=sys.stderr)
    return 0
