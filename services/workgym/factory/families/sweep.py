"""``sweep``: every record of a party in one state goes through a transition, none other.

One candidate per transition the party's records can make (the machine's ``start`` ->
target of each case): the party has ``SWEPT`` records in the start state and another in
another state; the reference changes them the rules' way, alternatives other ways; near
misses change every record of the party, or make another transition."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate, fill
from ..task_rules import Step, Sweep
from .common import Case, cases, changed, other_target, slug

SWEPT = 3


class SweepFamily:
    name = "sweep"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for case in cases(app):
            sweep, decoy = case.record.sweep, case.record.decoy
            if sweep is None or decoy is None or case.record.party_column is None \
                    or case.sm.guard(case.to, "policy") is not None:
                continue
            name = slug(self.name, case.machine, case.start, "to", case.to)
            yield Candidate(f"{app.app}/{name}", self.name, body(app, case, sweep, decoy))


def body(app: AppRules, case: Case, sweep: Sweep, decoy: str) -> dict[str, Any]:
    names = {"column": case.column, "start": case.start, "to": case.to}

    def route(steps: list[Step], **override: str) -> list[dict[str, Any]]:
        return [app.call(step, **{**names, **override}) for step in steps]

    record, bind = case.record, case.record.bind
    binds = [bind, *(f"{bind}_{i}" for i in range(2, SWEPT + 1))]
    kept = next(s for s in case.sm.states if s not in (case.start, case.to))
    wrong = other_target(case)
    party = f"${record.party}.id"
    return {
        "title": f"Change the {case.column} of every one of a customer's {record.noun}s in "
                 "one state",
        "difficulty": "medium",
        "tags": ["factory", "sweep", record.noun, case.column, "bulk"],
        "instruction": (f"Set the {case.column} of every {record.noun} of {sweep.says} whose "
                        f"{case.column} is {case.start} to {case.to}. Change nothing else."),
        "setup": setup(case, binds, decoy, kept),
        "reference": {"given": sweep.given, "steps": route(sweep.routes[0])},
        "alternatives": [{"name": f"changes-them-another-way-{i}", "steps": route(steps)}
                         for i, steps in enumerate(sweep.routes[1:], 1)],
        "near_misses": [
            {"name": "changes-every-state", "steps": route(sweep.every)},
            *([{"name": f"sets-{wrong}-instead", "steps": route(sweep.routes[0], to=wrong)}]
              if wrong else [])],
        "verifier": [
            {**changed(case), "name": f"first_{case.column}_{case.to}"},
            {"name": f"none_left_{case.start}", "check": "row_absent", "table": case.sm.table,
             "where": {record.party_column: party, case.column: case.start}},
            {"name": "other_kept", "check": "field_unchanged", "table": case.sm.table,
             "where": {"id": f"${decoy}.id"}, "fields": [case.column]},
            {"name": "no_collateral_damage", "check": "only_changes", "allow": [
                *({"table": case.sm.table, "op": "update", "where": {"id": f"${b}.id"},
                   "fields": case.sm.changes(case.to)} for b in binds),
                *(rule for b in binds for rule in fill(record.traces, {"bind": b}))]}],
    }


def setup(case: Case, binds: list[str], decoy: str, kept: str) -> list[dict[str, Any]]:
    """The record's setup, its record made ``SWEPT`` times in the start state (each bound),
    the decoy in ``kept``."""
    ops: list[dict[str, Any]] = []
    for op in case.record.make:
        if op.get("bind") == case.record.bind:
            ops += [{**op, **case.sm.make_with, case.column: case.start, "bind": b}
                    for b in binds]
        elif op.get("bind") == decoy:
            ops.append({**op, **case.sm.make_with, case.column: kept})
        else:
            ops.append(op)
    return ops
