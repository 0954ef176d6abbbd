"""State machines a compiled app's rules declare (its ``source/rules.yaml``'s
``state_machines``), as the API enforces them: a column's value is a state; entering a state
may require other columns (a guard the product itself enforces: the company's own rules are
policies, stated to the agent and checked by tasks, never refused here) and may set others
(an effect). Which transitions are allowed is the tasks' business too: products like HubSpot
let a record move to any stage of its pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workgym_core.errors import RuleViolation

# A guard's requirement of a column: set (not null nor empty), unset, or a value.
PRESENT, ABSENT = "present", "absent"


@dataclass(frozen=True)
class Guard:
    """Entering ``to`` (from ``from_`` only, when given) requires ``require``."""

    to: str
    require: Mapping[str, str]
    from_: str | None = None

    def unmet(self, row: Mapping[str, Any]) -> str | None:
        """The first column ``row`` (the record as it would be) does not satisfy, or None."""
        for column, wanted in self.require.items():
            value = row.get(column)
            empty = value is None or value == ""
            if (wanted == PRESENT and empty) or (wanted == ABSENT and not empty) or (
                    wanted not in (PRESENT, ABSENT) and str(value) != wanted):
                return column
        return None


@dataclass(frozen=True)
class Machine:
    """One state machine: ``column`` of ``table`` is its state."""

    name: str
    table: str
    column: str
    guards: tuple[Guard, ...] = ()
    # state -> the columns entering it sets
    effects: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def enter(self, row: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
        """``changes`` to ``row`` with the effects of the state they enter (if they change
        the state); a :class:`RuleViolation` naming the column when a guard is unmet."""
        target = changes.get(self.column)
        source = row.get(self.column)
        if target is None or target == source:
            return dict(changes)
        after = {**row, **changes}
        for guard in self.guards:
            if guard.to == target and guard.from_ in (None, source):
                column = guard.unmet(after)
                if column is not None:
                    raise RuleViolation(
                        f"{self.column} {target} requires {column} to be {guard.require[column]}",
                        code="state_guard", field=column, rule=self.name)
        return {**self.effects.get(str(target), {}), **changes}


def enter(machines: tuple[Machine, ...], row: Mapping[str, Any],
          changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` to ``row`` (``{}``: a new record) through each of ``machines`` (its
    table's): with the effects of the states they enter; a RuleViolation when a guard the
    product enforces is unmet."""
    result = dict(changes)
    for machine in machines:
        result = machine.enter(row, result)
    return result
