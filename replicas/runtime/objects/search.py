"""HubSpot's CRM search over one object type's unarchived records: ``filterGroups`` (any group
matches: OR; every filter of a group: AND), a free-text ``query`` over the type's default
searchable properties (every word must appear in one), one sort, ``limit`` (at most 200) and
an offset cursor; HubSpot's limits on groups and filters refused in its 400.

Values compare by the property's type: numbers as numbers, datetimes and dates as instants
(epoch milliseconds or ISO 8601), strings and enumerations case-insensitively."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import db as rows
from .errors import HubSpotError
from .schema import OBJECT_ID, ObjectType, Property
from .values import BadValue, stored, text

MAX_GROUPS, MAX_FILTERS_PER_GROUP, MAX_FILTERS, MAX_LIMIT, MAX_RESULTS = 5, 6, 18, 200, 10_000
_ID = Property(OBJECT_ID, "number")
_SEPARATORS = str.maketrans({c: " " for c in "@.-_,;:/()+"})


def run(db: sqlite3.Connection, kind: ObjectType, request: Mapping[str, Any], *,
        start: int) -> tuple[int, list[dict[str, Any]], int | None]:
    """(the total of matches, the page's rows, the next page's offset)."""
    limit = request.get("limit") or 10
    groups = request.get("filterGroups") or []
    _check_limits(groups, limit, start)
    tests = [[_filter(kind, f) for f in group.get("filters") or []] for group in groups]
    words = (request.get("query") or "").lower().split()
    matched = [row for row in rows.rows(db, f"SELECT * FROM {kind.name} WHERE NOT archived "
                                            "ORDER BY id")
               if (not tests or any(all(t(row) for t in group) for group in tests))
               and all(_has_word(kind, row, word) for word in words)]
    for name, descending in reversed(_sorts(kind, request.get("sorts") or [])):
        prop = _ID if name == OBJECT_ID else kind.properties[name]
        present = [r for r in matched if _value(prop, r) is not None]
        present.sort(key=lambda r: _value(prop, r), reverse=descending)
        matched = present + [r for r in matched if _value(prop, r) is None]
    nxt = start + limit
    return len(matched), matched[start:nxt], nxt if nxt < len(matched) else None


def _check_limits(groups: Sequence[Mapping[str, Any]], limit: int, start: int) -> None:
    filters = sum(len(g.get("filters") or []) for g in groups)
    for broken, field, message in (
            (len(groups) > MAX_GROUPS, "filterGroups",
             f"at most {MAX_GROUPS} filterGroups may be given"),
            (any(len(g.get("filters") or []) > MAX_FILTERS_PER_GROUP for g in groups),
             "filterGroups.filters", f"at most {MAX_FILTERS_PER_GROUP} filters in a group"),
            (filters > MAX_FILTERS, "filterGroups", f"at most {MAX_FILTERS} filters in all"),
            (not 1 <= limit <= MAX_LIMIT, "limit", f"limit must be 1 to {MAX_LIMIT}"),
            (start + limit > MAX_RESULTS, "after",
             f"a search pages through at most {MAX_RESULTS} results")):
        if broken:
            raise HubSpotError(f"Invalid search request: {message}", field=field, rule="limit")


def _property(kind: ObjectType, name: Any, field: str) -> Property:
    if name == OBJECT_ID:
        return _ID
    if not isinstance(name, str) or name not in kind.properties:
        raise HubSpotError(f"There is no property {name!r} of {kind.name} to search by",
                           field=field, rule="property")
    return kind.properties[name]


def _value(prop: Property, row: Mapping[str, Any]) -> Any:
    """A row's value of ``prop`` as searches compare it (text lower-cased; None: no value)."""
    value = row["id"] if prop.name == OBJECT_ID else row[prop.name]
    if value is None or value == "":
        return None
    return str(value).lower() if prop.type in ("string", "enumeration") else value


def _operand(prop: Property, value: Any, field: str) -> Any:
    """A filter's value as stored values compare with it."""
    try:
        converted = stored(prop, text(value)) if prop.type != "enumeration" else text(value)
    except BadValue as bad:
        raise HubSpotError(f"Invalid search filter on {prop.name}: {bad.message}",
                           field=field, rule=bad.code) from None
    return converted.lower() if isinstance(converted, str) and prop.type in (
        "string", "enumeration") else converted


Test = Callable[[Mapping[str, Any]], bool]


def _filter(kind: ObjectType, given: Mapping[str, Any]) -> Test:
    """One filter as a test of a row."""
    prop = _property(kind, given.get("propertyName"), "filterGroups.filters.propertyName")
    operator = given.get("operator")
    field = "filterGroups.filters.value"
    if operator == "HAS_PROPERTY":
        return lambda row: _value(prop, row) is not None
    if operator == "NOT_HAS_PROPERTY":
        return lambda row: _value(prop, row) is None
    if operator in ("IN", "NOT_IN"):
        allowed = {_operand(prop, v, "filterGroups.filters.values") for v in
                   given.get("values") or []}
        inside = operator == "IN"
        return lambda row: (_value(prop, row) in allowed) == inside
    if operator == "BETWEEN":
        low = _operand(prop, given.get("value"), field)
        high = _operand(prop, given.get("highValue"), "filterGroups.filters.highValue")
        return lambda row: (v := _value(prop, row)) is not None and low <= v <= high
    if operator in ("CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN"):
        token = text(given.get("value", "")).lower()
        wanted = operator == "CONTAINS_TOKEN"
        return lambda row: _has_token(_value(prop, row), token) == wanted
    compare = _COMPARISONS.get(operator or "")
    if (compare is None and operator != "NEQ") or given.get("value") is None:
        raise HubSpotError(f"Invalid search filter: operator {operator!r} with value "
                           f"{given.get('value')!r}", field="filterGroups.filters.operator",
                           rule="operator")
    operand = _operand(prop, given["value"], field)
    if compare is None:  # NEQ: records without a value are not equal to it either
        return lambda row: _value(prop, row) != operand
    return lambda row: (v := _value(prop, row)) is not None and compare(v, operand)


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "EQ": lambda a, b: bool(a == b), "LT": lambda a, b: bool(a < b),
    "LTE": lambda a, b: bool(a <= b), "GT": lambda a, b: bool(a > b),
    "GTE": lambda a, b: bool(a >= b)}


def _has_token(value: Any, token: str) -> bool:
    """Whether ``token`` (``*`` a wildcard at either end) is one of the words of ``value``."""
    if value is None:
        return False
    words = str(value).lower().translate(_SEPARATORS).split() + [str(value).lower()]
    core = token.strip("*")
    if token.startswith("*") and token.endswith("*") and len(token) > 1:
        return any(core in w for w in words)
    if token.endswith("*"):
        return any(w.startswith(core) for w in words)
    if token.startswith("*"):
        return any(w.endswith(core) for w in words)
    return token in words


def _has_word(kind: ObjectType, row: Mapping[str, Any], word: str) -> bool:
    return any(word in str(row[name]).lower() for name in kind.searchable
               if row[name] is not None)


def _sorts(kind: ObjectType, given: Sequence[Any]) -> list[tuple[str, bool]]:
    """``sorts``: property names (``-name``: descending) or {propertyName, direction}."""
    found = []
    for sort in given:
        if isinstance(sort, Mapping):
            name, descending = sort.get("propertyName"), sort.get("direction") == "DESCENDING"
        else:
            name, descending = str(sort).removeprefix("-"), str(sort).startswith("-")
        found.append((_property(kind, name, "sorts").name, descending))
    if len(found) > 1:
        raise HubSpotError("Invalid search request: at most one sort may be given",
                           field="sorts", rule="limit")
    return found
