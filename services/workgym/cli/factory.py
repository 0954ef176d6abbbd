"""``workgym factory tasks APP``: the app's task families, made from its rules file and
gated (only candidates whose every instance passes the quality gate are written)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    factory = commands.add_parser("factory", help="make an app's replica, graph or tasks "
                                  "from its API description and rules file")
    actions = factory.add_subparsers(dest="action", required=True)
    tasks = actions.add_parser("tasks", help="synthesize APP's task families from its "
                               "source/rules.yaml; write those passing the gate")
    tasks.add_argument("app", help="the app (replicas/<app>/source/rules.yaml)")
    tasks.add_argument("--seeds", type=int, default=10, help="gate seeds 0..N-1 (default 10)")
    tasks.add_argument("--family", action="append", help="only this family (repeat for "
                       "several)")
    tasks.add_argument("--out", type=Path, default=None, help="task root written to "
                       "(default: the packaged tasks/)")
    tasks.add_argument("--dry-run", action="store_true", help="gate, write nothing")
    tasks.set_defaults(func=_tasks)


def _tasks(args: argparse.Namespace) -> int:
    from ..factory.families import named
    from ..factory.synthesis import synthesize
    from ..tasks import TASKS_DIR

    out = None if args.dry_run else (args.out or TASKS_DIR)
    figures = synthesize(args.app, named(args.family), args.seeds, out,
                         progress=lambda line: print(line, file=sys.stderr))
    print(figures.line())
    return 0 if figures.passed else 1
