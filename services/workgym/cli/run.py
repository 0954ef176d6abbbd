"""``workgym run``: one episode of an agent on a task, and its reward report."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .arguments import agent_spec, fault_plan, user_spec


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("run", help="run an agent on one episode and print its reward "
                              "report")
    run.add_argument("--task", required=True, help="task id, e.g. helpdesk/refund-standard")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--agent", type=agent_spec, default="reference",
                     help="a built-in agent (default: reference; a wrong name lists them) or "
                     "openai:MODEL, a model behind OPENAI_BASE_URL (OPENAI_API_KEY)")
    run.add_argument("--faults", type=fault_plan, metavar="PLAN", default="task",
                     help="fault plan: 'task', the task's own (default), or a preset (a wrong "
                     "name lists them)")
    run.add_argument("--user", type=user_spec, metavar="openai:MODEL",
                     help="a model that plays the helpdesk's customer (words what the task's "
                     "script has them say; OPENAI_BASE_URL, or the --url server's); default: "
                     "the scripted customer")
    run.add_argument("--url", help="a WorkGym server; default: run in this process")
    run.add_argument("--json", action="store_true", help="print the report JSON alone")
    run.set_defaults(func=_run)


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

    from ..agents import resolve
    from ..bench.preflight import check_agent, check_user
    from ..tasks import catalogue

    task = catalogue().get(args.task)
    agent = resolve(args.agent)
    check_agent(agent)  # a model's endpoint and model, before an episode starts
    if args.url:
        env = workgym.connect(args.url, task.id, seed=args.seed, faults=args.faults,
                              user=args.user)
    else:
        check_user(args.user)
        env = workgym.make(task.id, seed=args.seed, faults=args.faults, user=args.user)
    with env:
        env.reset()
        report = env.finish(answer=agent(env, task))
    print(json.dumps(report, indent=2) if args.json else format_report(report, args.agent))
    return 0
