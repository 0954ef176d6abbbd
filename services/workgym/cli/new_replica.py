"""``workgym new-replica NAME``: a new app scaffolded in the replica contract's shape."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new = commands.add_parser("new-replica", help="scaffold a new app in the replica "
                              "contract's shape (replicas/NAME, its tests, its compose service)")
    new.add_argument("name", help="the app's name: lower-case letters and digits")
    new.set_defaults(func=_new_replica)


def _new_replica(args: argparse.Namespace) -> int:
    from ..scaffold import scaffold

    written = scaffold(args.name)
    print("\n".join(f"  {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}"
                    for path in written))
    print(f"workgym: new app '{args.name}': replicas/{args.name}/ (see replicas/README.md); "
          "`make test` checks it against the replica contract", file=sys.stderr)
    return 0
