"""The assertion library: one small class per ``check``, their registry, and the Verifier.

Each assertion is a pydantic config (unknown keys are errors) whose ``evaluate(ctx)`` returns
whether it passed and a short sentence saying what it found. String values may be variable
references (:mod:`workgym_reward.refs`), resolved by :meth:`Assertion.resolved` before
evaluation. Table and column names are checked against the databases when evaluating: an
unknown one raises a ConfigError naming it, it never just fails the assertion.
"""

from __future__ import annotations

import re
import sqlite3
from abc import abstractmethod
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Self, get_args

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, RootModel, model_validator

from workgym_core import paths
from workgym_core.refs import Vars, resolve
from workgym_core.trajectory import TrajectoryStep

from .diff import SCHEMAS, Diff, Row, Side, States, TableDiff
from .errors import ConfigError
from .filters import Filter, check_columns, check_filter, compile_filter, describe_filter, show
from .schema import ident

Where = Annotated[Filter, AfterValidator(check_filter)]


@dataclass(frozen=True, slots=True)
class Context:
    """What assertions look at: both states (attached), their diff, the trajectory, the answer."""

    states: States
    diff: Diff
    trajectory: Sequence[TrajectoryStep]
    answer: str | None

    def check_columns(self, side: Side, table: str, names: Iterable[str]) -> tuple[str, ...]:
        """The columns of ``table`` in the ``side`` state, after checking it has ``names``."""
        tables = self.states.tables[side]
        if table not in tables:
            raise ConfigError(
                f"unknown table {table!r} in the {side} state (tables: {', '.join(tables)})"
            )
        check_columns(table, tables[table], names)
        return tables[table]

    def changes(self, table: str) -> TableDiff:
        """The diff of ``table``, empty when it did not change."""
        return self.diff.get(table) or TableDiff({}, {}, {})

    def count(self, side: Side, table: str, where: Filter) -> int:
        (found,) = self._select("count(*)", side, table, where).fetchone()
        return int(found)

    def ids(
        self, side: Side, table: str, where: Filter, among: Collection[int] | None = None
    ) -> list[int]:
        """Sorted ids of the rows ``where`` selects, only ``among`` these ids when given."""
        return sorted(row_id for (row_id,) in self._select("id", side, table, where, among))

    def row(self, side: Side, table: str, row_id: int) -> Row | None:
        cursor = self._select("*", side, table, {"id": row_id})
        values = cursor.fetchone()
        if values is None:
            return None
        return dict(zip((column[0] for column in cursor.description), values, strict=True))

    def _select(
        self,
        what: str,
        side: Side,
        table: str,
        where: Filter,
        among: Collection[int] | None = None,
    ) -> sqlite3.Cursor:
        columns = self.check_columns(side, table, ())
        condition, params = compile_filter(where, table=table, columns=columns)
        if among is not None:
            condition += " AND id IN (SELECT value FROM json_each(?))"
            params.append(orjson.dumps(list(among)).decode())
        sql = f"SELECT {what} FROM {SCHEMAS[side]}.{ident(table)} WHERE {condition}"
        return self.states.conn.execute(sql, params)


class Assertion(BaseModel):
    """Fields and behaviour every check shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Unique within its verifier.")
    policy: bool = Field(False, description="Counts toward the policy_compliance signal.")
    description: str | None = None

    @abstractmethod
    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        """Whether the assertion holds, and a short sentence saying what was found."""

    def resolved(self, vars: Vars) -> Self:
        """This assertion with its variable references replaced by their values."""
        config = self.model_dump(by_alias=True, exclude_unset=True)
        values = resolve(config, vars)
        return self if values == config else self.model_validate(values)


class _RowQuery(Assertion):
    table: str
    where: Where = {}
    in_: Side = Field("final", alias="in", description="State to look in.")

    def _found(self, ctx: Context) -> int:
        return ctx.count(self.in_, self.table, self.where)


class RowExists(_RowQuery):
    """Rows matching ``where`` exist: at least one, or exactly ``count``."""

    check: Literal["row_exists"] = "row_exists"
    count: int | None = Field(None, ge=0, description="Exact number of rows expected.")

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        found = self._found(ctx)
        if self.count is None:
            passed, expected = found >= 1, "at least 1 row"
        else:
            passed, expected = found == self.count, _rows(self.count)
        target = _target(self.table, self.where, self.in_)
        return passed, f"expected {expected} in {target}; found {found}"


class RowAbsent(_RowQuery):
    """No row matches ``where``."""

    check: Literal["row_absent"] = "row_absent"

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        found = self._found(ctx)
        target = _target(self.table, self.where, self.in_)
        return found == 0, f"expected no row in {target}; found {found}"


class FieldChanged(Assertion):
    """The one row ``where`` selects in the initial state has a different ``field`` in the final
    state; ``from``/``to`` (a value or an operator mapping, as in ``where``) constrain the
    values before and after."""

    check: Literal["field_changed"] = "field_changed"
    table: str
    where: Where
    field: str
    from_: Any = Field(None, alias="from")
    to: Any = None

    @model_validator(mode="after")
    def _check_bounds(self) -> Self:
        for bound in self._bounds():
            check_filter(bound[1])
        return self

    def _bounds(self) -> list[tuple[Side, Filter, str]]:
        """(state, filter on the field, label) for each of ``from``/``to`` that is set."""
        bounds: tuple[tuple[Side, str, str], ...] = (
            ("initial", "from_", "before"),
            ("final", "to", "after"),
        )
        return [
            (side, {self.field: getattr(self, key)}, label)
            for side, key, label in bounds
            if key in self.model_fields_set
        ]

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        for side in SCHEMAS:
            ctx.check_columns(side, self.table, [self.field])
        ids = ctx.ids("initial", self.table, self.where)
        if len(ids) != 1:
            target = _target(self.table, self.where, "initial")
            return False, f"expected exactly 1 row in {target}; found {len(ids)}"
        row_id = ids[0]
        before, after = (ctx.row(side, self.table, row_id) for side in ("initial", "final"))
        if before is None or after is None:
            return False, f"{self.table} {row_id} was removed"
        label = f"{self.table} {row_id} {self.field}"
        if after[self.field] == before[self.field]:
            return False, f"{label} unchanged ({show(before[self.field])})"
        moved = f"{label} {show(before[self.field])} -> {show(after[self.field])}"
        for side, bound, when in self._bounds():
            if not ctx.ids(side, self.table, bound, among=[row_id]):
                return False, f"{moved}; expected {describe_filter(bound)} {when}"
        return True, moved


class FieldUnchanged(Assertion):
    """Every row ``where`` selects in the initial state still exists with the same ``fields``."""

    check: Literal["field_unchanged"] = "field_unchanged"
    table: str
    where: Where = {}
    fields: list[str] = Field(min_length=1)

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        ctx.check_columns("initial", self.table, self.fields)
        changes = ctx.changes(self.table)
        touched = changes.removed.keys() | changes.changed.keys()
        watched = set(self.fields)
        broken = []
        for row_id in ctx.ids("initial", self.table, self.where, among=touched):
            if row_id in changes.removed:
                broken.append(f"{row_id} removed")
            elif fields := sorted(changes.changed[row_id].fields & watched):
                broken.append(f"{row_id} ({', '.join(fields)})")
        subject = f"{', '.join(self.fields)} of {_target(self.table, self.where, 'initial')}"
        if broken:
            return False, f"{subject} changed: {_some(broken)}"
        return True, f"{subject} unchanged"


class CountChanged(Assertion):
    """The number of rows ``where`` selects grew by ``by`` (negative: shrank).

    Rows outside the diff match alike in both states, so only the diff's rows are counted.
    """

    check: Literal["count_changed"] = "count_changed"
    table: str
    where: Where = {}
    by: int

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        changes = ctx.changes(self.table)
        changed = changes.changed.keys()
        gained = ctx.ids("final", self.table, self.where, among=changes.added.keys() | changed)
        lost = ctx.ids("initial", self.table, self.where, among=changes.removed.keys() | changed)
        delta = len(gained) - len(lost)
        target = _target(self.table, self.where, "final")
        return delta == self.by, f"{target}: {delta:+d} rows; expected {self.by:+d}"


@dataclass(frozen=True, slots=True)
class _Entry:
    """One row of the diff: its table, the operation, its id and (updates) changed fields."""

    table: str
    op: str
    id: int
    fields: frozenset[str] = frozenset()

    def __str__(self) -> str:
        fields = f" ({', '.join(sorted(self.fields))})" if self.fields else ""
        return f"{self.table} {self.op} {self.id}{fields}"


class Allow(BaseModel):
    """Changes one rule of ``only_changes`` allows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    op: Literal["insert", "update", "delete"]
    where: Where = Field(
        {}, description="On the new row (insert), the row after (update) or the removed row."
    )
    fields: list[str] | None = Field(None, description="Updates: fields that may change.")

    @model_validator(mode="after")
    def _fields_for_updates(self) -> Self:
        if self.fields is not None and self.op != "update":
            raise ValueError(f"fields only applies to op: update, not op: {self.op}")
        return self

    @property
    def side(self) -> Side:
        return "initial" if self.op == "delete" else "final"

    def covers(self, entry: _Entry) -> bool:
        """Whether ``entry`` is of this rule's table and op, within its fields (not its where)."""
        return (
            entry.table == self.table
            and entry.op == self.op
            and (self.fields is None or entry.fields <= set(self.fields))
        )


class OnlyChanges(Assertion):
    """Collateral damage: every change in the diff is one some ``allow`` rule permits."""

    check: Literal["only_changes"] = "only_changes"
    allow: list[Allow] = []
    ignore_fields: list[str] = Field(
        ["updated_at"], description="Updates confined to these fields are not changes."
    )

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        entries = self._entries(ctx.diff)
        allowed: set[_Entry] = set()
        for rule in self.allow:
            ctx.check_columns(rule.side, rule.table, rule.fields or ())
            candidates = {entry.id: entry for entry in entries if rule.covers(entry)}
            matched = ctx.ids(rule.side, rule.table, rule.where, among=candidates)
            allowed.update(candidates[row_id] for row_id in matched)
        refused = [str(entry) for entry in entries if entry not in allowed]
        if refused:
            return False, f"{len(refused)} of {len(entries)} changes not allowed: {_some(refused)}"
        return True, f"all {len(entries)} changes allowed" if entries else "no changes"

    def _entries(self, diff: Diff) -> list[_Entry]:
        ignored = frozenset(self.ignore_fields)
        entries = []
        for table, changes in diff.items():
            entries += [_Entry(table, "insert", row_id) for row_id in changes.added]
            entries += [
                _Entry(table, "update", row_id, change.fields - ignored)
                for row_id, change in changes.changed.items()
                if change.fields - ignored
            ]
            entries += [_Entry(table, "delete", row_id) for row_id in changes.removed]
        return entries


class StepPattern(BaseModel):
    """Which trajectory steps match: method, path pattern, optional route parameters, status
    and body subset. Paths are matched as the replica understood them: the canonical path
    of the route it matched (so ``/tickets/+301`` can never pass for ``/tickets/301``)."""

    model_config = ConfigDict(extra="forbid")

    method: Annotated[str, AfterValidator(str.upper)]
    path: paths.PathPattern = Field(
        description="Path pattern(s): '/refunds', '/tickets/{id}/comments', '/tickets/*', "
        "'/orders/**'; a list means any of them. Never a regular expression.")
    params: dict[str, Any] | None = Field(
        None, description="Route parameters the step must have matched, e.g. {ticket_id: 12} "
        "(canonical: ids are integers).")
    status: int | Annotated[str, Field(pattern=r"^[1-5]xx$")] | None = Field(
        None, description="Exact status, or a class such as '2xx'."
    )
    body: dict[str, Any] | None = Field(None, description="Subset of the request body.")

    def matches(self, step: TrajectoryStep) -> bool:
        return (
            step.method == self.method
            and paths.any_matches(self.path, step.path)
            and (self.params is None or _subset(self.params, step.params))
            and self._status_matches(step.status)
            and (self.body is None or _subset(self.body, step.request_body))
        )

    def _status_matches(self, status: int) -> bool:
        if self.status is None:
            return True
        if isinstance(self.status, int):
            return status == self.status
        return status // 100 == int(self.status[0])

    def _matching(self, ctx: Context) -> list[TrajectoryStep]:
        return [step for step in ctx.trajectory if self.matches(step)]

    def _shape(self) -> str:
        path = self.path if isinstance(self.path, str) else "|".join(self.path)
        params = f" {orjson.dumps(self.params).decode()}" if self.params is not None else ""
        status = f" -> {self.status}" if self.status is not None else ""
        body = f" with body {orjson.dumps(self.body).decode()}" if self.body is not None else ""
        return f"{self.method} {path}{params}{status}{body}"


class _StepMatcher(Assertion, StepPattern):
    """An assertion about the steps matching one pattern (given inline)."""


class TrajectoryOrder(Assertion):
    """A step matching ``first`` happens, and no step matching ``then`` comes before it
    (e.g. the customer is asked for verification before the 2FA reset)."""

    check: Literal["trajectory_order"] = "trajectory_order"
    first: StepPattern
    then: StepPattern

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        firsts = self.first._matching(ctx)
        if not firsts:
            return False, f"no step {self.first._shape()}"
        early = [s for s in self.then._matching(ctx) if s.index < firsts[0].index]
        if early:
            return False, (f"step #{early[0].index} {self.then._shape()} came before "
                           f"#{firsts[0].index} {self.first._shape()}")
        return True, f"#{firsts[0].index} {self.first._shape()} came first"


class TrajectoryContains(_StepMatcher):
    """Between ``min`` and ``max`` steps of the trajectory match."""

    check: Literal["trajectory_contains"] = "trajectory_contains"
    min: int = Field(1, ge=0)
    max: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _check_range(self) -> Self:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        found = len(self._matching(ctx))
        passed = found >= self.min and (self.max is None or found <= self.max)
        if self.max is None:
            expected = f"at least {self.min}"
        elif self.max == self.min:
            expected = f"exactly {self.min}"
        else:
            expected = f"{self.min} to {self.max}"
        return passed, f"{found} {_plural(found, 'step')} {self._shape()}; expected {expected}"


class TrajectoryExcludes(_StepMatcher):
    """No step of the trajectory matches."""

    check: Literal["trajectory_excludes"] = "trajectory_excludes"

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        found = [f"#{step.index} {step.method} {step.path}" for step in self._matching(ctx)]
        if found:
            steps = f"{len(found)} {_plural(len(found), 'step')}"
            return False, f"{steps} {self._shape()}: {_some(found)}"
        return True, f"no step {self._shape()}"


class AnswerMatches(Assertion):
    """The final answer matches: one of ``pattern`` (regex search), ``equals`` or
    ``contains_all``, all case-insensitive. No answer fails."""

    model_config = ConfigDict(coerce_numbers_to_str=True)  # references may resolve to numbers

    check: Literal["answer_matches"] = "answer_matches"
    pattern: str | None = None
    equals: str | None = None
    contains_all: list[str] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_criterion(self) -> Self:
        criteria = ("pattern", "equals", "contains_all")
        given = [key for key in criteria if getattr(self, key) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of pattern, equals, contains_all (given: {given or 'none'})"
            )
        if self.pattern is not None:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"pattern is not a valid regular expression: {exc}") from exc
        return self

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        if ctx.answer is None:
            return False, "no answer"
        answer = ctx.answer
        if self.pattern is not None:
            found = re.search(self.pattern, answer, re.IGNORECASE)
            if found is None:
                return False, f"answer {_clip(answer)} does not match {self.pattern!r}"
            return True, f"answer matches {self.pattern!r} at {found.group()!r}"
        if self.equals is not None:
            passed = answer.strip().casefold() == self.equals.strip().casefold()
            verb = "equals" if passed else "is not"
            return passed, f"answer {_clip(answer)} {verb} {self.equals!r}"
        wanted = self.contains_all or []
        missing = [item for item in wanted if item.casefold() not in answer.casefold()]
        if missing:
            return False, f"answer {_clip(answer)} lacks {', '.join(map(repr, missing))}"
        return True, f"answer contains all of {', '.join(map(repr, wanted))}"


AnyAssertion = Annotated[
    RowExists
    | RowAbsent
    | FieldChanged
    | FieldUnchanged
    | CountChanged
    | OnlyChanges
    | TrajectoryContains
    | TrajectoryExcludes
    | TrajectoryOrder
    | AnswerMatches,
    Field(discriminator="check"),
]

REGISTRY: Mapping[str, type[Assertion]] = {
    cls.model_fields["check"].default: cls for cls in get_args(get_args(AnyAssertion)[0])
}
"""Every check by its ``check`` name."""


class Verifier(RootModel[Annotated[list[AnyAssertion], Field(min_length=3, max_length=12)]]):
    """A task's verifier: 3 to 12 uniquely named assertions, one of them ``only_changes``."""

    @model_validator(mode="after")
    def _rules(self) -> Self:
        names = [assertion.name for assertion in self.root]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"assertion names must be unique; repeated: {', '.join(repeated)}")
        if not any(isinstance(assertion, OnlyChanges) for assertion in self.root):
            raise ValueError("every verifier needs an only_changes assertion (collateral damage)")
        return self


def _target(table: str, where: Filter, side: Side) -> str:
    """``table where …``, naming the state when it is the initial one."""
    text = f"{table} where {describe_filter(where)}" if where else table
    return f"{text} (initial state)" if side == "initial" else text


def _rows(count: int) -> str:
    return f"{count} {_plural(count, 'row')}"


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"


def _some(items: Sequence[str], limit: int = 3) -> str:
    """Up to ``limit`` items, then how many more there are."""
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more


def _clip(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _subset(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` has every key of ``expected`` (recursively) with equal values."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _subset(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual)
