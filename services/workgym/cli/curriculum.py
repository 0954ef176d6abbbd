"""``workgym curriculum``: the next task set from a bench run's results, weighted to the
skills it is weakest at (:mod:`workgym.curriculum`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .arguments import seed_list


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    curriculum = commands.add_parser(
        "curriculum", help="the next task set from a bench run, weighted to its weak skills")
    curriculum.add_argument("results", help="a bench results file (results/run-NNNN.json)")
    curriculum.add_argument("--out", help="the task set to write (default: next to the "
                            "results, RESULTS-curriculum.json)")
    curriculum.add_argument("--size", type=int, default=40,
                            help="instances in the set (default 40)")
    curriculum.add_argument("--seeds", type=seed_list, help="seeds to draw instances at, none "
                            "the run used, e.g. 100-104 (default: the 5 smallest it did not "
                            "use)")
    curriculum.set_defaults(func=_curriculum)


def _curriculum(args: argparse.Namespace) -> int:
    from ..bench.results import Results
    from ..curriculum import NothingToPractise, curriculum, planned

    results = Results.load(Path(args.results))
    try:
        taskset = curriculum(results, args.results, size=args.size, seeds=args.seeds)
    except NothingToPractise as why:
        print(f"workgym: {why}; no task set written", file=sys.stderr)
        return 0
    out = Path(args.out) if args.out else \
        results.path.with_name(f"{results.path.stem}-curriculum.json")
    taskset.save(out)
    for skill, count in planned(taskset).items():
        print(f"{skill}: {count} instance{'s' * (count != 1)}")
    print(f"workgym: wrote {len(taskset.instances)} instances "
          f"({len(taskset.rows())} rows with their weights) to {out}", file=sys.stderr)
    return 0
