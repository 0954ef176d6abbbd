"""``workgym compare A.json B.json``: two bench runs' differences, and which are significant."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compare = commands.add_parser(
        "compare", help="two bench results on the same problems: per task and overall (pass@1, "
        "avg score, pass^k), B - A with its 95%% interval and whether it is significant",
        description="Pairs the runs' problems (task, seed); infra failures enter nothing. "
        "Overall: the paired bootstrap (significant when the interval of B - A excludes 0); "
        "per task: the paired sign-flip test, Holm-adjusted over tasks. Refuses runs of "
        "different fault plans or environment versions.")
    compare.add_argument("a", metavar="A.json", help="the first run's results")
    compare.add_argument("b", metavar="B.json", help="the second run's results")
    compare.add_argument("--out", metavar="FILE.json", help="also write the comparison as JSON")
    compare.add_argument("--allow-version-mismatch", action="store_true",
                         help="compare runs of different environment versions (with a warning)")
    compare.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from ..bench.compare import compare, text

    comparison = compare(Path(args.a), Path(args.b), args.allow_version_mismatch)
    print(text(comparison))
    if args.out:
        Path(args.out).write_bytes(comparison.as_json())
        print(f"workgym: comparison written to {args.out}", file=sys.stderr)
    return 0
