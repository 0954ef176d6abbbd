"""``workgym factory compile|...``: the factory (services/workgym/factory/): an app compiled
from its spec directory (an API description and a rules file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    factory = commands.add_parser("factory", help="compile an app from its API description "
                                  "and rules file (replicas/<app>/source/)")
    actions = factory.add_subparsers(dest="action", required=True)
    compile_ = actions.add_parser("compile", help="write the replica package a spec directory "
                                  "compiles to (every file but source/)")
    compile_.add_argument("spec", type=Path, help="the spec directory: rules.yaml (and "
                          "openapi.yaml), e.g. replicas/crm/source")
    compile_.add_argument("--out", type=Path, help="the package folder to write (default: the "
                          "spec directory's parent)")
    compile_.add_argument("--check", action="store_true", help="write nothing; exit 1 naming "
                          "the files that differ from what the spec compiles to")
    compile_.set_defaults(func=_compile)


def _compile(args: argparse.Namespace) -> int:
    from ..factory.compile import compile_to
    from ..factory.source import Source, SourceError

    try:
        source = Source.load(args.spec)
    except SourceError as exc:
        print(f"workgym: error: {args.spec}: {exc}", file=sys.stderr)
        return 2
    out = args.out or args.spec.resolve().parent
    outcome = compile_to(source, out, check=args.check, progress=print)
    if args.check and outcome.changed:
        print(f"workgym: {out}: {len(outcome.changed)} files differ from what {args.spec} "
              f"compiles to: {', '.join(outcome.changed)}", file=sys.stderr)
        return 1
    verb = "would change" if args.check else "wrote"
    print(f"workgym: {out}: {verb} {len(outcome.written)}, removed {len(outcome.removed)}, "
          f"{len(outcome.unchanged)} unchanged", file=sys.stderr)
    return 0
