"""Row operations: the one declarative way anything but an app's own routes changes a world.

Task setup (from task files) and the ``state_drift`` fault (from fault plans, which an
operator may send over HTTP) describe changes as these operations on the app's own
tables, never as SQL::

    {bind: billing, select: groups, where: {name: Billing}}
    {bind: order, insert: orders, values: {customer_id: $customer.id, placed_at: "@now-3d"}}
    {update: tickets, id: $ticket.id, values: {status: pending}}
    {bind: vip, factory: customer, tier: gold}

``$name.field`` refers to a row bound earlier (or by the task's setup), ``$app.name.field``
to a row another app of the episode bound (:mod:`workgym_core.refs`); ``@now-3d`` is a
time relative to the episode's virtual clock. A ``factory`` op asks one of the app's row
factories for a realistic row: every key but ``factory`` and ``bind`` is an override (a
column of the factory's table, or one of the factory's options). Tables and columns are
checked against the app's schema (:func:`check_schema`) before anything runs: only the
app's own tables (no ``_``-prefixed bookkeeping, no ``sqlite_`` internals), their existing
columns and the app's factories.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, model_validator

from .errors import InvalidRequest

Identifier = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,62}$",
                                  description="A table or column of the app.")]
# Bounded so that nothing a plan carries overflows SQLite's 64-bit integers.
Scalar = (Annotated[int, Field(ge=-(2**53), le=2**53)]
          | Annotated[float, Field(ge=-1e15, le=1e15, allow_inf_nan=False)]
          | bool | None | Annotated[str, Field(max_length=20_000)])
Values = dict[Identifier, Scalar]
Schema = Mapping[str, Sequence[str]]  # table -> its columns


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _RowOp(_Op):
    when: str | None = Field(None, max_length=300, description="A condition over rows bound "
                             "earlier (workgym_core.exprs: '$verdict.eligible == 1'): the op "
                             "runs only when it holds; otherwise it binds nothing.")


class InsertRow(_RowOp):
    op: Literal["insert"] = "insert"
    insert: Identifier = Field(description="Table to insert into.")
    values: Values = Field(min_length=1, description="Column -> value.")
    bind: Identifier | None = Field(None, description="Name to refer to the new row by.")


class UpdateRow(_RowOp):
    op: Literal["update"] = "update"
    update: Identifier = Field(description="Table of the row.")
    id: Annotated[int, Field(ge=1, le=2**53)] | Annotated[
        str, Field(pattern=r"^\$[A-Za-z_]\w*\.[A-Za-z_]\w*$")] = Field(
        description="The row's id, or a reference to a bound row's id ($name.id).")
    values: Values = Field(min_length=1, description="Column -> new value.")
    bind: Identifier | None = None


class SelectRow(_RowOp):
    op: Literal["select"] = "select"
    select: Identifier = Field(description="Table to find the row in.")
    where: Values = Field(default_factory=dict, description="Column -> required value.")
    exclude: Values = Field(default_factory=dict, description="Column -> value it must not "
                            "have.")
    order_by: Annotated[str, Field(pattern=r"^(-?[a-z][a-z0-9_]{0,62}|random)$")] = Field(
        "id", description="Column the first row is taken by ('-' for descending), or "
        "'random': one of the matching rows, drawn from the seed.")
    bind: Identifier = Field(description="Name to refer to the row by.")


class FactoryRow(_RowOp):
    """``{factory: customer, bind: c, tier: gold}``: a row from the app's ``customer``
    factory, with ``tier`` overridden. The flat keys are collected into ``values``."""

    op: Literal["factory"] = "factory"
    factory: Identifier = Field(description="The app's row factory to build the row.")
    values: Values = Field(default_factory=dict, description="Overrides: column (or factory "
                           "option) -> value; every other column is the factory's.")
    bind: Identifier | None = Field(None, description="Name to refer to the new row by.")

    @model_validator(mode="before")
    @classmethod
    def _collect_overrides(cls, raw: Any) -> Any:
        if not isinstance(raw, dict):
            return raw
        flat = {key: value for key, value in raw.items() if key not in cls.model_fields}
        given = raw.get("values", {})
        if not flat or not isinstance(given, dict):
            return raw
        if both := sorted(set(flat) & set(given)):
            raise ValueError(f"{', '.join(both)} given both flat and in values")
        named = {key: value for key, value in raw.items() if key in cls.model_fields}
        return {**named, "values": {**given, **flat}}


class Choice(_Op):
    choice: list[Scalar] = Field(min_length=1, description="One of these, drawn.")


class Between(_Op):
    between: tuple[int, int] = Field(description="An integer in [low, high], drawn.")
    step: int = Field(1, ge=1, description="Only multiples of this (from low).")

    @model_validator(mode="after")
    def _ordered(self) -> Between:
        if self.between[0] > self.between[1]:
            raise ValueError(f"between: {self.between[0]} is above {self.between[1]}")
        return self


class Cycle(_Op):
    cycle: list[Scalar] = Field(min_length=2, description="One of these per seed, in turn "
                                "(from a start drawn per task): any len(cycle) consecutive "
                                "seeds draw each once. A decision's outcomes, each on its "
                                "share of the seeds whatever seeds a run takes.")


class Expr(_Op):
    expr: str = Field(max_length=300, description="Arithmetic over bound rows: "
                      "'$order.total * $deal.pct // 100' (workgym_core.exprs).")


Draw = Choice | Between | Cycle | Expr


class DrawRow(_RowOp):
    """``{bind: deal, draw: {pct: {between: [30, 70]}, reason: {choice: [a, b]}}}``: a row
    of values drawn from the seed (and computed: ``{expr: ...}``), for what follows and for
    the instruction. It is no row of the database."""

    op: Literal["draw"] = "draw"
    draw: dict[Identifier, Draw] = Field(min_length=1, description="Field -> how to draw it.")
    bind: Identifier = Field(description="Name to refer to the drawn values by.")


class PickRow(_RowOp):
    """``{bind: broken, pick: $order.items}``: one element of a list (or of a JSON list in a
    column), drawn from the seed; an object element's keys are the bound row's fields."""

    op: Literal["pick"] = "pick"
    pick: Annotated[str, Field(pattern=r"^\$[A-Za-z_]\w*(\.[A-Za-z_]\w*){1,2}$")] = Field(
        description="A reference to a list, or to a column holding a JSON list.")
    bind: Identifier = Field(description="Name to refer to the element by.")


Op = InsertRow | UpdateRow | SelectRow | FactoryRow | DrawRow | PickRow
RowOp = Annotated[Op, Field(discriminator="op")]
_ops = TypeAdapter(list[RowOp])

_KEYS = ("insert", "update", "select", "factory", "draw", "pick")


def _tag(raw: Any) -> Any:
    """Let authors omit ``op``: it is the one operation key present."""
    if isinstance(raw, dict) and "op" not in raw:
        for key in _KEYS:
            if key in raw:
                return {**raw, "op": key}
    return raw


def _tag_all(raw: Any) -> Any:
    return [_tag(item) for item in raw] if isinstance(raw, list) else raw


# A list of row operations as a model field (``op`` may be omitted, as in task files).
RowOps = Annotated[list[RowOp], BeforeValidator(_tag_all)]


def parse_ops(raw: Sequence[Any]) -> list[Op]:
    """Validate row operations (pydantic's ValidationError names the failing field)."""
    return _ops.validate_python(_tag_all(list(raw)))


class FactoryShape(Protocol):
    """What checking a ``factory`` op needs of the app's factory: its table, and the keys
    it takes besides that table's columns."""

    @property
    def table(self) -> str: ...

    @property
    def options(self) -> Collection[str]: ...


Factories = Mapping[str, FactoryShape]  # factory name -> the factory


def table_of(op: Op, factories: Factories | None = None) -> str | None:
    """The table the op is on (a factory op's is its factory's: see check_schema); None for
    the ops that touch no table (draw, pick)."""
    if isinstance(op, FactoryRow):
        return (factories or {})[op.factory].table
    if isinstance(op, DrawRow | PickRow):
        return None
    return op.insert if isinstance(op, InsertRow) else (
        op.update if isinstance(op, UpdateRow) else op.select)


def _columns(op: Op) -> list[tuple[str, str]]:
    """(where in the op, column) for every column the op names."""
    if isinstance(op, SelectRow):
        named = [("where", c) for c in op.where] + [("exclude", c) for c in op.exclude]
        order = [] if op.order_by == "random" else [("order_by", op.order_by.lstrip("-"))]
        return [*named, *order]
    if isinstance(op, DrawRow | PickRow):
        return []
    return [("values", column) for column in op.values]


def check_schema(ops: Sequence[Op], schema: Schema, field: str = "ops",
                 factories: Factories | None = None) -> None:
    """InvalidRequest naming the first table, column or factory the app does not have
    (``factories``: the app's, by name; none given, a ``factory`` op names none)."""
    factories = factories or {}
    for i, op in enumerate(ops):
        if isinstance(op, FactoryRow) and op.factory not in factories:
            raise InvalidRequest(
                f"{field}[{i}]: no factory '{op.factory}' (factories: "
                f"{', '.join(sorted(factories)) or 'none'})",
                code="unknown_factory", field=f"{field}.{i}.factory", rule="app_factory")
        table = table_of(op, factories)
        if table is None:
            continue
        if table not in schema:
            raise InvalidRequest(
                f"{field}[{i}]: no table '{table}' (tables: {', '.join(sorted(schema))})",
                code="unknown_table", field=f"{field}.{i}.{op.op}", rule="app_table")
        known = set(schema[table])
        if isinstance(op, FactoryRow):
            known |= set(factories[op.factory].options)
        for where, column in _columns(op):
            if column not in known:
                raise InvalidRequest(
                    f"{field}[{i}]: table '{table}' has no column '{column}'",
                    code="unknown_column", field=f"{field}.{i}.{where}.{column}",
                    rule="table_column")
