"""``decision``: a transition a company policy guards; the seed draws whether the guard is
met, the right outcome is to act and tell, or to decline and tell.

One candidate per (policy guard whose fact the rules can set up and read, lookup): the seed
draws the outcome (``verdict.allowed``, a cycle) and the fact's value with it; the
reference finds the record, reads the fact and branches on it; alternatives find the record
the lookup's other ways; near misses invert the judgement or say nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate, fill
from ..task_rules import Fact, Guard
from .common import (
    Case,
    act,
    cases,
    changed,
    find,
    first_name,
    other_ways,
    setup,
    slug,
    tell,
    told,
    with_article,
)

DECIDED = "$verdict.allowed"


class Decision:
    name = "decision"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for case in cases(app):
            guard = case.sm.guard(case.to, "policy")
            if guard is None or case.record.tell is None \
                    or case.to not in case.record.decline.get(case.column, {}):
                continue  # (told in a final answer: one answer cannot take both branches)
            for fact_name in sorted(guard.require):
                fact = case.record.facts.get(fact_name)
                if fact is None:
                    continue
                for lookup in sorted(case.record.find):
                    name = slug(self.name, case.machine, case.to, "by", lookup)
                    yield Candidate(f"{app.app}/{name}", self.name,
                                    body(app, case, guard, fact, lookup))


def body(app: AppRules, case: Case, guard: Guard, fact: Fact, lookup: str) -> dict[str, Any]:
    finder = case.record.find[lookup]
    found = find(app, finder)
    read = [app.call(step) for step in fact.read]
    met = f"contains(`{json.dumps(fact.met)}`, saved('fact'))"

    def outcome(allowed: str, refused: str) -> list[dict[str, Any]]:
        """Acting and telling it done when ``allowed`` holds (one request where the app
        takes both in one), declining when ``refused``."""
        *reads, acting = act(app, case)
        done = [{**step, "when": allowed} for step in
                [*reads, *combined(acting, tell(app, case, case.words()))]]
        return [*done, {**tell(app, case, case.record.decline[case.column][case.to]),
                        "when": refused}]

    n = len(found) + len(read)
    policy = app.rules.policies[guard.policy].description if guard.policy else ""
    bind = case.record.bind
    return {
        "title": f"Answer a request to change {with_article(case.record.noun)}'s {case.column}, "
                 "within policy",
        "difficulty": "medium",
        "tags": ["factory", "decision", case.record.noun, case.column, "policy"],
        "decision": DECIDED[1:],
        "instruction": (f"{first_name(case)} asks us to set the {case.column} of "
                        f"{finder.says} to {case.to}. Our policy: {policy} Do it if the "
                        f"policy allows it, and tell them publicly on the {case.record.noun} "
                        "what you did. Change nothing else."),
        "setup": decided_setup(case, fact),
        "reference": {"given": finder.given, "steps": [*found, *read, *outcome(met, f"!{met}")]},
        "alternatives": [
            {"name": f"finds-it-another-way-{i}",
             "steps": [*find(app, finder, i), *read, *outcome(met, f"!{met}")]}
            for i in other_ways(app, case, finder)
            if len(finder.routes[i]) <= len(finder.routes[0])],  # within the efficiency bound
        "near_misses": [
            {"name": "inverts-the-policy", "replace": dict(enumerate(outcome(f"!{met}", met),
                                                                      n))},
            {"name": "says-nothing",
             "steps": [*found, *read, *({**step, "when": met} for step in act(app, case))]}],
        "verifier": [
            {**changed(case), "when": f"{DECIDED} == 1"},
            {"name": f"{case.column}_kept", "when": f"{DECIDED} == 0", "check": "field_unchanged",
             "harm": True, "policy": True, "table": case.sm.table,
             "where": {"id": f"${bind}.id"}, "fields": [case.column]},
            told(case),
            {"name": "no_collateral_damage", "check": "only_changes", "allow": [
                {"table": case.sm.table, "op": "update", "where": {"id": f"${bind}.id"},
                 "fields": case.sm.changes(case.to)}, *case.record.allows]}],
    }


def combined(first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    """The two steps as one where they call the same operation on the same record (their
    bodies merged), else both."""
    if first["call"] != second["call"] or not isinstance(first.get("json"), dict):
        return [first, second]
    return [{**first, "json": merged(first["json"], second.get("json") or {})}]


def merged(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        out[key] = merged(out[key], value) if isinstance(out.get(key), dict) and \
            isinstance(value, dict) else value
    return out


def decided_setup(case: Case, fact: Fact) -> list[dict[str, Any]]:
    """The record's setup, the party's fact drawn with the outcome right after the party."""
    ops = []
    for op in setup(case):
        ops.append(op)
        if op.get("bind") == case.record.party:
            ops += drawn(fact)
    return ops


def drawn(fact: Fact) -> list[dict[str, Any]]:
    """The ops drawing the outcome (each seed's turn: allowed or not) and the fact that makes
    it: one of the values meeting the guard, or one that does not."""
    return [{"bind": "verdict", "draw": {"allowed": {"cycle": [1, 0]}}},
            {"bind": "fact", "when": f"{DECIDED} == 1", "draw": {"value": {"choice": fact.met}}},
            {"bind": "fact", "when": f"{DECIDED} == 0",
             "draw": {"value": {"choice": fact.unmet}}},
            *fill(fact.setup, {"value": "$fact.value"})]
