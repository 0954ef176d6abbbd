"""``workgym bench`` (an agent over a suite: results and pass@k) and ``workgym report`` (a
bench's results as HTML)."""

from __future__ import annotations

import argparse

from .arguments import agent_spec, fault_plan, seed_list, user_spec


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser(
        "bench", help="run an agent over a suite (tasks x seeds x trials): a table, pass@1, "
        "pass@k, pass^k, a results JSON written as episodes finish, and its HTML report",
        description="A problem is a task at a seed, run --trials times; an episode passes "
        "when its report says success; a task passes when all its episodes do. pass^k: the "
        "chance that k trials of a problem all pass (tau-bench), pass@k: that one does, "
        "averaged over problems. Ctrl-C keeps what finished: --resume runs the rest.")
    add_bench_arguments(bench)
    bench.set_defaults(func=_bench)

    report = commands.add_parser("report", help="a bench's results JSON as a self-contained "
                                 "HTML report (plots, metrics, every episode with its page link)")
    report.add_argument("results", metavar="RESULTS.json")
    report.add_argument("--out", help="the HTML file (default: next to the JSON, .html)")
    report.set_defaults(func=_report)


def add_bench_arguments(bench: argparse.ArgumentParser) -> None:
    """Every option of ``workgym bench``: what it runs, how, and where its results go."""
    which = bench.add_mutually_exclusive_group()
    which.add_argument("--suite", help="every task of a suite, e.g. helpdesk")
    which.add_argument("--tasks", help="task ids or globs, comma-separated, e.g. "
                       "'helpdesk/refund-*,tracker/start-work-on-bug'")
    which.add_argument("--split", choices=["train", "test"], help="every task of a split "
                       "(tasks/splits.yaml)")
    which.add_argument("--set", metavar="FILE", help="a task set's instances (a task at a "
                       "seed under a fault plan each: no --seeds, --faults), e.g. one `workgym "
                       "tasks calibrate` wrote")
    bench.add_argument("--seeds", type=seed_list, help="e.g. 0-2 or 0,3,7-9 (default 0)")
    bench.add_argument("--trials", type=int, help="runs of each task and seed (default 1)")
    bench.add_argument("--concurrency", type=int, default=4,
                       help="episodes at a time, one thread each (default 4; more for "
                       "model agents, which wait on their API)")
    bench.add_argument("--faults", type=fault_plan, metavar="PLAN",
                       help="fault plan: 'task', the task's own (default), or a preset (a "
                       "wrong name lists them)")
    bench.add_argument("--agent", type=bench_agent_spec, help="a built-in agent (default: "
                       "reference; flaky[:P[:SEED]]: the reference slipping in a share P of "
                       "episodes, drawn per episode: for measuring noise), openai:MODEL, or "
                       "a browser agent: browser-reference (the task's browser: script) or "
                       "browser:MODULE:CALLABLE (callable(obs) -> a BrowserGym action string, "
                       "None when done)")
    bench.add_argument("--user", type=user_spec, metavar="openai:MODEL",
                       help="a model that plays the helpdesk's customer (OPENAI_BASE_URL, or "
                       "the --url server's); default: the scripted customer")
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


def bench_agent_spec(value: str) -> str:
    """An argparse type: what :func:`agent_spec` takes, or a browser agent
    (``browser-reference``, ``browser:<module>:<callable>``: the bench's alone)."""
    from ..browser import agents as browser_agents

    if not browser_agents.is_browser(value):
        return agent_spec(value)
    try:
        return browser_agents.check(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _bench(args: argparse.Namespace) -> int:
    from ..bench.command import bench

    return bench(args)


def _report(args: argparse.Namespace) -> int:
    from ..bench.command import report

    return report(args)
