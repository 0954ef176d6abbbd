"""``where`` filters: a mapping of column to a value or to a one-key ``{operator: value}``.

A plain value means equality (None matches NULL). Operators: ``eq``, ``ne`` (both NULL-safe),
``gt``, ``gte``, ``lt``, ``lte``, ``in``, ``not_in`` (lists; ``not_in`` keeps NULLs),
``contains`` (substring, case-insensitive for ASCII), ``like`` (SQL LIKE) and ``same_day`` (a
timestamp on the same UTC calendar day as the value, a date or an ISO timestamp: a worklog
dated today, whatever the hour; a column that is no timestamp never matches). A filter compiles
to parameterised SQL whose columns are checked against the table's schema: values never
enter the SQL text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .schema import ident

Filter = dict[str, Any]

_OPERATORS: dict[str, tuple[str, str]] = {  # name: (SQL template, how descriptions show it)
    "eq": ("{col} IS ?", "="),
    "ne": ("{col} IS NOT ?", "!="),
    "gt": ("{col} > ?", ">"),
    "gte": ("{col} >= ?", ">="),
    "lt": ("{col} < ?", "<"),
    "lte": ("{col} <= ?", "<="),
    "in": ("{col} IN ({marks})", " in "),
    "not_in": ("({col} IS NULL OR {col} NOT IN ({marks}))", " not in "),
    "contains": ("instr(lower({col}), lower(?)) > 0", " contains "),
    "like": ("{col} LIKE ?", " like "),
    "same_day": ("date({col}) = date(?)", " on the day of "),
}
_LIST_OPERATORS = frozenset({"in", "not_in"})
_NULL_OPERATORS = frozenset({"eq", "ne"})
_SCALARS = (str, int, float)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$")


@dataclass(frozen=True, slots=True)
class _Term:
    field: str
    op: str
    value: Any


def check_filter(where: Filter) -> Filter:
    """``where`` itself if it is well formed, else a ConfigError saying what is wrong."""
    _terms(where)
    return where


def compile_filter(
    where: Filter, *, table: str, columns: Collection[str]
) -> tuple[str, list[Any]]:
    """An SQL condition and its parameters selecting the rows of ``table`` ``where`` matches."""
    clauses: list[str] = []
    params: list[Any] = []
    terms = _terms(where)
    check_columns(table, columns, [term.field for term in terms])
    for term in terms:
        values = term.value if term.op in _LIST_OPERATORS else [term.value]
        marks = ", ".join("?" for _ in values)
        clauses.append(_OPERATORS[term.op][0].format(col=ident(term.field), marks=marks))
        params += values
    return " AND ".join(clauses) or "1", params


def check_columns(table: str, columns: Collection[str], names: Iterable[str]) -> None:
    """A ConfigError naming the first of ``names`` that is not a column of ``table``."""
    for name in names:
        if name not in columns:
            raise ConfigError(
                f"unknown column {name!r} in table {table!r} (columns: {', '.join(columns)})"
            )


def describe_filter(where: Filter) -> str:
    """``where`` as a short human phrase, e.g. ``charge_id=41, amount_cents>=2500``."""
    return ", ".join(
        f"{term.field}{_OPERATORS[term.op][1]}{show(term.value)}" for term in _terms(where)
    )


def show(value: Any) -> str:
    """A value as a description shows it: strings quoted, None as null."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(show(item) for item in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _terms(where: Mapping[str, Any]) -> list[_Term]:
    terms = []
    for field, spec in where.items():
        if isinstance(spec, Mapping):
            if len(spec) != 1:
                raise ConfigError(
                    f"filter on {field!r}: an operator mapping has exactly one key, "
                    f"got {sorted(spec)}"
                )
            ((op, value),) = spec.items()
            if op not in _OPERATORS:
                raise ConfigError(
                    f"filter on {field!r}: unknown operator {op!r} "
                    f"(operators: {', '.join(_OPERATORS)})"
                )
        else:
            op, value = "eq", spec
        _check_value(field, op, value)
        terms.append(_Term(field, op, value))
    return terms


def _check_value(field: str, op: str, value: Any) -> None:
    where = f"filter on {field!r}, operator {op!r}"
    if op in _LIST_OPERATORS:
        if not isinstance(value, list) or not all(isinstance(v, _SCALARS) for v in value):
            raise ConfigError(f"{where}: expected a list of strings or numbers, got {value!r}")
    elif op == "same_day":
        # A reference ($today.at) is checked once resolved, when the check is validated again.
        if not isinstance(value, str) or not (_DAY.match(value) or value.startswith("$")):
            raise ConfigError(f"{where}: expected a date or an ISO timestamp "
                              f"('2025-06-16', '2025-06-16T09:00:00Z'), got {value!r}")
    elif value is None:
        if op not in _NULL_OPERATORS:
            raise ConfigError(f"{where}: null only compares with eq or ne")
    elif not isinstance(value, _SCALARS):
        hint = " (use {in: [...]} for a list)" if isinstance(value, list) else ""
        raise ConfigError(f"{where}: expected a string or a number, got {value!r}{hint}")
