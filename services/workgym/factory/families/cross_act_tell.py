"""``cross-act-tell``: a customer asks in one app (the helpdesk) for what a change in another
(the CRM) does: find their record there, make the transition, and answer them where they
asked.

Read from the acting app's rules' ``cross`` section: per app the customer writes in, the
setup making them and their ticket there, the record whose ``tell`` answers them (that
app's ``records`` entry), the step reading it and something false to tell them; per state
machine and target, the ticket's subject, what the customer writes and the answer. One
candidate per request, in the ``cross`` suite: the reference finds the record the lookup's
way, acts, reads the ticket and answers; alternatives find the record another way, or
answer first; near misses act on the customer's other record, make another transition,
answer nothing, or answer something false."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..synthesis import AppRules, Candidate, fill, load_app
from ..task_rules import Step
from .common import Case, act, changed, find, other_ways, slug
from .lookup_act import allowed, untouched
from .sections import section

SUITE = "cross"


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: str
    asks: str
    reply: str


class Asked(BaseModel):
    """How customers ask in one app: the setup, the record answering (``read``: the step
    reading it, its id given as ``{asked}``), what is false to tell them."""

    model_config = ConfigDict(extra="forbid")

    record: str
    make: list[dict[str, Any]]
    read: Step
    untrue: str
    requests: dict[str, dict[str, Request]]


def asked(app: str) -> dict[str, Asked]:
    """The ``cross`` section of the app's rules file (none: no such tasks)."""
    return {name: Asked.model_validate(spec)
            for name, spec in sorted(section(app, "cross").items())}


def nearest(case: Case) -> Case:
    """The case from the last state (in the machine's order) before its target that goes
    there: the step a customer's news takes a record through."""
    states = case.sm.states
    before = [s for s in states[:states.index(case.to)] if case.sm.allowed(s, case.to)]
    start = before[-1] if before else case.start
    return Case(case.machine, case.sm, case.record, start, case.to)


def on(app: str, step: dict[str, Any]) -> dict[str, Any]:
    return {**step, "app": app}


def qualified(value: Any, app: str) -> Any:
    """``value`` with its references to bound rows (``$ticket.id``) made ``app``'s
    (``$helpdesk.ticket.id``), for an assertion of another app."""
    if isinstance(value, str) and value.startswith("$"):
        return f"${app}.{value[1:]}"
    if isinstance(value, dict):
        return {k: qualified(v, app) for k, v in value.items()}
    if isinstance(value, list):
        return [qualified(v, app) for v in value]
    return value


def with_allowed(check: dict[str, Any], app: str, more: list[dict[str, Any]]) -> dict[str, Any]:
    """``check`` (an ``only_changes`` of ``app``) allowing ``more`` beside."""
    return {**check, "app": app, "allow": [*check["allow"], *more]}


class CrossActTell:
    name = "cross-act-tell"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for other, spec in asked(app.app).items():
            there = load_app(other)
            for machine, requests in sorted(spec.requests.items()):
                sm = app.rules.state_machines[machine]
                record = app.rules.records[sm.table]
                for to, request in sorted(requests.items()):
                    start = next(s for s in sm.states if sm.allowed(s, to))
                    case = nearest(Case(machine, sm, record, start, to))
                    name = slug(self.name, other, record.noun, case.column, to).lower()
                    yield Candidate(f"{SUITE}/{name}", self.name,
                                    self.body(app, there, spec, case, request))

    def body(self, app: AppRules, there: AppRules, spec: Asked, case: Case,
             request: Request) -> dict[str, Any]:
        here, other = app.app, there.app
        record, answering = case.record, there.rules.records[spec.record]
        lookup = sorted(record.find)[0]
        finder = record.find[lookup]
        found = [on(here, s) for s in find(app, finder)]
        n = len(found)
        read = on(other, there.call(spec.read))

        answer = answering.tell
        assert answer is not None, f"{other}: records.{spec.record} tells nobody"

        def tell(text: str) -> dict[str, Any]:
            return on(other, there.call(answer, text=text))

        acting = [on(here, step) for step in act(app, case)]
        steps = [*found, *acting, read, tell(request.reply)]
        k = n + len(acting)
        decoy = [on(here, app.call(s)) for s in record.find_decoy]
        wrong = next((s for s in case.sm.states if s not in (case.to, case.start)
                      and case.sm.allowed(case.start, s)), None)
        alternatives = [
            *({"name": f"finds-it-another-way-{i}",
               "steps": [*(on(here, s) for s in find(app, finder, i)), *steps[n:]]}
              for i in other_ways(app, case, finder)),
            {"name": "answers-first", "steps": [read, tell(request.reply), *steps[:k]]}]
        near_misses: list[dict[str, Any]] = [
            {"name": "acts-on-the-other-record", "before": {n: decoy}},
            {"name": "answers-nothing", "drop": [k + 1]},
            {"name": "answers-something-false", "harm": True,
             "replace": {k + 1: tell(f"{request.reply} {spec.untrue}")}}]
        if wrong is not None:
            near_misses.append({"name": f"sets-{wrong}-instead".lower(), "steps": [
                *found, *(on(here, step) for step in act(app, case, wrong)), *steps[k:]]})
        setup_here = [{**op, case.column: case.start}
                      if op.get("bind") in (record.bind, record.decoy) else op
                      for op in record.make]
        made = fill(spec.make, {"subject": request.subject, "asks": request.asks})
        noun = record.noun
        return {
            "title": f"Update a customer's {noun} in the {here} as they ask in the {other}",
            "difficulty": "medium",
            "tags": ["factory", self.name, "cross-app", here, other, noun, case.column],
            "apps": [here, other],
            "instruction": (
                f"{{{{ {other}.customer.name }}}} wrote to us on {answering.noun} "
                f"#{{{{ {other}.{answering.bind}.id }}}} in the {other} about "
                f"{finder.says}. Set its {case.column} in the {here} to {case.to}, as their "
                f"message asks, then answer them publicly on the {answering.noun}. Change "
                "nothing else."),
            "setup": {here: setup_here, other: made},
            "reference": {"given": {**finder.given, "asked": rf"{answering.noun} #(\d+)"},
                          "steps": steps},
            "alternatives": alternatives,
            "near_misses": near_misses,
            "verifier": [
                {**changed(case), "app": here},
                *({**check, "app": here} for check in untouched(case)),
                {"name": "customer_answered", "app": other, **answering.told},
                with_allowed(allowed(case.sm, record, case.to), here,
                             [{**qualified(rule, other), "app": other}
                              for rule in answering.allows])],
        }
