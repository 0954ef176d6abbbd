"""What the family kinds share: the cases a state machine offers, the record's setup, the
reference's finding, acting and telling steps, and the verifier's postconditions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..graph import graph
from ..synthesis import AppRules, fill
from ..task_rules import Finder, Record, StateMachine


@dataclass(frozen=True)
class Case:
    """One transition of a machine on one kind of record: ``start`` -> ``to``."""

    machine: str
    sm: StateMachine
    record: Record
    start: str
    to: str

    @property
    def column(self) -> str:
        return self.sm.column

    def words(self, to: str | None = None) -> str:
        """What the record's party is told when the transition into ``to`` is done."""
        return self.record.say[self.column][to or self.to]


def cases(app: AppRules, told: bool = True) -> Iterator[Case]:
    """Every transition the rules let a task do and tell: for each machine with an ``act``
    on a table with a ``records`` entry, each target the party can be told of (``say``),
    from the first state (in the machine's order) that goes there; with ``told`` False, each
    target the rules give no words for instead (nobody is told of it)."""
    for name, sm in sorted(app.rules.state_machines.items()):
        record = app.rules.records.get(sm.table)
        if record is None:
            continue
        for to in sm.states:
            if sm.act_into(to) is None or (to in record.say.get(sm.column, {})) != told:
                continue
            start = next((s for s in sm.states if sm.allowed(s, to)), None)
            if start is not None:
                yield Case(name, sm, record, start, to)


def with_article(noun: str) -> str:
    """``noun`` with its indefinite article (``an invoice``, ``a deal``)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def slug(*parts: str) -> str:
    """A task name of ``parts``: lower case, words joined by dashes (``In Progress``:
    ``in-progress``)."""
    return "-".join(p.replace("_", "-").replace(" ", "-").lower() for p in parts)


def setup(case: Case, state: str | None = None) -> list[dict[str, Any]]:
    """The record's setup ops, the case's record in ``state`` (default: its start)."""
    ops = []
    for op in case.record.make:
        if op.get("bind") == case.record.bind:
            op = made_in(op, {**case.sm.make_with, case.column: state or case.start})
        ops.append(op)
    return ops


def made_in(op: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The setup op making the record, taking ``values`` (an insert's in its ``values``, a
    factory's as its overrides)."""
    if "insert" in op:
        return {**op, "values": {**op["values"], **values}}
    return {**op, **values}


def find(app: AppRules, finder: Finder, route: int = 0) -> list[dict[str, Any]]:
    return [app.call(step) for step in finder.routes[route]]


def other_ways(app: AppRules, case: Case, finder: Finder) -> list[int]:
    """The finder's other routes (indices, in the rules' order) the app's graph offers for the
    act's record: those whose saving step is an operation feeding a path parameter of the act
    (its ``fed_by`` edges). The rules' routes give the requests."""
    into = case.sm.act_into(case.to)
    assert into is not None
    feeding = {edge.source for edge in graph(app.app).fed_by(into.operation)
               if edge.parameter.startswith("path:")}
    return [i for i, route in enumerate(finder.routes[1:], 1)
            if any(step.operation in feeding for step in route if step.save or step.maybe)]


def act(app: AppRules, case: Case, to: str | None = None) -> list[dict[str, Any]]:
    """The steps moving the record into ``to`` (default: the case's target): the reads the
    act needs, then its operation."""
    to = to or case.to
    into = case.sm.act_into(to)
    assert into is not None
    return [app.call(step, to=to) for step in [*into.before, into]]


def tell(app: AppRules, case: Case, text: str) -> dict[str, Any]:
    assert case.record.tell is not None
    return app.call(case.record.tell, text=text)


def telling(app: AppRules, case: Case, text: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """How a solution tells the party ``text``: the record's ``tell`` step, or (a record
    without one) its final answer."""
    if case.record.tell is None:
        return [], {"answer": text}
    return [tell(app, case, text)], {}


def first_name(case: Case) -> str:
    return "{{ " + f"{case.record.party}.{case.record.party_name} | first" + " }}"


def changed(case: Case, to: str | None = None, start: str | None = None) -> dict[str, Any]:
    """The assertion that the record's column went from the start to ``to``."""
    return {"name": f"{case.column}_{to or case.to}", "check": "field_changed",
            "table": case.sm.table, "where": {"id": f"${case.record.bind}.id"},
            "field": case.column, "from": start or case.start, "to": to or case.to}


def told(case: Case, name: str = "party_told") -> dict[str, Any]:
    claim = case.record.claims.get(case.column, {}).get(case.to)
    return {"name": name, **fill(case.record.told, {"claim": claim} if claim else {})}


def only_changes(case: Case, to: str | None = None) -> dict[str, Any]:
    """No change but the transition's columns on the record and what telling adds."""
    return {"name": "no_collateral_damage", "check": "only_changes", "allow": [
        {"table": case.sm.table, "op": "update", "where": {"id": f"${case.record.bind}.id"},
         "fields": case.sm.changes(to or case.to)}, *case.record.allows]}


def other_target(case: Case) -> str | None:
    """Another state the party could be told of, reachable from the start (a wrong
    transition's target)."""
    return next((s for s in case.sm.states if s != case.to and s in
                 case.record.say[case.column] and case.sm.allowed(case.start, s)
                 and case.sm.act_into(s) is not None), None)


def false_words(case: Case) -> str:
    """Words false after the case: the last state (in the machine's order) the party can be
    told of, other than the target and the start; else the target declined."""
    told = [s for s in case.sm.states if s in case.record.say[case.column]
            and s not in (case.to, case.start)]
    return case.words(told[-1]) if told else case.record.decline[case.column][case.to]
