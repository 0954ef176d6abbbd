"""``workgym export``: recorded episodes as training data (SFT, DPO, JSONL), or tasks at seeds
as Harbor tasks (``--format harbor``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection

from .arguments import fault_plan, one_of, seed_list
from .serve import TELEMETRY_URL


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser("export", help="recorded episodes as SFT/DPO/JSONL training "
                                 "data, or tasks as Harbor tasks (--format harbor)")
    export.add_argument("--format", type=one_of(_formats), required=True,
                        help="the records' format (a wrong name lists them)")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", help="one task id")
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    which.add_argument("--set", metavar="FILE", help="a task set's instances: their tasks at "
                       "their seeds (harbor: under their fault plans)")
    export.add_argument("--out", required=True, help="output file (JSON lines); with harbor: "
                        "a directory, a task directory per task and seed")
    export.add_argument("--telemetry", help="telemetry store URL "
                        f"(default: WORKGYM_TELEMETRY_URL or {TELEMETRY_URL})")
    export.add_argument("--limit", type=int, default=1000, help="episodes per task, newest "
                        "first (of a set's tasks: before the seeds are chosen)")
    harbor = export.add_argument_group("harbor")
    harbor.add_argument("--seeds", type=seed_list,
                        help="the seeds, e.g. 0-2 or 0,3 (default 0; a set names its own)")
    harbor.add_argument("--faults", type=fault_plan, metavar="PLAN",
                        help="fault plan: 'task' (default) or a preset (a set names its own)")
    harbor.add_argument("--image", help="the WorkGym image the tasks' containers start FROM "
                        "(default: workgym-gym:latest, as `make harbor` tags it)")
    harbor.add_argument("--force", action="store_true", help="empty a non-empty --out first")
    export.set_defaults(func=_export)


def _formats() -> Collection[str]:
    from ..export import FORMATS

    return (*FORMATS, "harbor")


def _harbor(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .. import harbor
    from ..errors import WorkGymClientError
    from ..tasks import catalogue
    from ..tasksets import Instance, load

    tasks = catalogue()
    if args.set:
        if args.seeds is not None or args.faults is not None:
            given = "--seeds" if args.seeds is not None else "--faults"
            raise WorkGymClientError(f"--set {args.set} names each instance's seed and fault "
                                     f"plan: drop {given}")
        selected = load(Path(args.set)).instances
    else:
        if args.task:
            ids = [tasks.get(args.task).id]
        else:
            ids = [t.id for t in tasks if t.suite == args.suite]
            if not ids:
                raise SystemExit(f"workgym: error: no task in suite '{args.suite}'")
        selected = [Instance(task, seed, args.faults or "task")
                    for task in ids for seed in args.seeds or [0]]
    written = harbor.write(selected, Path(args.out), image=args.image or harbor.IMAGE,
                           force=args.force, progress=lambda line: print(
                               f"workgym: {line}", file=sys.stderr))
    print(f"workgym: wrote {len(written)} Harbor tasks to {args.out}", file=sys.stderr)
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.format == "harbor":
        return _harbor(args)
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
