"""``workgym tasks calibrate``: a baseline agent's solve rate on each task at each seed, and
the instances it solves sometimes (``low``..``high`` times of ``attempts``) as a task set,
the instances an RL run can learn from (always solved or never solved, a group's rewards are
all alike and its advantages zero).

The attempts are a bench run (``attempts`` trials of every problem) through the bench's own
runner and results file: the same progress, Ctrl-C and ``--resume``, the same infra-failure
handling. An instance is judged on its full ``attempts`` only: one with an attempt the
infrastructure failed (never scored) is left out of the set and counted apart, and resuming
the results file runs those attempts again. An agent's own errors are failed attempts.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workgym_core.errors import ConfigError

from ..envversion import current
from ..tasksets import Instance, TaskSet
from .command import bench, problems_of, selection_args
from .results import Results
from .summary import plural

SEEDS = [0, 1, 2, 3, 4]
ATTEMPTS = 5
LOW = 2
MODEL_TEMPERATURE = 1.0  # a baseline samples: at 0, a model's attempts are all alike
NOTHING = 1  # the exit code when no instance is in the band (no set is written)


@dataclass(frozen=True)
class Judged:
    """What a calibration found: the set's instances, and how every instance fared."""

    instances: list[Instance]
    tally: Counter[str]  # "in band", "always solved", "never solved", "below", "above", "infra"


def judge(results: Results, low: int, high: int) -> Judged:
    """The instances of ``results`` (a finished run, its problems in plan order) solved
    ``low``..``high`` times, each with ``info: {solved, attempts, rate}``."""
    attempts = int(results.header["trials"])
    solved: Counter[tuple[str, int]] = Counter()
    scored: Counter[tuple[str, int]] = Counter()
    for episode in results.episodes:
        if not episode.get("infra_error"):
            scored[(episode["task"], episode["seed"])] += 1
            solved[(episode["task"], episode["seed"])] += bool(episode["success"])
    instances: list[Instance] = []
    tally: Counter[str] = Counter()
    for problem in problems_of(results.header):
        key = (problem.task.id, problem.seed)
        c = solved[key]
        if scored[key] < attempts:
            tally["infra"] += 1
        elif low <= c <= high:
            tally["in band"] += 1
            instances.append(Instance(problem.task.id, problem.seed, problem.faults, info={
                "solved": c, "attempts": attempts, "rate": round(c / attempts, 4)}))
        else:
            tally["always solved" if c == attempts else "never solved" if c == 0
                  else "below" if c < low else "above"] += 1
    return Judged(instances, tally)


def default_out(agent: str) -> Path:
    """``sets/calibrated-<agent>.json`` (the agent's spec as a file name)."""
    return Path("sets") / f"calibrated-{re.sub(r'[^A-Za-z0-9._-]+', '-', agent)}.json"


def _command(header: dict[str, Any], low: int, high: int, out: Path) -> str:
    """The command that calibrates this way again."""
    temperature = [] if header.get("temperature") is None else \
        ["--temperature", str(header["temperature"])]
    return shlex.join(["workgym", "tasks", "calibrate", *selection_args(header), "--attempts",
                       str(header["trials"]), "--agent", header["agent"], *temperature,
                       "--low", str(low), "--high", str(high), "--out", str(out)])


def _bench_args(args: argparse.Namespace, bench_defaults: argparse.Namespace,
                results: Path | None) -> argparse.Namespace:
    """The ``workgym bench`` options of the calibration run (its defaults, ``bench_defaults``,
    but what calibrate chooses): a new one into ``results``, or (``results`` None)
    ``--resume``."""
    new = results is not None
    model = args.agent is not None and args.agent.partition(":")[0] == "openai"
    return argparse.Namespace(**{
        **vars(bench_defaults),
        "suite": args.suite, "tasks": args.tasks, "split": args.split, "set": args.set,
        "seeds": args.seeds or (SEEDS if new and not args.set else None),
        "trials": args.attempts or (ATTEMPTS if new else None),
        "faults": args.faults, "agent": args.agent,
        "temperature": args.temperature if args.temperature is not None or not new
        else MODEL_TEMPERATURE if model else None,
        "concurrency": args.concurrency, "url": args.url,
        "out": str(results) if new else None, "resume": args.resume,
        "max_infra_errors": args.max_infra_errors})


def calibrate(args: argparse.Namespace, bench_defaults: argparse.Namespace) -> int:
    """``workgym tasks calibrate``: ``args``, its options; ``bench_defaults``, what ``workgym
    bench`` takes when given nothing (the run's options but calibrate's own)."""
    if args.resume:
        if args.temperature is not None or args.results:
            raise ConfigError("--resume runs the plan of the results file into it: drop "
                              f"{'--temperature' if args.temperature is not None else '--results'}")
        results_path = Path(args.resume)
        recorded = Results.load(results_path).header
        agent, attempts = recorded["agent"], args.attempts or int(recorded["trials"])
    elif args.agent is None:
        raise ConfigError("tasks calibrate: choose the baseline, --agent openai:MODEL (or any "
                          "agent the bench takes)")
    else:
        agent, attempts = args.agent, args.attempts or ATTEMPTS
    if attempts < 2:
        raise ConfigError(f"--attempts {attempts}: a rate needs 2 attempts or more")
    high = attempts - 1 if args.high is None else args.high
    low = min(LOW, attempts - 1) if args.low is None else args.low
    if not 0 <= low <= high <= attempts:
        raise ConfigError(f"--low {low} --high {high}: need 0 <= low <= high <= attempts "
                          f"({attempts})")
    out = Path(args.out) if args.out else default_out(agent)
    if not args.resume:
        results_path = Path(args.results) if args.results else out.with_suffix(".results.json")
    code = bench(_bench_args(args, bench_defaults, None if args.resume else results_path))
    if code != 0:
        print(f"workgym: no task set written (the run did not end): `workgym tasks calibrate "
              f"--resume {results_path}` runs the rest", file=sys.stderr)
        return code
    results = Results.load(results_path)
    judged = judge(results, low, high)
    print(_summary(judged, attempts, low, high, results_path))
    if not judged.instances:
        print(f"workgym: no instance solved {band(low, high)} of {attempts}: no task set "
              f"written (a set holds what {agent} solves only sometimes; a model at "
              "--temperature 1, or other tasks or seeds, give some)", file=sys.stderr)
        return NOTHING
    header = results.header
    TaskSet(judged.instances, name=out.stem,
            description=f"instances {agent} solved {band(low, high)} of {attempts}"
            + (f" at temperature {header['temperature']}"
               if header.get("temperature") is not None else ""),
            env_version=header.get("env_version") or current().as_dict(),
            made_by={"command": _command(header, low, high, out),
                     "results": str(results_path), "agent": agent,
                     "temperature": header.get("temperature"), "attempts": attempts,
                     "low": low, "high": high}).save(out)
    print(f"workgym: task set of {plural(len(judged.instances), 'instance')} written to {out} "
          f"(`workgym bench --set {out}` runs it)", file=sys.stderr)
    return 0


def band(low: int, high: int) -> str:
    """``2-4 times``, ``once``, ``3 times``."""
    if low != high:
        return f"{low}-{high} times"
    return "once" if low == 1 else f"{low} times"


def _summary(judged: Judged, attempts: int, low: int, high: int, results: Path) -> str:
    """``calibrated 12 instances × 5 attempts: 3 in band (solved 2-4 times), 5 always
    solved, ...``."""
    tally = judged.tally
    parts = [f"{tally['in band']} in band (solved {band(low, high)})",
             f"{tally['always solved']} always solved", f"{tally['never solved']} never solved"]
    if tally["below"]:
        parts.append(f"{tally['below']} solved fewer than {low} times")
    if tally["above"]:
        parts.append(f"{tally['above']} solved more than {high} times")
    if tally["infra"]:
        parts.append(f"{tally['infra']} not judged (attempts the infrastructure failed: "
                     f"`workgym tasks calibrate --resume {results}` runs them again)")
    return (f"calibrated {plural(tally.total(), 'instance')} × "
            f"{plural(attempts, 'attempt')}: {', '.join(parts)}")
