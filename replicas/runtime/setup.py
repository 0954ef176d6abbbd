"""Task setup: operations applied on top of a seeded world, binding rows to names.

A task's ``setup`` is a list of operations (YAML data):

    - {bind: customer, insert: customers, values: {name: Dana Lee, tier: gold}}
    - {bind: order, insert: orders, values: {customer_id: $customer.id, placed_at: "@now-3d"}}
    - {bind: manager, select: "SELECT * FROM agents WHERE role = 'manager' ORDER BY id LIMIT 1"}
    - {update: tickets, id: $ticket.id, values: {status: pending}}

``$name.field`` refers to a bound row; ``@now-3d`` is a time relative to the
episode's virtual clock. Bound rows are returned to the gym API for verifiers;
agents never see them.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from workgym.runtime.errors import InvalidRequest
from workgym.runtime.refs import resolve

from . import db as sql
from .clock import parse_time_expr


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InsertOp(_Op):
    op: Literal["insert"] = "insert"
    insert: str
    values: dict[str, Any]
    bind: str | None = None


class SelectOp(_Op):
    op: Literal["select"] = "select"
    select: str = Field(description="A SELECT returning the row to bind (first row).")
    params: list[Any] = Field(default_factory=list)
    bind: str


class UpdateOp(_Op):
    op: Literal["update"] = "update"
    update: str
    id: Any
    values: dict[str, Any]
    bind: str | None = None


class SqlOp(_Op):
    op: Literal["sql"] = "sql"
    sql: str
    params: list[Any] = Field(default_factory=list)


def _tag(raw: Any) -> Any:
    """Let task authors omit ``op``: it is the one operation key present."""
    if isinstance(raw, dict) and "op" not in raw:
        for key in ("insert", "select", "update", "sql"):
            if key in raw:
                return {**raw, "op": key}
    return raw


SetupOp = Annotated[InsertOp | SelectOp | UpdateOp | SqlOp, Field(discriminator="op")]
_ops = TypeAdapter(list[SetupOp])


def parse_setup(raw: list[Any]) -> list[SetupOp]:
    return _ops.validate_python([_tag(item) for item in raw])


def _expand(value: Any, bound: dict[str, Any], now: datetime) -> Any:
    value = resolve(value, bound)
    if isinstance(value, str):
        moment = parse_time_expr(value, now)
        return value if moment is None else moment
    if isinstance(value, dict):
        return {k: _expand(v, bound, now) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, bound, now) for v in value]
    return value


def _row(db: sqlite3.Connection, table: str, row_id: int) -> dict[str, Any]:
    row = sql.one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    assert row is not None
    return row


def apply_setup(db: sqlite3.Connection, ops: list[SetupOp], now: datetime,
                bound: dict[str, Any] | None = None) -> dict[str, Any]:
    """Apply ``ops`` in one transaction, with ``bound`` rows to refer to; return the rows
    bound by name (those given plus the new ones)."""
    bound = dict(bound or {})
    db.execute("BEGIN")
    try:
        for op in ops:
            row: dict[str, Any] | None = None
            if isinstance(op, InsertOp):
                values = _expand(op.values, bound, now)
                row = _row(db, op.insert, sql.insert(db, op.insert, values))
            elif isinstance(op, UpdateOp):
                row_id = _expand(op.id, bound, now)
                sql.update(db, op.update, row_id, _expand(op.values, bound, now))
                row = _row(db, op.update, row_id)
            elif isinstance(op, SelectOp):
                row = sql.one(db, op.select, _expand(op.params, bound, now))
                if row is None:
                    raise InvalidRequest(
                        f"setup select for '{op.bind}' matched no row", code="setup_failed",
                        field="setup", rule="select_matches_a_row",
                    )
            else:
                db.execute(op.sql, _expand(op.params, bound, now))
            name = getattr(op, "bind", None)
            if name is not None and row is not None:
                bound[name] = row
    except sqlite3.Error as exc:
        db.execute("ROLLBACK")
        raise InvalidRequest(f"setup failed: {exc}", code="setup_failed", field="setup") from exc
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return bound
