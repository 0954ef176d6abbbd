"""Checks over the states: rows that exist or not, fields that changed or not, counts, and
collateral damage (``only_changes``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ..diff import SCHEMAS, Diff, Side
from ..errors import ConfigError
from ..filters import Filter, check_filter, describe_filter, show
from .base import Assertion, Ref
from .context import Context
from .wording import plural, some

Where = Annotated[Filter, AfterValidator(check_filter)]


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
            passed, expected = found == self.count, f"{self.count} {plural(self.count, 'row')}"
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
            return False, f"{subject} changed: {some(broken)}"
        return True, f"{subject} unchanged"


class SumChanged(Assertion):
    """The sum of ``column`` over the rows ``where`` selects moved by exactly ``by`` (or
    within ``at_least``/``at_most``) from the initial state to the final one: net money
    moved, however many rows it took."""

    check: Literal["sum_changed"] = "sum_changed"
    table: str
    column: str
    where: Where = {}
    by: int | float | Ref | None = None
    at_least: int | float | Ref | None = None
    at_most: int | float | Ref | None = None

    @model_validator(mode="after")
    def _one_bound(self) -> Self:
        if self.by is None and self.at_least is None and self.at_most is None:
            raise ValueError("give by, at_least or at_most")
        return self

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        moved = (ctx.total("final", self.table, self.column, self.where)
                 - ctx.total("initial", self.table, self.column, self.where))
        delta = int(moved) if moved == int(moved) else moved
        by, least, most = (None if v is None else float(v)
                           for v in (self.by, self.at_least, self.at_most))
        passed = ((by is None or delta == by) and (least is None or delta >= least)
                  and (most is None or delta <= most))
        bounds = [f"{name} {show(value)}" for name, value in
                  (("by", self.by), ("at least", self.at_least), ("at most", self.at_most))
                  if value is not None]
        return passed, (f"sum of {self.column} of {_target(self.table, self.where, 'final')} "
                        f"moved by {show(delta)}; expected {', '.join(bounds)}")


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

    app: str | None = Field(None, description="The app whose changes it allows (default: the "
                            "only_changes check's app).")
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
        """Whether ``entry`` is of this rule's table and op (not checking its where)."""
        return entry.table == self.table and entry.op == self.op

class OnlyChanges(Assertion):
    """Collateral damage: every change in every app's diff is one some ``allow`` rule (of
    that app) permits. The task catalogue adds each app's benign changes on the case (its
    ``allowances.yaml``: internal notes, tags) to ``allow`` unless ``benign`` is false."""

    check: Literal["only_changes"] = "only_changes"
    allow: list[Allow] = []
    benign: bool = Field(True, description="Also allow the apps' benign changes on the case "
                         "(false: only what allow lists).")
    ignore_fields: list[str] = Field(
        ["updated_at"], description="Updates confined to these fields are not changes."
    )

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        world = ctx.world or {ctx.app: ctx}
        if unknown := sorted({rule.app for rule in self.allow if rule.app} - set(world)):
            raise ConfigError(f"allow names apps {unknown} the episode does not have")
        refused: list[str] = []
        total = 0
        for app, app_ctx in world.items():
            entries = self._entries(app_ctx.diff)
            total += len(entries)
            # An entry is allowed when the rules whose where it meets cover all of it (an
            # update's fields may be allowed by several rules: status by one, tags by another).
            uncovered = {entry: set(entry.fields) if entry.op == "update" else {"row"}
                         for entry in entries}
            for rule in self.allow:
                if (rule.app or self.app or ctx.app) != app:
                    continue
                app_ctx.check_columns(rule.side, rule.table, rule.fields or ())
                candidates = {entry.id: entry for entry in entries if rule.covers(entry)}
                for row_id in app_ctx.ids(rule.side, rule.table, rule.where, among=candidates):
                    entry = candidates[row_id]
                    if entry.op != "update" or rule.fields is None:
                        uncovered[entry] = set()
                    else:
                        uncovered[entry] -= set(rule.fields)
            allowed = {entry for entry, left in uncovered.items() if not left}
            named = f"{app}: " if len(world) > 1 else ""
            refused += [f"{named}{entry}" for entry in entries if entry not in allowed]
        if refused:
            return False, f"{len(refused)} of {total} changes not allowed: {some(refused)}"
        return True, f"all {total} changes allowed" if total else "no changes"

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


def _target(table: str, where: Filter, side: Side) -> str:
    """``table where …``, naming the state when it is the initial one."""
    text = f"{table} where {describe_filter(where)}" if where else table
    return f"{text} (initial state)" if side == "initial" else text
