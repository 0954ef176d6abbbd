"""JQL's tree as SQLite: a WHERE clause over the tracker's ``issues`` table, and ORDER BY.

``compile`` gives a WHERE clause and its parameters (values never enter the SQL text); names
resolve in subqueries (users by accountId, display name or email; projects by id, key or name;
sprints, versions and components by id or name). As in Jira, NOT is pushed down onto the
clauses (De Morgan, operators flipped) and the negative operators (``!=``, ``NOT IN``, ``IS
NOT``) never match an issue whose field is empty: ``assignee != x`` and ``NOT assignee = x``
leave out unassigned issues. ``~`` is a case-insensitive contains of every word (or "inner
quoted" phrase) of the value, ``*`` and ``?`` wildcards; ADF documents (descriptions,
comments) are searched by their text nodes. Dates: 'yyyy-MM-dd' or 'yyyy/MM/dd' [HH:mm] in
``tz`` (a date alone is its midnight), periods from ``now`` ('-7d', '4w 2d', units w d h m; a
bare number is minutes), now(), and startOf / endOf Day, Week, Month, Year ([increment]);
``duedate`` compares whole days. Priority compares by rank: ``priority > Medium`` is High and
Highest.

``order_by`` gives the ORDER BY text (Jira's default directions; empty values last when
ascending). Errors are JqlError with Jira's message: unknown fields and functions, operators a
field does not take, and values missing from world.yaml's static lists (statuses, status
categories, issue types, priorities, resolutions) are refused. Other names (users, projects,
...) just match nothing.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from replicas.runtime.clock import iso

from .lexer import TEXT_TERM, JqlError
from .parser import And, Clause, Function, Node, Not, Operand, Query, Sort, Value

Sql = tuple[str, list[object]]
_Options = dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]]

# JQL field (lower case) -> (kind, issues column)
_FIELDS: dict[str, tuple[str, str]] = {
    "project": ("project", "project_id"),
    "issuetype": ("issuetype", "issue_type"), "type": ("issuetype", "issue_type"),
    "status": ("status", "status"), "statuscategory": ("statuscategory", "status"),
    "priority": ("priority", "priority"), "resolution": ("resolution", "resolution"),
    "assignee": ("user", "assignee_id"), "reporter": ("user", "reporter_id"),
    "labels": ("labels", "labels"), "component": ("component", "components"),
    "fixversion": ("version", "fix_versions"), "sprint": ("sprint", "sprint_id"),
    "parent": ("parent", "parent_id"),
    "key": ("issue", "id"), "issuekey": ("issue", "id"), "id": ("issue", "id"),
    "created": ("datetime", "created"), "createddate": ("datetime", "created"),
    "updated": ("datetime", "updated_at"), "updateddate": ("datetime", "updated_at"),
    "resolved": ("datetime", "resolution_date"),
    "resolutiondate": ("datetime", "resolution_date"),
    "duedate": ("date", "due_date"), "due": ("date", "due_date"),
    "summary": ("summary", "summary"), "description": ("description", "description"),
    "comment": ("comment", ""), "text": ("text", ""),
}
_CUSTOM_KINDS = {"number": "number", "option": "option"}  # custom field schema type -> kind
_EQUALITY = frozenset({"=", "!=", "IN", "NOT IN", "IS", "IS NOT"})
_ORDERED = _EQUALITY | {"<", "<=", ">", ">="}
_OPERATORS: dict[str, frozenset[str]] = {
    "datetime": _ORDERED, "date": _ORDERED, "number": _ORDERED, "priority": _ORDERED,
    "issue": _ORDERED - {"IS", "IS NOT"}, "summary": frozenset({"~", "!~", "IS", "IS NOT"}),
    "description": frozenset({"~", "!~", "IS", "IS NOT"}), "comment": frozenset({"~", "!~"}),
    "text": frozenset({"~"}),
}
_NEGATED = {"=": "!=", "IN": "NOT IN", "IS": "IS NOT", "<": ">=", ">": "<=", "~": "!~"}
_NEGATED |= {v: k for k, v in _NEGATED.items()}
_STATIC = ("status", "statuscategory", "issuetype", "priority", "resolution")
_ARRAYS = ("labels", "component", "version")
_DATES = ("datetime", "date")
# kind -> (table, columns a value may name a row by)
_REFS = {"project": ("projects", ("id", "key", "name")),
         "user": ("users", ("account_id", "display_name", "email")),
         "sprint": ("sprints", ("id", "name")), "component": ("components", ("id", "name")),
         "version": ("versions", ("id", "name")), "parent": ("issues", ("id", "key"))}
_BOUNDARIES = {"day": "d", "week": "w", "month": "M", "year": "y"}  # startOf<X>()'s unit
# function (lower case) -> (the kinds it serves, at most this many arguments)
_FUNCTIONS: dict[str, tuple[tuple[str, ...], int]] = {
    "currentuser": (("user",), 0), "now": (_DATES, 0), "opensprints": (("sprint",), 0),
    "closedsprints": (("sprint",), 0), "futuresprints": (("sprint",), 0),
    "releasedversions": (("version",), 1), "unreleasedversions": (("version",), 1),
    **{f"{edge}of{period}": (_DATES, 1) for edge in ("start", "end") for period in _BOUNDARIES},
}
# Jira's sprint functions: open sprints are those not completed yet (active and future).
_SPRINT_STATES = {"opensprints": ("active", "future"), "closedsprints": ("closed",),
                  "futuresprints": ("future",)}
_LIKE = "LIKE ? ESCAPE '\\'"
_ADF = ("(CASE WHEN json_valid({c}) THEN (SELECT group_concat(json_tree.value, ' ') "
        "FROM json_tree({c}) WHERE json_tree.key = 'text') ELSE {c} END)")
_TEXT_VALUE = {"summary": "issues.summary", "description": _ADF.format(c="issues.description")}
_COMMENT = ("EXISTS (SELECT 1 FROM comments WHERE comments.issue_id = issues.id AND "
            f"{_ADF.format(c='comments.body')} {_LIKE})")
# text kind -> the SQL matching one word, each '?' that word's LIKE pattern
_TEXT_MATCH = {
    "summary": f"issues.summary {_LIKE}", "description": f"{_TEXT_VALUE['description']} {_LIKE}",
    "comment": _COMMENT,
    "text": f"issues.summary {_LIKE} OR {_TEXT_VALUE['description']} {_LIKE} OR {_COMMENT}",
}
_KEY_PROJECT = "substr(issues.key, 1, instr(issues.key, '-') - 1)"
_KEY_NUMBER = "CAST(substr(issues.key, instr(issues.key, '-') + 1) AS INTEGER)"
_ISSUE_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_]*)-(\d+)")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_DATE = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:\s+(\d{1,2}):(\d{2}))?")
_PERIOD = re.compile(r"([-+]?)((?:\d+[wdhm]\s*)+|\d+)")  # a bare number: minutes
_PERIOD_PART = re.compile(r"(\d+)([wdhm]?)")
_INCREMENT = re.compile(r"([-+]?)(\d+)([yMwdhm]?)")
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes"}
_DATE_FORMATS = ("Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', "
                 "'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.")


def _fields(world: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Every JQL field name (lower case) -> (kind, column): the system fields and world.yaml's
    custom fields by name, customfield_N and cf[N] (one backed by a system field's column is
    that field: cf[10020] is sprint)."""
    fields = dict(_FIELDS)
    system = {column: kind for kind, column in _FIELDS.values()}
    for field_id, name, column, schema in world["custom_fields"]:
        kind = system.get(column) or _CUSTOM_KINDS[schema]
        number = field_id.removeprefix("customfield_")
        for alias in (name.lower(), field_id, f"cf[{number}]"):
            fields[alias] = (kind, column)
    return fields


def _options(world: Mapping[str, Any]) -> _Options:
    """Static kind -> [(id, the names it goes by, the column values it stands for)]."""
    statuses = world["statuses"]
    options: _Options = {
        kind: [(str(row[0]), (row[1],), (row[1],)) for row in world[key]]
        for kind, key in (("status", "statuses"), ("issuetype", "issue_types"),
                          ("priority", "priorities"), ("resolution", "resolutions"))
    }
    options["statuscategory"] = [
        (str(cid), (key, name), tuple(s[1] for s in statuses if s[2] == key))
        for cid, key, name, _ in world["status_categories"]
    ]
    return options


def _like(term: str) -> str:
    pattern = re.sub(r"([\\%_])", r"\\\1", term).replace("*", "%").replace("?", "_")
    return f"%{pattern}%"


def _ref(x: str, kind: str, text: str) -> Sql:
    """SQL true when ``x`` is the id of a row of the kind's table that ``text`` names."""
    table, columns = _REFS[kind]
    where = " OR ".join(f"{column} = ? COLLATE NOCASE" for column in columns)
    return f"{x} IN (SELECT id FROM {table} WHERE {where})", [text] * len(columns)


def _shift(moment: datetime, amount: int, unit: str) -> datetime:
    """``moment`` moved by ``amount`` units: y, M (keeping the day where the month has it),
    w, d, h or m."""
    if unit in _UNITS:
        return moment + timedelta(**{_UNITS[unit]: amount})
    years, month = divmod(moment.month - 1 + amount * (12 if unit == "y" else 1), 12)
    day = min(moment.day, calendar.monthrange(moment.year + years, month + 1)[1])
    return moment.replace(year=moment.year + years, month=month + 1, day=day)


def _check_function(kind: str, field: str, function: Function) -> None:
    if function.name.lower() not in _FUNCTIONS:
        raise JqlError(f"Unable to find JQL function '{function.name}()'.")
    kinds, most = _FUNCTIONS[function.name.lower()]
    if kind not in kinds:
        raise JqlError(f"A value provided by the function '{function.name}' is invalid for "
                       f"the field '{field}'.")
    if len(function.args) > most:
        expected = f"'{most}'" if most == 0 else f"between '0' and '{most}'"
        raise JqlError(f"Function '{function.name}' expected {expected} arguments but "
                       f"received '{len(function.args)}'.")


def _is_empty(kind: str, operand: Operand) -> bool:
    """EMPTY or NULL (and 'Unresolved', for resolution)."""
    return isinstance(operand, Value) and (
        operand.empty or (kind == "resolution" and operand.text.lower() == "unresolved"))


def _issue_key(name: str, text: str) -> str:
    if not _ISSUE_KEY.fullmatch(text):
        raise JqlError(f"The issue key '{text}' for field '{name}' is invalid.")
    return text.upper()


def _number(name: str, text: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise JqlError(f"The value '{text}' is not a valid number for the field '{name}'.")
    return float(text)


class _Compiler:
    """Clauses to SQL, NOT pushed down (``negate``) as Jira's De Morgan rewrite does."""

    def __init__(self, world: Mapping[str, Any], now: datetime, caller_id: int,
                 tz: tzinfo) -> None:
        self.fields, self.options = _fields(world), _options(world)
        self.now, self.caller_id, self.tz = now, caller_id, tz

    def node(self, node: Node, negate: bool) -> Sql:
        if isinstance(node, Not):
            return self.node(node.node, not negate)
        if isinstance(node, Clause):
            return self.clause(node, negate)
        parts = [self.node(child, negate) for child in node.nodes]
        joiner = " AND " if isinstance(node, And) != negate else " OR "
        return joiner.join(f"({sql})" for sql, _ in parts), [p for _, ps in parts for p in ps]

    def clause(self, clause: Clause, negate: bool) -> Sql:
        name, written, operands = clause.field, clause.operator, clause.operands
        kind, column = self.fields.get(name.lower(), (None, ""))
        if kind is None:
            raise JqlError(f"Field '{name}' does not exist or you do not have permission to "
                           "view it.")
        if written not in _OPERATORS.get(kind, _EQUALITY):
            raise JqlError(f"The operator '{written.lower()}' is not supported by the '{name}' "
                           "field.")
        for operand in operands:
            if isinstance(operand, Function):
                _check_function(kind, name, operand)
        listed = written in ("IN", "NOT IN")
        if listed and not clause.is_list and isinstance(operands[0], Value):
            raise JqlError(f"Operator '{written.lower()}' does not support the non-list value "
                           f"'\"{operands[0].text}\"' for field '{name}'.")
        if clause.is_list and not listed:
            values = ", ".join(map(str, operands))
            raise JqlError(f"Operator '{written.lower()}' does not support the list value "
                           f"'({values})' for field '{name}'.")
        empty = [_is_empty(kind, operand) for operand in operands]
        if written in ("IS", "IS NOT") and not all(empty):
            raise JqlError(f"The operator '{written.lower()}' only supports searching for "
                           "EMPTY values.")
        if any(empty) and kind == "issue":
            raise JqlError(f"The field '{name}' does not support searching for EMPTY values.")
        if any(empty) and written not in _EQUALITY:
            raise JqlError(f"The operator '{written}' does not support searching for EMPTY "
                           f"values on the field '{name}'.")
        operator = _NEGATED[written] if negate else written
        if kind in _TEXT_MATCH:
            return self.text(kind, name, operator, operands[0])
        if operator in ("<", "<=", ">", ">="):
            return self.compare(kind, column, name, operator, operands[0])
        return self.equality(kind, column, name, operator, operands, empty)

    def equality(self, kind: str, column: str, name: str, operator: str,
                 operands: tuple[Operand, ...], empty: list[bool]) -> Sql:
        x = "json_each.value" if kind in _ARRAYS else f"issues.{column}"
        matches = [self.match(kind, x, name, o) for o, e in zip(operands, empty, strict=True)
                   if not e]
        sql = " OR ".join(f"({match})" for match, _ in matches)
        params = [p for _, ps in matches for p in ps]
        if kind in _ARRAYS:
            is_empty = f"coalesce(json_array_length(issues.{column}), 0) = 0"
            sql = sql and f"EXISTS (SELECT 1 FROM json_each(issues.{column}) WHERE {sql})"
        else:
            is_empty = f"issues.{column} IS NULL"
        negative = operator in ("!=", "NOT IN", "IS NOT")
        parts = [part for part in (sql, is_empty if negative or any(empty) else "") if part]
        where = " OR ".join(parts)
        return (f"NOT ({where})" if negative else where), params

    def match(self, kind: str, x: str, name: str, operand: Operand) -> Sql:
        """SQL true when ``x`` (the column, or an array's element) is ``operand``."""
        if kind in _DATES:
            return f"{x} = ?", [self.moment(kind, name, operand)]
        if isinstance(operand, Function):
            return self.function(x, operand)
        if kind in _STATIC:
            values = self.option(kind, name, operand)
            return f"{x} IN ({', '.join('?' * len(values))})", list(values)
        if kind in _REFS:
            return _ref(x, kind, operand.text)
        if kind == "issue":
            if operand.text.isdigit():
                return f"{x} = ?", [int(operand.text)]
            return "issues.key = ?", [_issue_key(name, operand.text)]
        if kind == "number":
            return f"{x} = ?", [_number(name, operand.text)]
        return f"{x} = ? COLLATE NOCASE", [operand.text]  # labels, options

    def function(self, x: str, function: Function) -> Sql:
        name = function.name.lower()
        if name == "currentuser":
            return f"{x} = ?", [self.caller_id]
        if name in _SPRINT_STATES:
            states = _SPRINT_STATES[name]
            return (f"{x} IN (SELECT id FROM sprints WHERE state IN "
                    f"({', '.join('?' * len(states))}))", list(states))
        released = f"{x} IN (SELECT id FROM versions WHERE released = ?"
        if not function.args:
            return f"{released})", [int(name == "releasedversions")]
        project, params = _ref("project_id", "project", function.args[0])
        return f"{released} AND {project})", [int(name == "releasedversions"), *params]

    def compare(self, kind: str, column: str, name: str, operator: str, operand: Operand) -> Sql:
        if kind in _DATES:
            return f"issues.{column} {operator} ?", [self.moment(kind, name, operand)]
        assert isinstance(operand, Value)  # functions serve only dates here
        if kind == "priority":  # ranked Highest first: '>' is higher
            names = [values[0] for _, _, values in self.options["priority"]]
            rank = names.index(self.option(kind, name, operand)[0])
            chosen = {"<": names[rank + 1:], "<=": names[rank:], ">": names[:rank],
                      ">=": names[:rank + 1]}[operator]
            return f"issues.priority IN ({', '.join('?' * len(chosen))})", list(chosen)
        if kind == "number":
            return f"issues.{column} {operator} ?", [_number(name, operand.text)]
        if operand.text.isdigit():  # an issue id
            return f"issues.id {operator} ?", [int(operand.text)]
        project, number = _issue_key(name, operand.text).split("-")
        return f"{_KEY_PROJECT} = ? AND {_KEY_NUMBER} {operator} ?", [project, int(number)]

    def text(self, kind: str, name: str, operator: str, operand: Operand) -> Sql:
        if operator in ("IS", "IS NOT"):
            sql = f"coalesce({_TEXT_VALUE[kind]}, '') = ''"
            return (sql if operator == "IS" else f"NOT ({sql})"), []
        assert isinstance(operand, Value)  # no function serves text
        terms = [phrase or word for phrase, word in TEXT_TERM.findall(operand.text)
                 if phrase or word]
        if not terms:
            raise JqlError(f"The field '{name}' does not support searching for an empty string.")
        match = _TEXT_MATCH[kind]
        sql = " AND ".join(f"({match})" for _ in terms)
        params: list[object] = [_like(term) for term in terms for _ in range(match.count("?"))]
        return (sql if operator == "~" else f"NOT coalesce(({sql}), 0)"), params

    def option(self, kind: str, name: str, value: Value) -> tuple[str, ...]:
        """The column values a static value names (by name, else by id)."""
        options = self.options[kind]
        lowered = value.text.lower()
        for _, names, values in options:
            if lowered in (n.lower() for n in names):
                return values
        for option_id, _, values in options:
            if value.text == option_id:
                return values
        if value.text.isdigit():
            raise JqlError(f"A value with ID '{value.text}' does not exist for the field "
                           f"'{name}'.")
        raise JqlError(f"The value '{value.text}' does not exist for the field '{name}'.")

    def moment(self, kind: str, name: str, operand: Operand) -> str:
        """The instant (datetime kind: ISO) or the day (date kind: YYYY-MM-DD) ``operand``
        stands for."""
        if isinstance(operand, Function):
            moment = self.now if operand.name.lower() == "now" else self.boundary(operand)
        else:
            moment = self.date(name, operand.text.strip())
        return moment.astimezone(self.tz).date().isoformat() if kind == "date" else iso(moment)

    def date(self, name: str, text: str) -> datetime:
        try:
            if period := _PERIOD.fullmatch(text):
                delta = sum((timedelta(**{_UNITS[unit or "m"]: int(n)})
                             for n, unit in _PERIOD_PART.findall(period[2])), timedelta())
                return self.now - delta if period[1] == "-" else self.now + delta
            if date := _DATE.fullmatch(text):
                year, month, day, hour, minute = (int(part or 0) for part in date.groups())
                return datetime(year, month, day, hour, minute, tzinfo=self.tz)
        except (ValueError, OverflowError):
            pass
        raise JqlError(f"Date value '{text}' for field '{name}' is invalid. {_DATE_FORMATS}")

    def boundary(self, function: Function) -> datetime:
        """startOf/endOf Day|Week|Month|Year([increment]) in the caller's zone, weeks from
        Sunday; an increment ('-1', '+2w', '-1M') counts the function's unit by default."""
        edge, period = function.name.lower().split("of")
        unit = _BOUNDARIES[period]
        start = self.now.astimezone(self.tz).replace(hour=0, minute=0, second=0, microsecond=0)
        if unit == "w":
            start -= timedelta(days=(start.weekday() + 1) % 7)
        elif unit in "My":
            start = start.replace(month=1 if unit == "y" else start.month, day=1)
        increment = _INCREMENT.fullmatch(function.args[0].strip()) if function.args else None
        message = (f"Duration for function '{function.name}' should have the format "
                   "(+/-)n(yMwdm), e.g -1M for 1 month earlier.")
        if function.args and increment is None:
            raise JqlError(message)
        try:
            if increment:
                start = _shift(start, int(increment[1] + increment[2]), increment[3] or unit)
            return start if edge == "start" else _shift(start, 1, unit) - timedelta(seconds=1)
        except (ValueError, OverflowError):
            raise JqlError(message) from None


def compile(query: Query, *, now: datetime, caller_id: int, world: Mapping[str, Any],
            tz: tzinfo = UTC) -> tuple[str, list[object]]:
    """A WHERE clause over ``issues`` and its parameters. ``now`` and ``caller_id`` (users.id)
    serve the functions and relative dates, ``tz`` (the caller's zone) reads dates; ``world``
    is the parsed world.yaml (custom fields, static value lists)."""
    if query.where is None:
        return "1", []
    return _Compiler(world, now, caller_id, tz).node(query.where, negate=False)


# --- ordering --------------------------------------------------------------------------------

_DESCENDING = ("datetime", "date", "priority", "status")  # Jira's default sort orders


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def order_by(query: Query, *, world: Mapping[str, Any]) -> str:
    """ORDER BY text for ``query``'s sorts (newest first without one). A sort without
    ASC/DESC takes the field's default: DESC for dates, priority and status, else ASC. Key
    orders by project key then number, rank by id, priority and status by world.yaml's order
    (DESC priority: Highest first); empty values sort as the greatest. Ties: by id."""
    fields, options = {**_fields(world), "rank": ("rank", "id")}, _options(world)
    terms: list[str] = []
    direction = "DESC"
    for sort in query.order or (Sort("created", "DESC"),):
        kind, column = fields.get(sort.field.lower(), ("", ""))
        if kind == "issue":
            expressions = [_KEY_PROJECT, _KEY_NUMBER]
        elif kind in ("status", "issuetype", "priority", "resolution"):
            ranked = [values[0] for _, _, values in options[kind]]
            ranked = ranked[::-1] if kind == "priority" else ranked
            cases = " ".join(f"WHEN {_quote(v)} THEN {i}" for i, v in enumerate(ranked))
            expressions = [f"CASE issues.{column} {cases} END"]
        elif kind == "user":
            expressions = [f"(SELECT display_name FROM users WHERE users.id = issues.{column})"]
        elif kind in (*_DATES, "number", "option", "summary", "rank"):
            expressions = [f"issues.{column}"]
        else:
            raise JqlError(f"Not able to sort using field '{sort.field}'.")
        direction = sort.direction or ("DESC" if kind in _DESCENDING else "ASC")
        nulls = "LAST" if direction == "ASC" else "FIRST"
        terms += [f"{expression} {direction} NULLS {nulls}" for expression in expressions]
    return ", ".join([*terms, f"issues.id {direction}"])
