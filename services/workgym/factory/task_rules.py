"""A spec directory's rules file (``replicas/<app>/source/rules.yaml``): its task-facing
sections, as ``workgym factory tasks`` reads them (the same for a compiled app and a
hand-written one).

``state_machines``, ``policies`` and ``lookups`` are the shared schema; ``records`` says, per
table, how a task makes, finds and talks about one of its records (the engine's part of it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from workgym_core.errors import ConfigError

RULES = "rules.yaml"


class _Rules(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Call(_Rules):
    """An operation of the app and its arguments: ``path``/``params``/``json`` values are
    templates of the task's reference (``{{ ticket.id }}``; ``<<to>>``: the target state)."""

    operation: str
    path: dict[str, str] = {}
    params: dict[str, Any] = {}
    json_: Any = Field(None, alias="json")
    expect: int | None = None  # a write's status (default 200)


class Step(Call):
    """A reference step through an operation (``save``/``maybe``: JMESPath over its answer)."""

    save: dict[str, str] = {}
    maybe: dict[str, str] = {}


class Act(Call):
    """The operation making a transition, after the reads it needs first (``before``: Jira's
    transition id, read from GET .../transitions)."""

    before: list[Step] = []


class Guard(_Rules):
    """A precondition of the transitions into ``to`` (from ``from`` only, if given):
    ``require`` names a fact of the record (``records.<table>.facts``; a column, for the
    compiler) and the values it must take; ``api``: the app refuses, ``policy``: the
    company's rule, stated to the agent and checked by verifiers."""

    to: str
    from_: str | None = Field(None, alias="from")
    require: dict[str, Any]
    enforced: Literal["api", "policy"]
    policy: str | None = Field(None, description="the policy (``policies``) a policy guard is")


class Effect(_Rules):
    to: str
    set: dict[str, Any]


class StateMachine(_Rules):
    table: str
    column: str
    scope: str | None = None
    states: list[str]
    transitions: dict[str, list[str]]  # from -> allowed ("*": any)
    guards: list[Guard] = []
    effects: list[Effect] = []
    act: Act | None = None
    acts: dict[str, Act] = {}  # the act into one state, where it is not ``act``
    # What puts a task's record under this machine: values its ``make`` op takes (the
    # project or issue type whose workflow it is).
    make_with: dict[str, Any] = {}

    def act_into(self, to: str) -> Act | None:
        """The act moving a record into ``to``."""
        return self.acts.get(to, self.act)

    def allowed(self, start: str, to: str) -> bool:
        """Whether the machine goes from ``start`` to ``to`` (not staying put)."""
        if start == to:
            return False
        targets = self.transitions.get(start, self.transitions.get("*", []))
        return "*" in targets or to in targets

    def guard(self, to: str, enforced: str) -> Guard | None:
        return next((g for g in self.guards if g.to == to and g.enforced == enforced), None)

    def changes(self, to: str) -> list[str]:
        """The columns a transition into ``to`` changes: the machine's, and its effects'."""
        return [self.column, *sorted({c for e in self.effects if e.to == to for c in e.set})]


class Policy(_Rules):
    description: str
    params: dict[str, Any] = {}
    table: str | None = None
    rule: str | None = None  # a compiled app's states it (its README says it)


class Finder(_Rules):
    """How a person finds a record by one lookup attribute: the instruction's words for it
    (``says``, rendered from the setup's rows), what a script reads off the instruction
    (``given``: regexes) and the routes that find it (each saves the record as its ``bind``;
    the first is the reference's, the others alternatives)."""

    says: str
    given: dict[str, str]
    routes: list[list[Step]]


class Counter(_Rules):
    """How a person asks how many of a party's records are in a state: the instruction's
    words for the party (``says``), what a script reads off it (``given``), the routes
    counting them (``<<column>>``, ``<<state>>``; each saves ``n``: the first is the
    reference's, the others alternatives) and ``every``: counting all the party's records
    (a near miss)."""

    says: str
    given: dict[str, str]
    routes: list[list[Step]]
    every: list[Step]


class Sweep(_Rules):
    """How a person has every record of a party in a state changed: the instruction's words
    for the party (``says``), what a script reads off it (``given``), the routes doing it
    (``<<column>>``, ``<<start>>``, ``<<to>>``; the first is the reference's, the others
    alternatives) and ``every``: the route changing all the party's records (a near miss)."""

    says: str
    given: dict[str, str]
    routes: list[list[Step]]
    every: list[Step]


class Fact(_Rules):
    """A fact a guard's ``require`` names: the setup ops giving it a drawn value
    (``<<value>>``), the steps reading it (saving ``fact``) and the values it takes when the
    guard is met and when not (``met``, ``unmet``)."""

    setup: list[dict[str, Any]]
    read: list[Step]
    met: list[Any]
    unmet: list[Any]


class Record(_Rules):
    """How a task makes, finds and talks about one record of a table.

    ``make``: setup ops binding the record as ``bind`` (and its party, ``party``; the family
    sets the machine's column in that op); ``find_decoy``: the steps finding the party's
    other record instead (saved as ``bind``); ``tell``: the step telling the party
    (``<<text>>``) and ``told``, the assertion judging it; ``allows``: what telling
    changes; ``say``: per column and state, words telling the party it is done; ``noun``:
    what the instruction calls the record."""

    noun: str
    bind: str = "row"  # what the setup binds the record as (the app's allowances name it)
    party: str
    party_name: str = "name"  # the party's column the instruction names them by
    make: list[dict[str, Any]]
    find_decoy: list[Step] = []
    find: dict[str, Finder]
    tell: Step | None = None  # None: the party is told in the final answer
    told: dict[str, Any]
    claims: dict[str, dict[str, str]] = {}  # column -> {state: its claim} (``<<claim>>``)
    allows: list[dict[str, Any]] = []  # what telling changes (``only_changes`` rules)
    say: dict[str, dict[str, str]] = {}  # column -> {state: words telling it is done}
    decline: dict[str, dict[str, str]] = {}  # column -> {state: words telling it is not}
    decoy: str | None = None  # the bind of the party's other record in ``make``
    count: Counter | None = None
    sweep: Sweep | None = None
    party_column: str | None = None  # the record's column naming its party
    # What the app records of any change to a record bound as ``<<bind>>`` (``only_changes``
    # rules), for records the app's allowances do not name.
    traces: list[dict[str, Any]] = []
    facts: dict[str, Fact] = {}


class TaskRules(_Rules):
    """The task-facing sections of a rules file."""

    model_config = ConfigDict(extra="ignore")  # the compile's sections are the compiler's

    state_machines: dict[str, StateMachine] = {}
    policies: dict[str, Policy] = {}
    lookups: dict[str, list[str]] = {}
    records: dict[str, Record] = {}


def load_task_rules(spec_dir: Path) -> TaskRules:
    """The task-facing rules of the spec directory ``spec_dir``; ConfigError naming the
    file and field when they are not valid."""
    path = spec_dir / RULES
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    from pydantic import ValidationError

    try:
        return TaskRules.model_validate(raw or {})
    except ValidationError as exc:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{path}: {wrong}") from exc
