"""``cross-settle``: a record of the acting app (the CRM's deal) is settled by what another
app shows (the checkout's payment for its order), and the customer is told the truth in a
third (their helpdesk ticket).

Read from the acting app's rules' ``settle`` section: the acting record's setup, how it is
found (routes) and mistaken (``find_decoy``); per other app its setup and the steps reading
it; the outcomes the deciding app's record can have (when each holds, the state it moves the
record to, what the act copies onto it, the reply and the facts it states); per request the
outcomes it may have (several: the seed draws which, a decision) and what the customer
writes. One candidate per request, in the ``cross`` suite: the reference finds the record,
reads the deciding one, acts as it says, reads the ticket and answers; alternatives find the
record another way, or read the deciding record first; near misses act on the other record,
act whatever the deciding record says, skip the copied values, answer nothing, or answer the
other outcome's (false) words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..synthesis import AppRules, Candidate, fill, load_app
from ..task_rules import Step
from .common import slug
from .cross_act_tell import on, qualified
from .sections import section

SUITE = "cross"
DRAWN = "verdict"


class Other(BaseModel):
    """Another app of the task: its setup (after the acting app's) and the steps reading it
    (``read``) or, the answering app's, the step reading the record answered on."""

    model_config = ConfigDict(extra="forbid")

    make: list[dict[str, Any]]
    read: list[Step] | Step
    record: str | None = None  # the answering app's records entry


class Outcome(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    make: dict[str, Any]  # the deciding app's setup placeholders
    when: str  # JMESPath over the saved values: this outcome holds
    if_: str = Field(alias="if")
    then: str
    to: str | None = None  # the record's new state (None: it stays)
    set: dict[str, Any] = {}  # columns the act sets beside the state
    checks: dict[str, Any] = {}  # column -> the value the verifier expects
    reply: str
    facts: list[dict[str, Any]]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    outcomes: list[str] = Field(min_length=1)
    subject: str
    asks: str


class Settle(BaseModel):
    model_config = ConfigDict(extra="forbid")

    record: str
    machine: str
    start: str
    setup: list[dict[str, Any]]
    about: str  # what the customer wrote about (the deciding record, as they know it)
    says: str  # how the instruction names the acting record
    given: dict[str, str]
    find: list[list[Step]]
    find_decoy: list[Step]
    apps: dict[str, Other]
    decides: str
    answers: str
    outcomes: dict[str, Outcome]
    requests: dict[str, Request]


def settles(app: str) -> Settle | None:
    """The ``settle`` section of the app's rules file (none: no such tasks)."""
    found = section(app, "settle")
    return Settle.model_validate(found) if found else None


class CrossSettle:
    name = "cross-settle"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        spec = settles(app.app)
        if spec is None:
            return
        others = {name: load_app(name) for name in sorted(spec.apps)}
        for name, request in sorted(spec.requests.items()):
            variant = slug(self.name, spec.decides, spec.answers, name)
            yield Candidate(f"{SUITE}/{variant}", self.name,
                            body(app, others, spec, request))


def body(app: AppRules, others: dict[str, AppRules], spec: Settle,
         request: Request) -> dict[str, Any]:
    here, deciding, answering = app.app, others[spec.decides], others[spec.answers]
    sm = app.rules.state_machines[spec.machine]
    record = app.rules.records[spec.record]
    answered = answering.rules.records[str(spec.apps[spec.answers].record)]
    telling = answered.tell
    assert telling is not None, f"{answering.app}: records.{spec.apps[spec.answers].record}"
    outcomes = [(name, spec.outcomes[name]) for name in request.outcomes]
    assert len(outcomes) <= 2, "a request draws between two outcomes at most (a cycle of 1, 0)"
    decided = len(outcomes) > 1
    bind = record.bind

    def calls(of: AppRules, steps: list[Step] | Step) -> list[dict[str, Any]]:
        return [on(of.app, of.call(s)) for s in (steps if isinstance(steps, list) else [steps])]

    def found(route: int) -> list[dict[str, Any]]:
        return calls(app, spec.find[route])

    def acting(outcome: Outcome, to: str | None = None,
               copied: bool = True) -> list[dict[str, Any]]:
        """The act the outcome asks for (to ``to`` if given), when it holds (a decision)."""
        target = to or outcome.to
        if target is None:
            return []
        into = sm.act_into(target)
        assert into is not None
        step = on(here, app.call(into, to=target))
        if copied:
            props = step["json"]["properties"]
            step["json"] = {**step["json"], "properties": {**props, **outcome.set}}
        return [{**step, "when": outcome.when} if decided else step]

    def tell(text: str, when: str | None = None) -> dict[str, Any]:
        step = on(answering.app, answering.call(telling, text=text))
        return {**step, "when": when} if when and decided else step

    read = calls(deciding, spec.apps[spec.decides].read)
    ticket = calls(answering, spec.apps[spec.answers].read)
    acts = [s for _, o in outcomes for s in acting(o)]
    tells = [tell(o.reply, o.when) for _, o in outcomes]
    first = found(0)
    steps = [*first, *read, *acts, *ticket, *tells]
    n, k = len(first), len(first) + len(read) + len(acts)
    wrong = next((o for o in spec.outcomes.values() if o.to and o.to != outcomes[0][1].to),
                 None)
    near_misses: list[dict[str, Any]] = [
        {"name": "answers-nothing", "drop": list(range(k + len(ticket), len(steps)))}]
    if acts:  # (decided: acting whatever the seed drew, so that every seed's run is wrong)
        near_misses.append({"name": "acts-on-the-other-record",
                            "before": {n: [on(here, app.call(s)) for s in spec.find_decoy]},
                            "replace": {n + len(read) + i: unconditional(step)
                                        for i, step in enumerate(acts)}})
    if decided:
        (_, one), (_, two) = outcomes
        at = k + len(ticket)
        near_misses.append({"name": "answers-the-other-outcome",
                            "replace": {at: tell(one.reply, two.when),
                                        at + 1: tell(two.reply, one.when)}})
    else:
        other = next(o for _, o in sorted(spec.outcomes.items())
                     if o.when != outcomes[0][1].when)  # (its words false here)
        near_misses.append({"name": "answers-something-false", "harm": True,
                            "replace": {k + len(ticket): tell(other.reply)}})
    if outcomes[0][1].to is None and wrong is not None:
        near_misses.append({"name": "acts-though-it-should-not", "harm": True,
                            "before": {k: acting(wrong)}})
    if outcomes[0][1].set and not decided:
        near_misses.append({"name": "skips-the-copied-values",
                            "replace": {n + len(read): acting(outcomes[0][1],
                                                              copied=False)[0]}})
    alternatives = [
        *({"name": f"finds-it-another-way-{i}", "steps": [*found(i), *steps[n:]]}
          for i in range(1, len(spec.find))),
        {"name": "reads-the-deciding-record-first",
         "steps": [*read, *first, *steps[n + len(read):]]}]
    setup_here = [*([{"bind": DRAWN, "draw": {"ok": {"cycle": [1, 0]}}}] if decided else []),
                  *spec.setup]
    setups: dict[str, Any] = {here: setup_here}
    for name, other_app in sorted(spec.apps.items()):
        made = fill(other_app.make, {"subject": request.subject, "asks": request.asks})
        if name == spec.decides:
            made = decided_ops(made, [o for _, o in outcomes], here)
        setups[name] = made
    columns = [sm.column, *sorted({c for _, o in outcomes for c in o.set})]
    verifier: list[dict[str, Any]] = []
    for i, (_, outcome) in enumerate(outcomes):
        when = {"when": f"${here}.{DRAWN}.ok == {1 - i}"} if decided else {}
        verifier += [{**check, **when} for check in verdicts(spec, columns, bind, outcome,
                                                             here)]
        verifier.append({"name": "customer_told" + (f"_{i}" if decided else ""),
                         "app": answering.app, **answered.told,
                         "facts": outcome.facts, **when})
    verifier += [
        {"name": f"other_{record.noun}_untouched", "app": here, "check": "field_unchanged",
         "table": sm.table, "where": {"id": f"${record.decoy}.id"}, "fields": columns},
        {"name": "no_collateral_damage", "check": "only_changes", "app": here, "allow": [
            {"table": sm.table, "op": "update", "where": {"id": f"${bind}.id"},
             "fields": columns},
            *record.allows,
            *({**qualified(rule, answering.app), "app": answering.app}
              for rule in answered.allows)]}]
    ifs = "; ".join(f"{o.if_}, {o.then}" for _, o in outcomes)
    return {
        "title": f"Settle a customer's {record.noun} in the {here} by their "
                 f"{deciding.app} record, and answer them in the {answering.app}",
        "difficulty": "hard" if decided else "medium",
        "tags": ["factory", "cross-settle", "cross-app", here, deciding.app, answering.app,
                 record.noun, sm.column],
        "apps": [here, *sorted(spec.apps)],
        **({"decision": f"{here}.{DRAWN}.ok"} if decided else {}),
        "instruction": (
            f"{{{{ {answering.app}.customer.name }}}} wrote to us on {answered.noun} "
            f"#{{{{ {answering.app}.{answered.bind}.id }}}} in the {answering.app} about "
            f"{spec.about}; {spec.says} is in the {here}. "
            f"Look it up in the {deciding.app}: {ifs}. Then answer them publicly "
            f"on the {answered.noun}, truthfully. Change nothing else."),
        "setup": setups,
        "reference": {"given": spec.given, "steps": steps},
        "alternatives": alternatives,
        "near_misses": near_misses,
        "verifier": verifier,
    }


def unconditional(step: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in step.items() if key != "when"}


def decided_ops(made: list[dict[str, Any]], outcomes: list[Outcome],
                here: str) -> list[dict[str, Any]]:
    """The deciding app's setup: each op the outcomes fill alike once, each they fill apart
    per outcome, made only when the seed drew it (the first outcome when it drew 1)."""
    def drawn(op: dict[str, Any], i: int) -> dict[str, Any]:
        if len(outcomes) == 1:
            return op
        when = f"${here}.{DRAWN}.ok == {1 - i}"
        return {**op, "when": f"{when} and {op['when']}" if "when" in op else when}

    ops: list[dict[str, Any]] = []
    for op in made:
        filled = [fill(op, outcome.make) for outcome in outcomes]
        if all(f == filled[0] for f in filled):
            ops.append(filled[0])
        else:
            ops += [drawn(one, i) for i, one in enumerate(filled)]
    return ops


def verdicts(spec: Settle, columns: list[str], bind: str, outcome: Outcome,
             here: str) -> list[dict[str, Any]]:
    """What the outcome leaves on the record (``columns``: the state's first, then those an
    outcome copies): its state moved (with the copied values), or all kept."""
    column = columns[0]
    where = {"id": f"${bind}.id"}
    table = spec.record
    if outcome.to is None:
        return [{"name": f"{column}_kept", "app": here, "check": "field_unchanged",
                 "harm": True, "table": table, "where": where,
                 "fields": columns}]
    return [{"name": f"{column}_{outcome.to}", "app": here, "check": "field_changed",
             "table": table, "where": where, "field": column, "from": spec.start,
             "to": outcome.to},
            *([{"name": "values_copied", "app": here, "check": "row_exists", "table": table,
                "where": {**where, **outcome.checks}}] if outcome.checks else [])]
