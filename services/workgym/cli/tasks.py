"""``workgym tasks [list|check|schema|splits]``: the task catalogue, its quality gate, the
task files' JSON Schema and the train/test splits."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..quality import SolveInBrowser
    from ..tasks import Task


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks = commands.add_parser("tasks", help="list the task catalogue, or check it (the "
                                "quality gate: every solution of every task over seeds)")
    tasks.add_argument("action", nargs="?", choices=["list", "check", "schema", "splits"],
                       default="list", help="schema: print the task files' JSON Schema; "
                       "splits: print tasks/splits.yaml as the packaged tasks give it")
    tasks.add_argument("--json", action="store_true", help="list: print JSON")
    tasks.add_argument("--split", choices=["train", "test"], help="list: only this split's "
                       "tasks (tasks/splits.yaml)")
    tasks.add_argument("--seeds", type=int, default=10, help="check: seeds 0..N-1 (default 10)")
    tasks.add_argument("--task", action="append", help="check: only this task (repeat for "
                       "several)")
    tasks.add_argument("--suite", help="check: only this suite")
    tasks.set_defaults(func=_tasks)


def _tasks(args: argparse.Namespace) -> int:
    from ..tasks import catalogue

    if args.action == "check":
        return _check(args)
    if args.action in ("schema", "splits"):
        from ..splits import render
        from ..tasks import Task

        print(json.dumps(Task.file_schema(), indent=2) if args.action == "schema"
              else render(catalogue([])), end="\n" if args.action == "schema" else "")
        return 0
    tasks = list(catalogue())
    if args.split:
        from ..splits import in_split

        tasks = in_split(tasks, args.split)
    summaries = [task.summary().model_dump() for task in tasks]
    if args.json:
        print(json.dumps(summaries, indent=2))
        return 0
    rows = [(s["id"], s["difficulty"], ", ".join(s["tags"])) for s in summaries]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(2)]
    for first, second, tags in rows:
        print(f"{first:<{widths[0]}}  {second:<{widths[1]}}  {tags}")
    print(f"{len(summaries)} tasks", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    from workgym_core.settings import Settings

    from ..local import local_server
    from ..quality import inspector, main_check
    from ..sdk import Env
    from ..tasks import catalogue

    tasks = [t for t in catalogue() if (not args.task or t.id in args.task)
             and (not args.suite or t.suite == args.suite)]
    if not tasks:
        raise SystemExit("workgym: error: no task matches")
    server = local_server(Settings(framework_apps=True))  # the gate covers every task
    print(f"workgym: checking {len(tasks)} tasks on {args.seeds} seeds (reference, "
          "alternatives, near misses, noop, what it says restated, shortcuts, browser "
          "solutions)", file=sys.stderr)
    with ExitStack() as stack:
        return main_check(tasks, args.seeds,
                          lambda task, seed: Env.inprocess(server, task, seed),
                          world=inspector(server), browser=_browser(tasks, stack))


def _browser(tasks: list[Task], stack: ExitStack) -> SolveInBrowser | None:
    """How the gate runs the tasks' ``browser:`` solutions: one Chromium and one served gym
    (a :class:`workgym.browser.BrowserEnv`, closed with ``stack``) for the whole check; None
    when no task has one. Without Chromium the gate says so loudly and runs none; in CI
    (``CI`` set, the browser tests' rule) it fails instead (ConfigError: exit 2)."""
    solved = [task.id for task in tasks if task.browser is not None]
    if not solved:
        return None
    from workgym_core.errors import ConfigError

    from ..browser.env import chromium

    if not chromium().exists():
        said = (f"{chromium()} is absent (apt-get install -y chromium, or set "
                f"WORKGYM_CHROMIUM): the browser: solutions of {len(solved)} tasks cannot be "
                f"checked ({', '.join(solved)})")
        if os.environ.get("CI"):
            raise ConfigError(f"tasks check: {said}")
        print(f"workgym: WARNING: {said}; they are NOT checked", file=sys.stderr)
        return None
    from ..browser import BrowserEnv
    from ..browser.script import solve

    env = stack.enter_context(BrowserEnv(screenshots=False))
    return lambda task, seed: solve(env, task, seed)
