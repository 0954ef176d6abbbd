"""``guarded-act``: a transition a company policy guards, on a record nobody is told of; the
seed draws whether the guard is met. The right outcome is to act, or to leave the record as
it is; either way a note on it says it was checked against the policy.

One candidate per (policy guard of a machine whose record has no words for its column, fact
of the guard the rules can set up and read): the seed draws the outcome
(``verdict.allowed``, a cycle) and the fact's value with it; the reference finds the record,
reads the fact and branches on whether it is there (a ``present`` requirement) or one of the
met values; near misses invert the judgement, or act and note nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate
from ..task_rules import Fact, Guard
from .common import Case, act, changed, find, other_ways, setup, slug, tell, with_article
from .decision import DECIDED, drawn
from .lookup_act import allowed, untold


def met(guard: Guard, name: str, fact: Fact) -> str:
    """The JMESPath condition that the read fact meets the guard."""
    if guard.require[name] == "present":
        return "saved('fact')"
    return f"contains(`{json.dumps(fact.met)}`, saved('fact'))"


def decided(case: Case, fact: Fact) -> list[dict[str, Any]]:
    """The record's setup (its other record in the start state too), the fact drawn with
    the outcome right after the record is made."""
    ops = []
    for op in setup(case):
        if op.get("bind") == case.record.decoy:
            op = {**op, case.column: case.start}
        ops.append(op)
        if op.get("bind") == case.record.bind:
            ops += drawn(fact)
    return ops


class GuardedAct:
    name = "guarded-act"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for case in untold(app):
            guard = case.sm.guard(case.to, "policy")
            if guard is None or guard.policy is None:
                continue
            for name in sorted(guard.require):
                fact = case.record.facts.get(name)
                if fact is None:
                    continue
                task = slug(self.name, case.record.noun, case.column, case.to, "without",
                            name).lower()
                yield Candidate(f"{app.app}/{task}", self.name,
                                self.body(app, case, guard, name, fact))

    def body(self, app: AppRules, case: Case, guard: Guard, name: str,
             fact: Fact) -> dict[str, Any]:
        assert guard.policy is not None
        policy = app.rules.policies[guard.policy].description
        finder = case.record.find[sorted(case.record.find)[0]]
        found = find(app, finder)
        read = [app.call(step) for step in fact.read]
        ok = met(guard, name, fact)
        noted = tell(app, case, f"Checked against our policy before any move to {case.to}: "
                                f"{policy}")

        def outcome(allowed_when: str) -> list[dict[str, Any]]:
            return [*({**step, "when": allowed_when} for step in act(app, case)), noted]

        bind, noun = case.record.bind, case.record.noun
        return {
            "title": f"Move {with_article(noun)} on within policy",
            "difficulty": "medium",
            "tags": ["factory", self.name, noun, case.column, "policy"],
            "decision": DECIDED[1:],
            "instruction": (f"Set the {case.column} of {finder.says} to {case.to} if our "
                            f"policy allows it ({policy}); if it does not, leave it as it is. "
                            f"Either way, log a note on the {noun} that you checked it "
                            "against the policy. Change nothing else."),
            "setup": decided(case, fact),
            "reference": {"given": finder.given,
                          "steps": [*found, *read, *outcome(ok)]},
            "alternatives": [
                {"name": f"finds-it-another-way-{i}",
                 "steps": [*find(app, finder, i), *read, *outcome(ok)]}
                for i in other_ways(app, case, finder)],
            "near_misses": [
                {"name": "inverts-the-policy",
                 "steps": [*found, *read, *outcome(f"!{ok}")]},
                {"name": "acts-and-notes-nothing",
                 "steps": [*found, *read, *({**step, "when": ok} for step in act(app, case))]}],
            "verifier": [
                {**changed(case), "when": f"{DECIDED} == 1"},
                {"name": f"{case.column}_kept", "when": f"{DECIDED} == 0",
                 "check": "field_unchanged", "harm": True, "policy": True,
                 "table": case.sm.table, "where": {"id": f"${bind}.id"},
                 "fields": [case.column]},
                {"name": f"note_on_the_{noun}", **case.record.told},
                allowed(case.sm, case.record, case.to)],
        }
