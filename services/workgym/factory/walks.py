"""Whether a task's solutions are walks over its apps' tool dependency graphs
(:mod:`.graph`): each call's path parameters, and the ids its body names (the body fields
the graph feeds ids or references into, not a same name), are fed by an earlier call of the
same solution through an edge of the graph, or come from the instruction (the script's
``given``), or are literal choices (``/objects/deals/...``).

A value a script fills from what it saved (``{{ deal.id }}``, ``{deal}``) is fed by the last
earlier step saving that name; that step's operation must have an edge to this one for the
parameter, or be this one (a record read again: the graph has no edge from an operation to
itself). A value saved from another app's answer crosses apps, which no graph joins: it is
taken as fed (each app's graph judges its own steps).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..tasks import Reference, ReferenceStep, Variant
from .graph import Edge, Graph

# A value filled from a saved name: ``{{ deal.id }}``/``{{deal.id}}``, ``{deal}``.
_SAVED = re.compile(r"\{\{\s*(\w+)[.\w]*\s*\}\}|\{(\w+)\}")
_PARAM = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Route:
    """A route's path as a pattern of concrete paths, and its path parameters in order."""

    operation_id: str
    method: str
    path: str
    pattern: re.Pattern[str]
    params: tuple[str, ...]
    literal: int  # characters outside its parameters: the most specific route wins


def _routes(found: Graph) -> list[Route]:
    out = []
    for node in found.nodes:
        params = tuple(_PARAM.findall(node.path))
        # A concrete path's parameter is a value or a template (``{{deal.id}}``): no slash.
        regex = "".join(f"(?P<{p}>[^/]+)" if p else re.escape(text) for text, p in
                        _split(node.path))
        out.append(Route(node.operation_id, node.method, node.path,
                         re.compile(regex + "/?"), params, len(_PARAM.sub("", node.path))))
    return sorted(out, key=lambda r: (-r.literal, r.operation_id))


def _split(path: str) -> Iterator[tuple[str, str]]:
    """``path`` as (literal text, "") and ("", parameter) pieces."""
    at = 0
    for match in _PARAM.finditer(path):
        yield path[at:match.start()], ""
        yield "", match.group(1)
        at = match.end()
    yield path[at:], ""


def _body_values(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """(body path as the graph names it: ``inputs[].id``, the string there) of a JSON body."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _body_values(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _body_values(item, f"{where}[]")
    elif isinstance(value, str):
        yield where, value


def _saved_names(value: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in _SAVED.finditer(value)]


def _feeds(source: tuple[str, str], target: tuple[str, str], parameter: str,
           into: tuple[Edge, ...]) -> bool:
    """Whether what ``source`` (app, operationId) answered feeds ``target``'s ``parameter``:
    through one of the edges ``into`` it, or itself (a record read again), or across apps."""
    return source[0] != target[0] or source[1] == target[1] or any(
        e.source == source[1] and e.parameter == parameter for e in into)


class Walks:
    """The walk check over the graphs of a task's apps (``graph_of(app)``)."""

    def __init__(self, graph_of: Callable[[str], Graph]) -> None:
        self._graph_of = graph_of
        self._routes: dict[str, list[Route]] = {}

    def routes(self, app: str) -> list[Route]:
        if app not in self._routes:
            self._routes[app] = _routes(self._graph_of(app))
        return self._routes[app]

    def route(self, app: str, call: str) -> tuple[Route, dict[str, str]] | None:
        """The operation a step's ``METHOD /path`` calls and its path parameters' values."""
        method, path = call.split(" ", 1)
        for route in self.routes(app):
            if route.method == method and (match := route.pattern.fullmatch(path)):
                return route, match.groupdict()
        return None

    def fault(self, steps: list[ReferenceStep], given: Mapping[str, str], app: str) -> str | None:
        """Why ``steps`` (a solution of a task whose first app is ``app``) are not a walk:
        the step (1-based) and the parameter no earlier step feeds; None when they are."""
        saved: dict[str, tuple[str, str]] = {}  # name -> (app, operationId) of its last saver
        for number, step in enumerate(steps, 1):
            on = step.app or app
            found = self.route(on, step.call)
            if found is None:
                return f"step {number} {step.call}: no operation of {on}'s graph"
            route, values = found
            into = self._graph_of(on).fed_by(route.operation_id)
            inputs = [(f"path:{p}", values[p]) for p in route.params]
            with_edges = {e.parameter for e in into if e.rule != "same name"}
            inputs += [(f"body:{where}", value) for where, value in _body_values(step.json_body)
                       if f"body:{where}" in with_edges]
            for parameter, value in inputs:
                for name in _saved_names(value):
                    if name in given and name not in saved:
                        continue
                    source = saved.get(name)
                    if source is None or not _feeds(source, (on, route.operation_id),
                                                    parameter, into):
                        return (f"step {number} {route.method} {route.path}: no earlier "
                                f"step feeds {parameter.split(':', 1)[1]}")
            for name in (*step.save, *step.maybe):
                saved[name] = (on, route.operation_id)
        return None

    def faults(self, body: Mapping[str, Any], app: str) -> list[str]:
        """Why the reference and each alternative of a task file's mapping are not walks
        (``reference: ...``, ``<alternative>: ...``); [] when all are."""
        reference = Reference.model_validate(body["reference"])
        solutions = [("reference", reference)] + [
            (variant.name, variant.solution(reference))
            for variant in (Variant.model_validate(v) for v in body.get("alternatives", ()))]
        out = []
        for name, solution in solutions:
            why = self.fault(solution.steps, solution.given, app)
            if why is not None:
                out.append(f"{name}: {why}")
        return out
