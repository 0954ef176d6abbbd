"""``lookup-act``: find a record by what a person knows of it and move it through one
transition of a state machine that nobody is told of (the record's rules give no words for
the target: a CRM's deal stage, a contact's lifecycle stage, an invoice paid out of band).

One candidate per (transition, lookup): the reference finds the record the lookup's way and
acts (the machine's ``act``); alternatives take the lookup's other routes; near misses act on
the party's other record (``find_decoy``), make another transition, or change the other
record as well as the right one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate
from ..task_rules import Record, StateMachine
from .common import Case, act, cases, changed, find, other_ways, setup, slug, with_article
from .pages import browser_act


def untold(app: AppRules) -> Iterator[Case]:
    """Every transition of a machine with an ``act`` that the record's rules give no words
    for (nobody is told of it), from the first state (in the machine's order) that goes
    there."""
    return cases(app, told=False)


def another(case: Case) -> str | None:
    """A state other than the target the start also goes to (a wrong transition)."""
    return next((s for s in case.sm.states if s != case.to and case.sm.allowed(case.start, s)),
                None)


def allowed(sm: StateMachine, record: Record, to: str) -> dict[str, Any]:
    """No change but the transition's columns on the record (and what the record's rules
    allow beside: a modification time)."""
    return allowed_columns(sm.table, record, sm.changes(to))


def allowed_columns(table: str, record: Record, columns: list[str]) -> dict[str, Any]:
    """No change but ``columns`` of the record (and what the record's rules allow beside)."""
    return {"name": "no_collateral_damage", "check": "only_changes", "allow": [
        {"table": table, "op": "update", "where": {"id": f"${record.bind}.id"},
         "fields": columns}, *record.allows]}


def untouched(case: Case) -> list[dict[str, Any]]:
    """The party's other record keeps its state (when the rules make one)."""
    if case.record.decoy is None:
        return []
    return [{"name": f"other_{case.record.noun}_untouched", "check": "field_unchanged",
             "table": case.sm.table, "where": {"id": f"${case.record.decoy}.id"},
             "fields": [case.column]}]


class LookupAct:
    name = "lookup-act"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        found = list(untold(app))
        shared = Counter((case.sm.table, case.column, case.to) for case in found)
        for case in found:
            # Named by the record's column; by the machine where two move it to one state.
            what = ((case.machine,) if shared[(case.sm.table, case.column, case.to)] > 1
                    else (case.record.noun, case.column))
            for lookup in sorted(case.record.find):
                name = slug(self.name, *what, case.to, "by", lookup).lower()
                yield Candidate(f"{app.app}/{name}", self.name, self.body(app, case, lookup))

    def body(self, app: AppRules, case: Case, lookup: str) -> dict[str, Any]:
        finder = case.record.find[lookup]
        found = find(app, finder)
        acting = act(app, case)
        n = len(found)
        decoy = [app.call(s) for s in case.record.find_decoy]
        alternatives = [
            {"name": f"finds-it-another-way-{i}", "steps": [*find(app, finder, i), *acting]}
            for i in other_ways(app, case, finder)]
        near_misses: list[dict[str, Any]] = [
            {"name": "acts-on-the-other-record", "before": {n: decoy}},
            {"name": "changes-the-other-record-too", "append": [*decoy, *acting]}]
        wrong = another(case)
        if wrong is not None:
            near_misses.append({"name": f"sets-{wrong}-instead".lower(),
                                "steps": [*found, *act(app, case, wrong)]})
        noun = case.record.noun
        browser = browser_act(app.app, case, finder)
        return {
            "title": f"Find {with_article(noun)} and change its {case.column}",
            "difficulty": "easy",
            "tags": ["factory", self.name, noun, case.column],
            "instruction": (f"Set the {case.column} of the {noun} {finder.says} to "
                            f"{case.to}. Change nothing else."),
            "setup": [{**op, case.column: case.start} if op.get("bind") == case.record.decoy
                      else op for op in setup(case)],
            "reference": {"given": finder.given, "steps": [*found, *acting]},
            **({"browser": browser} if browser else {}),
            "alternatives": alternatives,
            "near_misses": near_misses,
            "verifier": [changed(case), *untouched(case), allowed(case.sm, case.record, case.to)],
        }
