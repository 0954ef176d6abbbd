"""``workgym tasks [list|check|schema|splits|calibrate]``: the task catalogue, its quality
gate, the task files' JSON Schema, the train/test splits, and a task set calibrated on a
baseline agent."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

from .arguments import fault_plan, seed_list
from .bench import add_bench_arguments, bench_agent_spec

if TYPE_CHECKING:
    from ..quality import SolveInBrowser
    from ..tasks import Task


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks = commands.add_parser("tasks", help="list the task catalogue, check it (the quality "
                                "gate: every solution of every task over seeds), or calibrate "
                                "a task set on a baseline agent")
    _list_options(tasks)  # `workgym tasks` alone lists
    actions = tasks.add_subparsers(dest="action", metavar="ACTION",
                                   help="list (default), check, schema, splits, calibrate")
    _list_options(actions.add_parser("list", help="the task catalogue"))
    check = actions.add_parser("check", help="the quality gate: every solution of every task "
                               "over seeds")
    check.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    check.add_argument("--task", action="append", help="only this task (repeat for several)")
    check.add_argument("--suite", help="only this suite")
    actions.add_parser("schema", help="print the task files' JSON Schema")
    actions.add_parser("splits", help="print tasks/splits.yaml as the packaged tasks give it")
    _calibrate_options(actions.add_parser(
        "calibrate", help="run a baseline agent --attempts times on each task x seed and "
        "write the instances it solves sometimes as a task set",
        description="A bench run (--attempts trials of every problem, its results file, "
        "progress, Ctrl-C and --resume) whose instances solved --low..--high times of "
        "--attempts are written as a task set (`workgym bench --set`, the adapters' "
        "dataset, `workgym export --set` take it), each with its rate. An instance with an "
        "attempt the infrastructure failed is not judged: --resume runs those attempts again."))
    tasks.set_defaults(func=_tasks)


def _list_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--split", choices=["train", "test"], help="only this split's tasks "
                        "(tasks/splits.yaml)")


def _calibrate_options(calibrate: argparse.ArgumentParser) -> None:
    which = calibrate.add_mutually_exclusive_group()
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    which.add_argument("--tasks", help="task ids or globs, comma-separated")
    which.add_argument("--split", choices=["train", "test"], help="every task of a split")
    which.add_argument("--set", metavar="FILE", help="a task set's instances (no --seeds, "
                       "--faults)")
    calibrate.add_argument("--seeds", type=seed_list, help="e.g. 0-4 or 0,3,7-9 (default 0-4)")
    calibrate.add_argument("--faults", type=fault_plan, metavar="PLAN", help="fault plan: "
                           "'task' (default) or a preset")
    calibrate.add_argument("--agent", type=bench_agent_spec, help="the baseline: openai:MODEL "
                           "or any agent `workgym bench` takes (required)")
    calibrate.add_argument("--attempts", type=int, help="runs of each instance (default 5)")
    calibrate.add_argument("--temperature", type=float, help="the model's sampling "
                           "temperature (default 1.0: a baseline samples; at 0 its attempts "
                           "are alike)")
    calibrate.add_argument("--low", type=int, help="fewest solved attempts an instance of the "
                           "set has (default 2)")
    calibrate.add_argument("--high", type=int, help="most solved attempts an instance of the "
                           "set has (default attempts - 1)")
    calibrate.add_argument("--out", help="the task set (default sets/calibrated-AGENT.json)")
    calibrate.add_argument("--results", help="the bench results file of the attempts "
                           "(default: next to the set, .results.json)")
    calibrate.add_argument("--resume", metavar="RESULTS.json", help="run the attempts this "
                           "results file has not recorded (or the infrastructure failed), then "
                           "write the set")
    calibrate.add_argument("--concurrency", type=int, default=4, help="episodes at a time "
                           "(default 4)")
    calibrate.add_argument("--url", help="a WorkGym server; default: run in this process")
    calibrate.add_argument("--max-infra-errors", type=int, default=3, metavar="N",
                           help="infra failures tolerated before the run stops (default 3)")


def _tasks(args: argparse.Namespace) -> int:
    from ..tasks import catalogue

    if args.action == "check":
        return _check(args)
    if args.action == "calibrate":
        from ..bench.calibrate import calibrate

        defaults = argparse.ArgumentParser()
        add_bench_arguments(defaults)
        return calibrate(args, defaults.parse_args([]))
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
