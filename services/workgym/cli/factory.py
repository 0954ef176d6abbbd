"""``workgym factory graph``: the factory's commands (``graph``: an app's tool dependency
graph, printed or written as its GRAPH.md)."""

from __future__ import annotations

import argparse
import sys

from .arguments import one_of


def _apps() -> frozenset[str]:
    from replicas import catalog

    return catalog.app_names()


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    factory = commands.add_parser("factory", help="the factory: an app's tool dependency "
                                  "graph")
    actions = factory.add_subparsers(dest="action", required=True)
    graph = actions.add_parser("graph", help="which operation's outputs feed which inputs, "
                               "weighted (services/workgym/factory/graph.py)")
    graph.add_argument("app", type=one_of(_apps), help="a catalogued app")
    graph.add_argument("--format", choices=["json", "mermaid", "dot"], default="json")
    graph.add_argument("--min-weight", type=float, default=0.0,
                       help="only edges at least this heavy (strong: 0.8)")
    graph.add_argument("--write", action="store_true",
                       help="(re)write replicas/APP/GRAPH.md instead of printing")
    graph.set_defaults(func=_graph)


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
