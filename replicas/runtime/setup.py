"""Row operations applied to a world: a task's setup, and other actors' changes (the
``state_drift`` fault), binding rows to names.

The operations are :mod:`workgym_core.rowops` (declarative, never SQL): checked against
the database's own tables and columns first, then applied in one transaction. Bound rows
are returned to the gym API for verifiers; agents never see them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from workgym_core.errors import InvalidRequest
from workgym_core.refs import resolve
from workgym_core.rowops import (
    InsertRow,
    SelectRow,
    UpdateRow,
    check_schema,
    parse_ops,
    table_of,
)

from . import db as sql
from .clock import parse_time_expr

Op = InsertRow | UpdateRow | SelectRow

__all__ = ["apply_ops", "parse_ops", "schema"]


def schema(db: sqlite3.Connection) -> dict[str, list[str]]:
    """The app's own tables and their columns (bookkeeping ``_`` tables excluded)."""
    tables = [row["name"] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' "
        "ESCAPE '\\' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {table: [col["name"] for col in db.execute(f"PRAGMA table_info({table})")]
            for table in tables}


def _expand(value: Any, bound: dict[str, Any], now: datetime) -> Any:
    value = resolve(value, bound)
    if isinstance(value, str):
        moment = parse_time_expr(value, now)
        return value if moment is None else moment
    if isinstance(value, dict):
        return {k: _expand(v, bound, now) for k, v in value.items()}
    return value


def _row(db: sqlite3.Connection, table: str, row_id: int) -> dict[str, Any]:
    row = sql.one(db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    if row is None:
        raise InvalidRequest(f"no {table} row {row_id}", code="setup_failed", field="id",
                             rule="row_exists")
    return row


def _select(db: sqlite3.Connection, op: SelectRow, values: dict[str, Any],
            excluded: dict[str, Any]) -> dict[str, Any] | None:
    # Table and column names were checked against the schema: only values are bound.
    conds = [f"{c} IS ?" for c in values] + [f"{c} IS NOT ?" for c in excluded]
    order = op.order_by.lstrip("-") + (" DESC" if op.order_by.startswith("-") else "")
    where = f" WHERE {' AND '.join(conds)}" if conds else ""
    return sql.one(db, f"SELECT * FROM {op.select}{where} ORDER BY {order} LIMIT 1",
                   (*values.values(), *excluded.values()))


def _apply(db: sqlite3.Connection, op: Op, bound: dict[str, Any],
           now: datetime) -> dict[str, Any]:
    if isinstance(op, InsertRow):
        return _row(db, op.insert, sql.insert(db, op.insert, _expand(op.values, bound, now)))
    if isinstance(op, UpdateRow):
        row_id = _expand(op.id, bound, now)
        if not isinstance(row_id, int) or isinstance(row_id, bool):
            raise InvalidRequest(f"update {op.update}: id {op.id!r} is not an integer",
                                 code="setup_failed", field="id", rule="integer")
        _row(db, op.update, row_id)
        sql.update(db, op.update, row_id, _expand(op.values, bound, now))
        return _row(db, op.update, row_id)
    row = _select(db, op, _expand(op.where, bound, now), _expand(op.exclude, bound, now))
    if row is None:
        raise InvalidRequest(f"select {op.select} for '{op.bind}' matched no row",
                             code="setup_failed", field="select", rule="select_matches_a_row")
    return row


def apply_ops(db: sqlite3.Connection, ops: Sequence[Op], now: datetime,
              bound: dict[str, Any] | None = None, field: str = "ops") -> dict[str, Any]:
    """Apply ``ops`` in one transaction (all or nothing), with ``bound`` rows to refer to;
    return the rows bound by name (those given plus the new ones)."""
    check_schema(ops, schema(db), field)
    bound = dict(bound or {})
    db.execute("BEGIN")
    try:
        for i, op in enumerate(ops):
            try:
                row = _apply(db, op, bound, now)
            except sqlite3.IntegrityError as exc:  # names the constraint, never the SQL
                raise InvalidRequest(f"{field}[{i}] ({op.op} {table_of(op)}): {exc}",
                                     code="setup_failed", field=f"{field}.{i}",
                                     rule="constraint") from exc
            except (sqlite3.Error, OverflowError) as exc:
                raise InvalidRequest(f"{field}[{i}] ({op.op} {table_of(op)}) was refused by "
                                     "the database", code="setup_failed",
                                     field=f"{field}.{i}") from exc
            if op.bind is not None:
                bound[op.bind] = row
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return bound
