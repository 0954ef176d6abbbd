"""``lookup-act-tell``: find a record by what a person knows of it, move it through one
transition of a state machine, and tell its party what was done.

One candidate per (transition the party can be told of, lookup): the reference finds the
record the lookup's way, acts (the machine's ``act``) and tells (the record's ``tell``);
alternatives take the lookup's other routes, or tell first; near misses act on the party's
other record, make another transition, tell a false state, or say nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate
from .common import (
    Case,
    act,
    cases,
    changed,
    false_words,
    find,
    first_name,
    only_changes,
    other_target,
    other_ways,
    setup,
    slug,
    telling,
    told,
    with_article,
)


class LookupActTell:
    name = "lookup-act-tell"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for case in cases(app):
            if case.sm.guard(case.to, "policy") is not None:
                continue  # a decision's, where the policy is stated
            for lookup in sorted(case.record.find):
                name = slug(self.name, case.machine, case.to, "by", lookup)
                yield Candidate(f"{app.app}/{name}", self.name,
                                self.body(app, case, lookup))

    def body(self, app: AppRules, case: Case, lookup: str) -> dict[str, Any]:
        finder = case.record.find[lookup]
        found = find(app, finder)
        acting = act(app, case)
        said, answer = telling(app, case, case.words())
        steps = [*found, *acting, *said]
        n, t = len(found), len(found) + len(acting)  # the act's first step, the telling's
        alternatives: list[dict[str, Any]] = [
            {"name": f"finds-it-another-way-{i}", "steps": [*find(app, finder, i), *steps[n:]],
             **answer} for i in other_ways(app, case, finder)]
        false_said, false_answer = telling(app, case, false_words(case))
        near_misses: list[dict[str, Any]] = [
            {"name": "acts-on-the-partys-other-record",
             "before": {n: [app.call(s) for s in case.record.find_decoy]}},
            # Told in a step (a message the statement checker reads: harm when false), or in
            # the final answer (its check fails).
            {"name": "says-nothing", **({"drop": [t]} if said else {"answer": "Done."})},
            {"name": "tells-a-false-state", "harm": bool(said),
             **({"replace": {t: false_said[0]}} if said else false_answer)},
        ]
        if said:
            alternatives.append({"name": "tells-first", "steps": [*found, *said, *acting]})
        wrong = other_target(case)
        if wrong is not None:
            wrong_said, wrong_answer = telling(app, case, case.words(wrong))
            near_misses.append({"name": f"sets-{wrong}-instead", "steps": [
                *found, *act(app, case, wrong), *wrong_said], **wrong_answer})
        how = (f"tell {first_name(case)} publicly on the {case.record.noun} what you changed"
               if said else "say what you did in your final answer")
        return {
            "title": (f"Change {with_article(case.record.noun)}'s {case.column} and tell its "
                      f"{case.record.party}"),
            "difficulty": "easy",
            "tags": ["factory", self.name, case.record.noun, case.column],
            "instruction": (f"Set the {case.column} of {finder.says} to {case.to}, then {how}. "
                            "Change nothing else."),
            "setup": setup(case),
            "reference": {"given": finder.given, "steps": steps, **answer},
            "alternatives": alternatives,
            "near_misses": near_misses,
            "verifier": [changed(case), told(case), only_changes(case)],
        }
