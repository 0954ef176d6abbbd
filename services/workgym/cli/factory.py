"""``workgym factory compile|graph|tasks``: the factory (services/workgym/factory/): an app
compiled from its spec directory (an API description and a rules file); an app's tool
dependency graph, printed or written as its GRAPH.md; its task families, gated."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .arguments import one_of


def _apps() -> frozenset[str]:
    from replicas import catalog

    return catalog.app_names()


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    factory = commands.add_parser("factory", help="compile an app from its API description "
                                  "and rules file (replicas/<app>/source/); an app's tool "
                                  "dependency graph; its task families")
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
    graph = actions.add_parser("graph", help="which operation's outputs feed which inputs, "
                               "weighted (services/workgym/factory/graph.py)")
    graph.add_argument("app", type=one_of(_apps), help="a catalogued app")
    graph.add_argument("--format", choices=["json", "mermaid", "dot"], default="json")
    graph.add_argument("--min-weight", type=float, default=0.0,
                       help="only edges at least this heavy (strong: 0.8)")
    graph.add_argument("--write", action="store_true",
                       help="(re)write replicas/APP/GRAPH.md instead of printing")
    graph.set_defaults(func=_graph)
    tasks = actions.add_parser("tasks", help="synthesize APP's task families from its "
                               "source/rules.yaml; write those passing the gate")
    tasks.add_argument("app", type=one_of(_apps), help="the app (replicas/<app>/source/rules.yaml)")
    tasks.add_argument("--seeds", type=int, default=10, help="gate seeds 0..N-1 (default 10)")
    tasks.add_argument("--family", action="append", help="only this family (repeat for "
                       "several)")
    tasks.add_argument("--out", type=Path, default=None, help="task root written to "
                       "(default: the packaged tasks/)")
    tasks.add_argument("--dry-run", action="store_true", help="gate, write nothing")
    tasks.set_defaults(func=_tasks)


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


def _graph(args: argparse.Namespace) -> int:
    from ..factory import drawing
    from ..factory.graph import dumps, graph

    found = graph(args.app)
    if args.write:
        target = drawing.markdown_path(args.app)
        target.write_text(drawing.markdown(found))
        print(f"workgym: wrote {target}", file=sys.stderr)
        return 0
    render = {"json": dumps, "mermaid": drawing.mermaid, "dot": drawing.dot}[args.format]
    sys.stdout.write(render(found, args.min_weight))
    return 0


def _tasks(args: argparse.Namespace) -> int:
    from ..factory.families import named
    from ..factory.synthesis import synthesize
    from ..tasks import TASKS_DIR

    out = None if args.dry_run else (args.out or TASKS_DIR)
    figures = synthesize(args.app, named(args.family), args.seeds, out,
                         progress=lambda line: print(line, file=sys.stderr))
    print(figures.line())
    return 0 if figures.passed else 1
