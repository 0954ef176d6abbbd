"""``workgym episode``: one episode driven from the shell, a step per process: ``open`` it
(its observation saved to a file: the apps' URLs, the episode's token, its tools), ``play`` an
agent on it (with the episode's token alone, as an agent), ``finish`` it (its reward, and the
full report). ``finish --published`` and ``report`` split finishing between two machines: the
agent's side finishes with the token alone, the operator's (its API key) waits for the
episode to end and publishes its report to a file the agent's side reads. A Harbor task's
containers run these (workgym.harbor)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from .arguments import agent_spec, fault_plan
from .serve import PORT

URL = f"http://127.0.0.1:{PORT}"
POLL_S = 0.5  # how often `report` asks whether the episode ended, `finish` looks for its report


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
    play = steps.add_parser("play", help="run an agent on the saved episode with its token "
                            "alone (no API key), leaving it open; its answer goes to --answer")
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
    finish.add_argument("--published", type=Path, metavar="FILE",
                        help="finish as the episode's agent (its token alone: no API key) and "
                        "read the report from FILE, where `workgym episode report` publishes it")
    finish.add_argument("--wait", type=float, default=60.0, metavar="SECONDS",
                        help="with --published: wait up to this long for it (default 60)")
    finish.set_defaults(func=_finish)
    report = steps.add_parser("report", help="wait for the saved episode to be finished (by its "
                              "agent) and write its report, as its operator")
    report.add_argument("episode", type=Path, help="the file `workgym episode open` wrote")
    report.add_argument("--out", type=Path, required=True, help="the report file to write")
    report.set_defaults(func=_report)


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
    _write(args.out, saved)
    print(f"workgym: episode {observation.episode_id} of {task.id} (seed {args.seed}) saved "
          f"to {args.out}", file=sys.stderr)
    return 0


def _write(path: Path, document: dict[str, Any]) -> None:
    """``document`` as JSON in ``path``: whole, or not there at all (another process waits
    for it)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    partial.replace(path)


def _attach(path: Path, *, as_agent: bool = False) -> Any:
    from ..errors import WorkGymClientError
    from ..sdk import Observation, attach

    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise WorkGymClientError(f"no episode file at {path} ({exc})") from None
    url, faults = saved.pop("url"), saved.pop("faults")
    return attach(url, Observation(**saved), faults=faults, as_agent=as_agent)


def _play(args: argparse.Namespace) -> int:
    from ..agents import resolve
    from ..bench.preflight import check_agent
    from ..tasks import catalogue

    agent = resolve(args.agent)
    check_agent(agent)
    env = _attach(args.episode, as_agent=True)
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
    env = _attach(args.episode, as_agent=args.published is not None)
    try:
        report = env.finish(answer=answer)
    finally:
        env.detach()
    if args.published:
        report = _published(args.published, report["episode_id"], args.wait)
    if args.report:
        args.report.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(report["reward"])
    return 0


def _published(path: Path, episode_id: str, wait_s: float) -> dict[str, Any]:
    """The report of ``episode_id`` that `workgym episode report` publishes at ``path``, once
    it is there."""
    from ..errors import WorkGymClientError

    deadline = time.monotonic() + wait_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise WorkGymClientError(f"no report published at {path} within {wait_s:g} s "
                                     "(`workgym episode report` writes it, as the operator)")
        time.sleep(POLL_S)
    report: dict[str, Any] = json.loads(path.read_text())
    if report.get("episode_id") != episode_id:
        raise WorkGymClientError(f"the report at {path} is of episode {report.get('episode_id')}"
                                 f", not of {episode_id}")
    return report


def _report(args: argparse.Namespace) -> int:
    from workgym_core.registry import ACTIVE, FINISHED, FINISHING

    from ..errors import WorkGymClientError

    env = _attach(args.episode)
    try:
        while (state := env.state())["status"] in (ACTIVE, FINISHING):
            time.sleep(POLL_S)
    finally:
        env.detach()
    if state["status"] != FINISHED:
        why = f" ({state['lost_reason']})" if state.get("lost_reason") else ""
        raise WorkGymClientError(f"episode {state['id']} is {state['status']}{why}: no report")
    _write(args.out, state["report"])
    print(f"workgym: the report of episode {state['id']} written to {args.out}",
          file=sys.stderr)
    return 0
