"""The ``workgym`` command: serve (every service starts here; on a Ray cluster, ``ray up``),
prebuild snapshots, list tasks, run an agent on a task, export training data."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .presets import fault_presets

if TYPE_CHECKING:  # the commands import what they run: --help loads no web stack
    from fastapi import FastAPI

    from workgym_core.settings import Settings
    from workgym_telemetry.settings import TelemetrySettings

    from .app import Server


PORT = 8000
PROXY_PORT = 8080  # compose's
SWITCH_INTERVAL_S = 0.001
TELEMETRY_PORT = 4318  # OTLP/HTTP's
TELEMETRY_URL = f"http://127.0.0.1:{TELEMETRY_PORT}"  # where `workgym export` reads by default
SIGPIPE_EXIT = 128 + 13  # a shell's code for a command its reader closed on (`| head`)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from . import http_server

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
    uvicorn.Server(http_server.config(app, settings, host=args.host, port=args.port,
                                      log_level=args.log_level)).run()
    return 0


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

    from .app import create_app

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


def _ray(args: argparse.Namespace) -> int:
    """Serve WorkGym on a Ray cluster as actors (``up``), or stop them (``down``)."""
    from workgym_core.settings import Settings

    from . import ray_cluster

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


def _prebuild(args: argparse.Namespace) -> int:
    """Build an app's pristine snapshots under WORKGYM_DATA_DIR/snapshots, where every
    instance of the app looks first: the replica image runs it at build time so that no
    instance seeds at boot or on its first episodes."""
    import time

    from replicas.catalog import app_names, spec
    from replicas.runtime.snapshots import SnapshotCache
    from workgym_core.errors import ConfigError
    from workgym_core.settings import Settings

    if args.app not in app_names():
        raise ConfigError(f"no replica app {args.app!r}; the apps are {sorted(app_names())}")
    cache = SnapshotCache(spec(args.app), Settings().data_dir, size=1)
    started = time.perf_counter()
    total = sum(len(cache.pristine(seed)) for seed in args.seeds)
    print(f"workgym: prebuild {args.app}: {len(args.seeds)} pristine snapshots "
          f"({total / 1e6:.1f} MB) in {cache.dir} in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    return 0


def seed_list(text: str) -> list[int]:
    """Seeds written as ``0-15`` or ``0,3,7-9``."""
    found: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        found.extend(range(int(first), int(last or first) + 1))
    return found


def _tasks(args: argparse.Namespace) -> int:
    from .tasks import catalogue

    if args.action == "check":
        return _check(args)
    if args.action in ("schema", "splits"):
        from .splits import render
        from .tasks import Task

        print(json.dumps(Task.file_schema(), indent=2) if args.action == "schema"
              else render(catalogue([])), end="\n" if args.action == "schema" else "")
        return 0
    tasks = list(catalogue())
    if args.split:
        from .splits import in_split

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


def _new_replica(args: argparse.Namespace) -> int:
    from .scaffold import scaffold

    written = scaffold(args.name)
    print("\n".join(f"  {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}"
                    for path in written))
    print(f"workgym: new app '{args.name}': replicas/{args.name}/ (see replicas/README.md); "
          "`make test` checks it against the replica contract", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    from workgym_core.settings import Settings

    from .local import local_server
    from .quality import inspector, main_check
    from .sdk import Env
    from .tasks import catalogue

    tasks = [t for t in catalogue() if (not args.task or t.id in args.task)
             and (not args.suite or t.suite == args.suite)]
    if not tasks:
        raise SystemExit("workgym: error: no task matches")
    server = local_server(Settings(framework_apps=True))  # the gate covers every task
    print(f"workgym: checking {len(tasks)} tasks on {args.seeds} seeds (reference, "
          "alternatives, near misses, noop, what it says restated, shortcuts)", file=sys.stderr)
    return main_check(tasks, args.seeds,
                      lambda task, seed: Env.inprocess(server, task, seed),
                      world=inspector(server))


def format_report(report: dict[str, Any], agent: str) -> str:
    lines = [
        f"{report['task']}  seed={report['seed']}  agent={agent}",
        f"  success: {report['success']}   reward: {report['reward']:.3f}   "
        f"steps: {report['steps']}",
        "  signals: " + ", ".join(f"{k}={v:.2f}" for k, v in report["signals"].items()),
    ]
    for a in report["assertions"]:
        lines.append(f"    [{'x' if a['passed'] else ' '}] {a['name']}: {a['detail']}")
    if report.get("faults"):
        lines.append(f"  faults injected: {len(report['faults'])}")
        verdict = {True: "recovered", False: "NOT recovered", None: "-"}
        for f in report["faults"]:
            lines.append(f"    step {f['step']:>2} {f['kind']:<18} {f['method']} {f['path']} "
                         f"-> {f['status']}  {verdict[f['recovered']]}")
    lines.append(f"  final_state_hash: {report['final_state_hash']}")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    import workgym

    from .agents import resolve
    from .tasks import catalogue

    task = catalogue().get(args.task)
    agent = resolve(args.agent)
    env = (workgym.connect(args.url, task.id, seed=args.seed, faults=args.faults) if args.url
           else workgym.make(task.id, seed=args.seed, faults=args.faults))
    with env:
        env.reset()
        report = env.finish(answer=agent(env, task))
    print(json.dumps(report, indent=2) if args.json else format_report(report, args.agent))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from .bench.command import bench

    return bench(args)


def _report(args: argparse.Namespace) -> int:
    from .bench.command import report

    return report(args)


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from replicas.catalog import specs
    from replicas.runtime.app import create_replica_app
    from workgym_core.observability import enabled
    from workgym_core.settings import Settings

    from .export import Exporter, write
    from .tasks import catalogue
    from .tools import ToolCatalogue

    settings = Settings()
    tasks = catalogue()
    if args.task:
        task_ids = [tasks.get(args.task).id]
    else:
        task_ids = [t.id for t in tasks if t.suite == args.suite]
        if not task_ids:
            raise SystemExit(f"workgym: error: no task in suite '{args.suite}'")
    tools = {name: ToolCatalogue.from_openapi(name, create_replica_app(spec, settings).openapi())
             for name, spec in specs().items()}
    url = args.telemetry or settings.telemetry_url or TELEMETRY_URL
    exporter = Exporter(url, tasks, tools, settings.api_key)
    count = write(exporter.records(args.format, exporter.episodes(task_ids, args.limit)),
                  Path(args.out))
    print(f"workgym: wrote {count} {args.format} records to {args.out}", file=sys.stderr)
    skipped = exporter.skipped_summary()
    if skipped:
        print(f"workgym: {skipped}", file=sys.stderr)
    if count:
        return 0
    what = args.task or f"suite {args.suite}"
    print(f"workgym: {exporter.nothing_found(args.format, what, enabled(settings))}",
          file=sys.stderr)
    return 1


def one_of(choices: Callable[[], Collection[str]]) -> Callable[[str], str]:
    """An argparse type accepting one of ``choices()``, looked up only when the command that
    has the option runs: serving never loads the agents or the exporter."""
    def check(value: str) -> str:
        if value not in (found := choices()):
            raise argparse.ArgumentTypeError(
                f"invalid choice: {value!r} (choose from {', '.join(sorted(found))})")
        return value
    return check


def agent_spec(value: str) -> str:
    """An argparse type: a built-in agent's name or ``openai:MODEL`` (checked when the
    command runs, as :func:`one_of`)."""
    from .agents import check_spec

    try:
        return check_spec(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _formats() -> Collection[str]:
    from .export import FORMATS

    return FORMATS


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="workgym", description=__doc__)
    sub = root.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the all-in-one server (gym API, proxy, replicas) "
                           "or, with --role, one service alone")
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

    ray = sub.add_parser("ray", help="serve WorkGym on a Ray cluster, many machines: the gym "
                         "API, proxy and replica instances as Ray actors (workgym[ray])")
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

    prebuild = sub.add_parser("prebuild", help="build an app's pristine snapshots ahead of "
                              "time (in WORKGYM_DATA_DIR, where its instances look first)")
    prebuild.add_argument("app", help="the replica app, e.g. helpdesk")
    prebuild.add_argument("--seeds", type=seed_list, default=seed_list("0-15"),
                          help="seeds to build, e.g. 0-15 or 0,3,7-9 (default 0-15)")
    prebuild.set_defaults(func=_prebuild)

    tasks = sub.add_parser("tasks", help="list the task catalogue, or check it (the quality "
                           "gate: every solution of every task over seeds)")
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

    run = sub.add_parser("run", help="run an agent on one episode and print its reward report")
    run.add_argument("--task", required=True, help="task id, e.g. helpdesk/refund-standard")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--agent", type=agent_spec, default="reference",
                     help="a built-in agent (default: reference; a wrong name lists them) or "
                     "openai:MODEL, a model behind OPENAI_BASE_URL (OPENAI_API_KEY)")
    run.add_argument("--faults", choices=["task", *fault_presets()], default="task",
                     help="fault plan: the task's own (default), or a preset")
    run.add_argument("--url", help="a WorkGym server; default: run in this process")
    run.add_argument("--json", action="store_true", help="print the report JSON alone")
    run.set_defaults(func=_run)

    bench = sub.add_parser(
        "bench", help="run an agent over a suite (tasks x seeds x trials): a table, pass@1, "
        "pass@k, pass^k, a results JSON written as episodes finish, and its HTML report",
        description="A problem is a task at a seed, run --trials times; an episode passes "
        "when its report says success; a task passes when all its episodes do. pass^k: the "
        "chance that k trials of a problem all pass (tau-bench), pass@k: that one does, "
        "averaged over problems. Ctrl-C keeps what finished: --resume runs the rest.")
    which = bench.add_mutually_exclusive_group()
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    which.add_argument("--tasks", help="task ids or globs, comma-separated, e.g. "
                       "'helpdesk/refund-*,tracker/start-work-on-bug'")
    which.add_argument("--split", choices=["train", "test"], help="every task of a split "
                       "(tasks/splits.yaml)")
    bench.add_argument("--seeds", type=seed_list, help="e.g. 0-2 or 0,3,7-9 (default 0)")
    bench.add_argument("--trials", type=int, help="runs of each task and seed (default 1)")
    bench.add_argument("--concurrency", type=int, default=4,
                       help="episodes at a time, one thread each (default 4; more for "
                       "model agents, which wait on their API)")
    bench.add_argument("--faults", choices=["task", *fault_presets()],
                       help="fault plan: the task's own (default), or a preset")
    bench.add_argument("--agent", type=agent_spec, help="a built-in agent (default: "
                       "reference) or openai:MODEL")
    bench.add_argument("--url", help="a WorkGym server; default: run in this process")
    bench.add_argument("--out", help="the results JSON (default results/run-NNNN.json, the "
                       "next number); the HTML report goes next to it (.html)")
    bench.add_argument("--resume", metavar="RESULTS.json", help="run the episodes this "
                       "results file has not recorded, with its plan, into it")
    bench.add_argument("--retry-errors", action="store_true",
                       help="with --resume: also run again the episodes that ended in an error")
    bench.add_argument("--max-infra-errors", type=int, default=3, metavar="N",
                       help="infra failures (gym or model endpoint down, key refused; never "
                       "scored, run again by --resume) tolerated: past N the run stops, exit "
                       "3 (default 3)")
    bench.add_argument("--trajectories", action="store_true",
                       help="record each episode's trajectory in the results (messages and "
                       "tools, as `workgym export --format jsonl`): training data")
    bench.set_defaults(func=_bench)

    report = sub.add_parser("report", help="a bench's results JSON as a self-contained HTML "
                            "report (plots, metrics, every episode with its page link)")
    report.add_argument("results", metavar="RESULTS.json")
    report.add_argument("--out", help="the HTML file (default: next to the JSON, .html)")
    report.set_defaults(func=_report)

    export = sub.add_parser("export", help="recorded episodes as SFT/DPO/JSONL training data")
    export.add_argument("--format", type=one_of(_formats), required=True,
                        help="the records' format (a wrong name lists them)")
    which = export.add_mutually_exclusive_group(required=True)
    which.add_argument("--task", help="one task id")
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    export.add_argument("--out", required=True, help="output file (JSON lines)")
    export.add_argument("--telemetry", help="telemetry store URL "
                        f"(default: WORKGYM_TELEMETRY_URL or {TELEMETRY_URL})")
    export.add_argument("--limit", type=int, default=1000, help="episodes per task, newest first")
    export.set_defaults(func=_export)

    new = sub.add_parser("new-replica", help="scaffold a new app in the replica contract's "
                         "shape (replicas/NAME, its tests, its compose service)")
    new.add_argument("name", help="the app's name: lower-case letters and digits")
    new.set_defaults(func=_new_replica)
    return root


def main(argv: list[str] | None = None) -> int:
    """The command's exit code: 2 and one line on stderr for any error (a server that does not
    answer, a refusal, a bad setting), 141 when its reader closed stdout early (``| head``)."""
    from workgym_core.errors import WorkGymError

    from .errors import WorkGymClientError

    try:
        args = parser().parse_args(argv)
        code = int(args.func(args))
        sys.stdout.flush()  # a reader gone (`| head`) shows here, not at exit
        return code
    except (WorkGymError, WorkGymClientError) as exc:
        print(f"workgym: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # Python's "Note on SIGPIPE": quiet, and no second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT


if __name__ == "__main__":
    sys.exit(main())
