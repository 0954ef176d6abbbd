"""The ``workgym`` command: serve, list tasks, run an agent on a task."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    print(f"workgym: serving on http://{args.host}:{args.port}  (Ctrl-C to stop)", file=sys.stderr)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _tasks(args: argparse.Namespace) -> int:
    from .tasks import catalogue

    summaries = [task.summary().model_dump() for task in catalogue()]
    if args.json:
        print(json.dumps(summaries, indent=2))
        return 0
    for s in summaries:
        print(f"{s['id']:<44} {s['difficulty']:<7} {', '.join(s['tags'])}")
    print(f"{len(summaries)} tasks", file=sys.stderr)
    return 0


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

    from .agents import AGENTS
    from .tasks import catalogue

    task = catalogue().get(args.task)
    env = (workgym.connect(args.url, task.id, seed=args.seed, faults=args.faults) if args.url
           else workgym.make(task.id, seed=args.seed, faults=args.faults))
    with env:
        env.reset()
        report = env.finish(answer=AGENTS[args.agent](env, task))
    print(json.dumps(report, indent=2) if args.json else format_report(report, args.agent))
    return 0


def parser() -> argparse.ArgumentParser:
    from .agents import AGENTS

    root = argparse.ArgumentParser(prog="workgym", description=__doc__)
    sub = root.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the all-in-one server (gym API, proxy, replicas)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="warning")
    serve.set_defaults(func=_serve)

    tasks = sub.add_parser("tasks", help="list the task catalogue")
    tasks.add_argument("--json", action="store_true", help="print JSON")
    tasks.set_defaults(func=_tasks)

    run = sub.add_parser("run", help="run an agent on one episode and print its reward report")
    run.add_argument("--task", required=True, help="task id, e.g. helpdesk/refund-standard")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--agent", choices=sorted(AGENTS), default="reference")
    run.add_argument("--faults", choices=["none", "task", "hard"], default="task",
                     help="fault plan: none, the task's own (default), or the hard preset")
    run.add_argument("--url", help="a WorkGym server; default: run in this process")
    run.add_argument("--json", action="store_true", help="print the report JSON alone")
    run.set_defaults(func=_run)
    return root


def main(argv: list[str] | None = None) -> int:
    from .runtime.errors import WorkGymError
    from .sdk import WorkGymClientError

    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (WorkGymError, WorkGymClientError) as exc:
        print(f"workgym: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
