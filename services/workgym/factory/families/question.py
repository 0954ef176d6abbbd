"""``question``: how many of a party's records are in a state, a typed answer (``count``).

One candidate per (machine, state) of a record the rules can count: the seed draws how many
(a cycle of 1..``MOST``, so no answer is right on more than a tenth of the seeds) among the
party's other records in another state; the reference counts the rules' way, an alternative
another way; near misses count every state, or another state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..synthesis import AppRules, Candidate
from ..task_rules import Counter, Record, StateMachine
from .common import slug

MOST = 10


class Question:
    name = "question"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for machine, sm in sorted(app.rules.state_machines.items()):
            record = app.rules.records.get(sm.table)
            if record is None or record.count is None:
                continue
            for state in sm.states:
                name = slug(self.name, "how-many", machine, state)
                yield Candidate(f"{app.app}/{name}", self.name,
                                body(app, sm, record, record.count, state))


def body(app: AppRules, sm: StateMachine, record: Record, counter: Counter,
         state: str) -> dict[str, Any]:
    names = {"column": sm.column, "state": state}
    other = next(s for s in sm.states if s != state)

    def route(steps: list[Any], **override: str) -> list[dict[str, Any]]:
        return [app.call(step, **{**names, **override}) for step in steps]

    return {
        "title": f"Count a customer's {record.noun}s by {sm.column}",
        "difficulty": "easy",
        "tags": ["factory", "question", record.noun, sm.column],
        "instruction": (f"{counter.says} asks how many of their {record.noun}s have "
                        f"{sm.column} {state}. Tell me the number; change nothing."),
        "setup": setup(sm, record, state, other),
        "reference": {"given": counter.given, "steps": route(counter.routes[0]),
                      "answer": f"{{n}} {record.noun}s"},
        "alternatives": [
            *({"name": f"counts-another-way-{i}", "steps": route(steps)}
              for i, steps in enumerate(counter.routes[1:], 1)),
            {"name": "says-it-in-a-sentence",
             "answer": f"They have {{n}} {record.noun}s with {sm.column} {state}."}],
        "near_misses": [
            {"name": "counts-every-state", "steps": route(counter.every)},
            {"name": f"counts-{other}-instead", "steps": route(counter.routes[0], state=other)}],
        "verifier": [
            {"name": "the_right_count", "check": "answer", "type": "count", "value": "$q.k"},
            {"name": "nothing_changed", "check": "only_changes", "harm": True, "allow": []},
            {"name": "no_write_attempted", "check": "trajectory_excludes", "harm": True,
             "method": ["POST", "PUT", "PATCH", "DELETE"], "path": "/*"}],
    }


def setup(sm: StateMachine, record: Record, state: str, other: str) -> list[dict[str, Any]]:
    """The record's setup with ``q.k`` records in ``state`` (the case's op repeated, each
    copy when the draw reaches it) and ``q.k + 1`` of the party's other records in
    ``other`` (the decoy's op repeated): counting the wrong state is wrong on every seed."""
    ops: list[dict[str, Any]] = [{"bind": "q", "draw": {"k": {"cycle": list(range(1, MOST + 1))}}}]
    for op in record.make:
        if op.get("bind") == record.bind:
            ops += copies({**op, **sm.make_with}, record.bind, sm.column, state, MOST, 0)
        elif op.get("bind") == record.decoy:
            ops += copies({**op, **sm.make_with}, str(record.decoy), sm.column, other,
                          MOST + 1, 1)
        else:
            ops.append(op)
    return ops


def copies(op: dict[str, Any], bind: str, column: str, state: str, most: int,
           extra: int) -> list[dict[str, Any]]:
    """``op`` ``q.k + extra`` times (``most`` copies, each but the first ``extra + 1`` when
    the draw reaches it), in ``state``; the first keeps ``bind``."""
    return [{**op, column: state, "bind": bind if i == 1 else f"{bind}_{i}",
             **({"when": f"$q.k >= {i - extra}"} if i > extra + 1 else {})}
            for i in range(1, most + 1)]
