"""``workgym episode``: one episode driven from the shell, a step per process: ``open`` it
(its observation saved to a file: the apps' URLs, the episode's token, its tools), ``play`` an
agent on it, ``finish`` it (its reward, and the full report). A Harbor task's container runs
these (workgym.harbor)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from .arguments import agent_spec, fault_plan
from .serve import PORT

URL = f"http://127.0.0.1:{PORT}"


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    episode = commands.add_parser("episode", help="open an episode, play an agent on it, finish "
                                  "it: a step per command, the episode kept in a file")
    steps = episode.add_subparsers(dest="step", required=True)
    open_ = steps.add_parser("open", help="open an episode and save it (its observation) to "
                             "a file")
    open_.add_argument("--task", required=True, help="task id, e.g. helpdesk/refund-standard")
    open_.add_argument("--seed", type=int, default=0)
    open_.add_argument("--faults", type=fault_plan, metavar="PLAN", default="task",
                       help="fault plan: 'task' (default) or a preset")
    open_.add_argument("--url", default=URL, help=f"the WorkGym server (default {URL})")
    open_.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                       help="wait up to this long for the server to answer (default: not)")
    open_.add_argument("--out", type=Path, required=True, help="the episode file to write")
    open_.set_defaults(func=_open)
    play = steps.add_parser("play", help="run an agent on the saved episode, leaving it open; "
                            "its answer goes to --answer")
    play.add_argument("episode", type=Path, help="the file `workgym episode open` wrote")
    play.add_argument("--agent", type=agent_spec, default="reference",
                      help="a built-in agent (default: reference) or openai:MODEL")
    play.add_argument("--answer", type=Path, required=True,
                      help="where to write the agent's answer (none: the file is removed)")
    play.set_defaults(func=_play)
    finish = steps.add_parser("finish", help="finish the saved episode and print its reward")
    finish.add_argument("episode", type=Path, help="the file `workgym episode open` wrote")
    finish.add_argument("--answer", type=Path,
                        help="a file holding the answer (absent: no answer)")
    finish.add_argument("--report", type=Path, help="write the full reward report (JSON) here")
    finish.set_defaults(func=_finish)


def _open(args: argparse.Namespace) -> int:
    import workgym

    from ..errors import WorkGymClientError
    from ..processes import wait_http
    from ..tasks import catalogue

    task = catalogue().get(args.task)
    if args.wait:
        try:
            wait_http(f"{args.url.rstrip('/')}/healthz", timeout_s=args.wait)
        except RuntimeError as exc:
            raise WorkGymClientError(f"the WorkGym server: {exc}") from None
    env = workgym.connect(args.url, task.id, seed=args.seed, faults=args.faults)
    observation = env.reset()
    env.detach()
    saved = {"url": args.url, "faults": args.faults, **dataclasses.asdict(observation)}
    partial = args.out.with_name(args.out.name + ".partial")  # whole, or not there at all
    partial.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    partial.replace(args.out)
    print(f"workgym: episode {observation.episode_id} of {task.id} (seed {args.seed}) saved "
          f"to {args.out}", file=sys.stderr)
    return 0


def _attach(path: Path) -> Any:
    from ..errors import WorkGymClientError
    from ..sdk import Observation, attach

    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise WorkGymClientError(f"no episode file at {path} ({exc})") from None
    url, faults = saved.pop("url"), saved.pop("faults")
    return attach(url, Observation(**saved), faults=faults)


def _play(args: argparse.Namespace) -> int:
    from ..agents import resolve
    from ..bench.preflight import check_agent
    from ..tasks import catalogue

    agent = resolve(args.agent)
    check_agent(agent)
    env = _attach(args.episode)
    try:
        answer = agent(env, catalogue().get(env.task))
    finally:
        env.detach()
    if answer is None:
        args.answer.unlink(missing_ok=True)
    else:
        args.answer.write_text(answer)
    return 0


def _finish(args: argparse.Namespace) -> int:
    answer = args.answer.read_text() if args.answer and args.answer.exists() else None
    env = _attach(args.episode)
    try:
        report = env.finish(answer=answer)
    finally:
        env.detach()
    if args.report:
        args.report.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(report["reward"])
    return 0
