"""``workgym export``: recorded episodes as training data (SFT, DPO, JSONL)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection

from .arguments import one_of
from .serve import TELEMETRY_URL


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser("export", help="recorded episodes as SFT/DPO/JSONL training "
                                 "data")
    export.add_argument("--format", type=one_of(_formats), required=True,
                        help="the records' format (a wrong name lists them)")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", help="one task id")
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    which.add_argument("--set", metavar="FILE", help="a task set's instances: their tasks at "
                       "their seeds")
    export.add_argument("--out", required=True, help="output file (JSON lines)")
    export.add_argument("--telemetry", help="telemetry store URL "
                        f"(default: WORKGYM_TELEMETRY_URL or {TELEMETRY_URL})")
    export.add_argument("--limit", type=int, default=1000, help="episodes per task, newest "
                        "first (of a set's tasks: before the seeds are chosen)")
    export.set_defaults(func=_export)


def _formats() -> Collection[str]:
    from ..export import FORMATS

    return FORMATS


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from replicas.catalog import specs
    from replicas.runtime.app import create_replica_app
    from workgym_core.observability import enabled
    from workgym_core.settings import Settings

    from ..export import Exporter, write
    from ..tasks import catalogue
    from ..tasksets import load
    from ..tools import ToolCatalogue

    settings = Settings()
    tasks = catalogue()
    seeds: dict[str, set[int]] | None = None
    if args.task:
        task_ids = [tasks.get(args.task).id]
    elif args.set:
        seeds = {}
        for instance in load(Path(args.set)).instances:
            seeds.setdefault(instance.task, set()).add(instance.seed)
        task_ids = list(seeds)
    else:
        task_ids = [t.id for t in tasks if t.suite == args.suite]
        if not task_ids:
            raise SystemExit(f"workgym: error: no task in suite '{args.suite}'")
    tools = {name: ToolCatalogue.from_openapi(name, create_replica_app(spec, settings).openapi())
             for name, spec in specs().items()}
    url = args.telemetry or settings.telemetry_url or TELEMETRY_URL
    exporter = Exporter(url, tasks, tools, settings.api_key)
    count = write(exporter.records(args.format, exporter.episodes(task_ids, args.limit, seeds)),
                  Path(args.out))
    print(f"workgym: wrote {count} {args.format} records to {args.out}", file=sys.stderr)
    skipped = exporter.skipped_summary()
    if skipped:
        print(f"workgym: {skipped}", file=sys.stderr)
    if count:
        return 0
    what = args.task or (f"set {args.set}" if args.set else f"suite {args.suite}")
    print(f"workgym: {exporter.nothing_found(args.format, what, enabled(settings))}",
          file=sys.stderr)
    return 1
