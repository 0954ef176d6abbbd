"""Zendesk's search query language (GET /api/v2/search?query=...), compiled to SQLite.

Space-separated terms: ``key:value``, ``key<value``, ``key>value``, ``key<=value``,
``key>=value``, negated by a leading ``-``; a bare word or "quoted phrase" is free text
(case-insensitive: a ticket's subject, description or comments; a user's name, email or notes;
an organization's name, domain or notes; a group's name or description). ``*`` in a value is
a wildcard. ``key:value`` terms of one key are OR'ed (``status:open status:pending``), all else
AND'ed (``created>2025-01-01 created<2025-02-01`` is a range). ``type:ticket|user|organization|
group`` picks the result types (default: tickets, users, organizations); ``order_by:created
sort:asc`` the order, as the API's sort_by/sort_order parameters (which take precedence).

Dates: ``YYYY-MM-DD`` is that whole UTC day (``created:2025-01-01`` on it, ``>`` after it,
``<`` before it); an ISO datetime is that second; ``30minutes``, ``4hours``, ``2days``,
``1weeks`` are that long before ``now``: ``created>2days`` (or ``created:2days``) is "in the
last two days". Timestamps compare as ISO-Zulu strings.

``compile`` gives a WHERE clause over the kind's table (named tickets, users, organizations,
groups) with its parameters: values never enter the SQL text. A key the kind lacks (``status``
for users) matches nothing there, and ``kinds`` leaves such kinds out. Negated terms also match
rows whose column is NULL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from replicas.runtime.clock import iso

from .rules.conditions import PRIORITY_ORDER, STATUS_ORDER, TICKET_TYPES

Kind = Literal["ticket", "user", "organization", "group"]
KINDS: tuple[Kind, ...] = ("ticket", "user", "organization", "group")
DEFAULT_KINDS: tuple[Kind, ...] = ("ticket", "user", "organization")
TABLES: dict[Kind, str] = {"ticket": "tickets", "user": "users", "organization": "organizations",
                           "group": "groups"}
SORT_BY = ("created_at", "updated_at", "priority", "status", "ticket_type")
SORT_ORDERS = ("asc", "desc")
CUSTOM_FIELD_KEYS = ("order_number", "product", "contact_reason")

_ENUMS: dict[str, tuple[str, ...]] = {  # status and priority in Zendesk's order
    "status": STATUS_ORDER,
    "priority": PRIORITY_ORDER,
    "ticket_type": TICKET_TYPES,
    "role": ("end-user", "agent", "admin"),
}
_ORDERED = ("status", "priority")
# key -> {kind: (how it matches, column of the kind's table)}
_FIELDS: dict[str, dict[Kind, tuple[str, str]]] = {
    "status": {"ticket": ("enum", "status")},
    "priority": {"ticket": ("enum", "priority")},
    "ticket_type": {"ticket": ("enum", "type")},
    "tags": {"ticket": ("tags", "tags")},
    "via": {"ticket": ("exact", "channel")},
    "requester": {"ticket": ("person", "requester_id")},
    "assignee": {"ticket": ("person", "assignee_id")},
    "submitter": {"ticket": ("person", "submitter_id")},
    "group": {"ticket": ("ref", "group_id")},
    "organization": {"ticket": ("ref", "organization_id"), "user": ("ref", "organization_id")},
    "subject": {"ticket": ("text", "subject")},
    "description": {"ticket": ("text", "description")},
    "comment": {"ticket": ("comment", "body")},
    "created": {k: ("date", "created_at") for k in ("ticket", "user", "organization")},
    "updated": {"ticket": ("date", "updated_at"), "user": ("date", "updated_at")},
    "solved": {"ticket": ("date", "solved_at")},
    "due_date": {"ticket": ("date", "due_at")},
    **{key: {"ticket": ("exact", key)} for key in CUSTOM_FIELD_KEYS},
    "role": {"user": ("enum", "role")},
    "email": {"user": ("exact", "email")},
    "name": {k: ("text", "name") for k in ("user", "organization", "group")},
    "phone": {"user": ("text", "phone")},
}
_ALIASES = {"tag": "tags"}
_REF_TABLES = {"group_id": "groups", "organization_id": "organizations"}
_FREE_TEXT: dict[Kind, tuple[str, ...]] = {"ticket": ("subject", "description"),
                                           "user": ("name", "email", "notes"),
                                           "organization": ("name", "domain", "notes"),
                                           "group": ("name", "description")}
_ORDER_BY = {**{key: key for key in SORT_BY}, "created": "created_at", "updated": "updated_at"}
# For a date's span [start, end): each operator's SQL and the bounds it takes.
_DATE_SQL: dict[str, tuple[str, tuple[int, ...]]] = {
    ":": ("{c} >= ? AND {c} < ?", (0, 1)), ">": ("{c} >= ?", (1,)), ">=": ("{c} >= ?", (0,)),
    "<": ("{c} < ?", (0,)), "<=": ("{c} < ?", (1,)),
}
_LIKE = "LIKE ? ESCAPE '\\'"
_COMMENT = ("EXISTS (SELECT 1 FROM comments WHERE comments.ticket_id = tickets.id "
            f"AND comments.body {_LIKE})")
_TOKEN = re.compile(
    r'(?P<neg>-)?(?:(?P<key>[a-z_][a-z0-9_]*)(?P<op><=|>=|:|<|>))?'
    r'(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s"]+))(?=\s|$)',
    re.IGNORECASE,
)
_DANGLING = re.compile(r"-?[a-z_][a-z0-9_]*(<=|>=|:|<|>)", re.IGNORECASE)
_CUSTOM_KEY = re.compile(r"custom_field_(\d+)")
_RELATIVE = re.compile(r"(\d+)(minute|hour|day|week)s?", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")


class SearchSyntaxError(ValueError):
    """A query Zendesk would reject; the message names the offending term."""


@dataclass(frozen=True)
class Term:
    key: str  # canonical ('tag' -> 'tags'), or 'custom_field_<id>'
    op: str  # ':', '<', '>', '<=' or '>='
    value: str
    negated: bool = False

    def __str__(self) -> str:
        value = f'"{self.value}"' if " " in self.value else self.value
        return f"{'-' if self.negated else ''}{self.key}{self.op}{value}"


@dataclass(frozen=True)
class Phrase:
    text: str
    negated: bool = False


@dataclass(frozen=True)
class Query:
    terms: tuple[Term, ...] = ()
    phrases: tuple[Phrase, ...] = ()
    types: tuple[Kind, ...] = ()  # from type:...; empty = DEFAULT_KINDS
    order_by: str | None = None  # from order_by:..., one of SORT_BY
    sort_order: str | None = None  # from sort:asc|desc


def parse(query: str) -> Query:
    """The terms of ``query``; SearchSyntaxError for a malformed or unknown one."""
    terms: list[Term] = []
    phrases: list[Phrase] = []
    types: list[Kind] = []
    order: dict[str, str] = {}
    pos = 0
    while pos < len(query):
        if query[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(query, pos)
        if match is None:
            raise SearchSyntaxError(f"unbalanced quote: {query[pos:]}")
        pos, text = match.end(), match.group(0)
        negated, op = match["neg"] is not None, match["op"]
        value = match["bare"] if match["quoted"] is None else match["quoted"]
        if match["key"] is None:
            if _DANGLING.fullmatch(text):
                raise SearchSyntaxError(f"missing value: {text}")
            if value:
                phrases.append(Phrase(value, negated))
            continue
        key = _ALIASES.get(match["key"].lower(), match["key"].lower())
        if not value:
            raise SearchSyntaxError(f"missing value: {text}")
        if key in ("type", "order_by", "sort"):
            if negated or op != ":":
                raise SearchSyntaxError(f"only {key}:value is allowed: {text}")
            _setting(key, value.lower(), text, types, order)
            continue
        terms.append(Term(key, op, value, negated))
        _validate(terms[-1])
    for term in terms:
        if types and not set(types) & _kinds_of(term.key):
            raise SearchSyntaxError(f"{term.key!r} is not a key of type {'/'.join(types)}: {term}")
    return Query(tuple(terms), tuple(phrases), tuple(types), order.get("order_by"),
                 order.get("sort"))


def terms(query: Query) -> int:
    """What ``query`` costs to run: its key:value terms and free words or phrases."""
    return len(query.terms) + len(query.phrases)


def kinds(query: Query) -> tuple[Kind, ...]:
    """The result types to search: those asked for (or DEFAULT_KINDS), less the ones a
    non-negated key cannot match (``status:open`` searches tickets only)."""
    wanted = query.types or DEFAULT_KINDS
    return tuple(
        kind for kind in wanted
        if all(term.negated or kind in _kinds_of(term.key) for term in query.terms)
    )


def compile(
    query: Query, kind: Kind, *, now: datetime, custom_fields: Mapping[int, str]
) -> tuple[str, list[object]]:
    """A WHERE clause over the kind's table (named tickets/users/organizations/groups) and its
    parameters. ``custom_fields`` maps ticket field ids to their column (CUSTOM_FIELD_KEYS)."""
    # AND'ed groups of OR'ed (sql, params): one group per key of the non-negated key:value
    # terms, one per other term or phrase
    groups: dict[str | int, list[tuple[str, list[object]]]] = {}
    for i, term in enumerate(query.terms):
        key = _field_key(term, custom_fields)
        sql, params = _condition(term, key, kind, now)
        if term.negated:
            sql = f"NOT coalesce(({sql}), 0)"
        groups.setdefault(key if term.op == ":" and not term.negated else i, []).append(
            (sql, params)
        )
    for i, phrase in enumerate(query.phrases, start=len(query.terms)):
        sql, params = _free_text(phrase.text, kind)
        groups[i] = [(f"NOT coalesce(({sql}), 0)" if phrase.negated else sql, params)]
    where = " AND ".join(
        "(" + " OR ".join(f"({sql})" for sql, _ in group) + ")" for group in groups.values()
    )
    return where or "1", [p for group in groups.values() for _, params in group for p in params]


def order_by(kind: Kind, sort_by: str | None = None, sort_order: str | None = None) -> str:
    """ORDER BY text: ``sort_by`` (SORT_BY) in ``sort_order`` (asc|desc, default desc), then
    id the same way. Without sort_by, or with one the kind lacks, Zendesk orders by relevance,
    which we do not compute: tickets come by updated_at then id, newest first; others by id."""
    if sort_by not in (None, *SORT_BY) or sort_order not in (None, *SORT_ORDERS):
        raise SearchSyntaxError(f"cannot sort by {sort_by} {sort_order}")
    table = TABLES[kind]
    columns = {"ticket": SORT_BY, "user": ("created_at", "updated_at"),
               "organization": ("created_at",), "group": ()}[kind]
    if sort_by is None or sort_by not in columns:
        return f"{table}.updated_at DESC, {table}.id DESC" if kind == "ticket" else f"{table}.id"
    direction = (sort_order or "desc").upper()
    if sort_by in _ORDERED:
        ranks = " ".join(f"WHEN '{v}' THEN {i}" for i, v in enumerate(_ENUMS[sort_by]))
        expression = f"CASE {table}.{sort_by} {ranks} END"
    else:
        expression = f"{table}.{'type' if sort_by == 'ticket_type' else sort_by}"
    return f"{expression} {direction}, {table}.id {direction}"


def _setting(key: str, value: str, text: str, types: list[Kind], order: dict[str, str]) -> None:
    if key == "type" and value in KINDS:
        if value not in types:
            types.append(value)
    elif key == "sort" and value in SORT_ORDERS:
        order[key] = value
    elif key == "order_by" and value in _ORDER_BY:
        order[key] = _ORDER_BY[value]
    else:
        raise SearchSyntaxError(f"bad {key}: {text}")


def _kinds_of(key: str) -> set[Kind]:
    return {"ticket"} if _CUSTOM_KEY.fullmatch(key) else set(_FIELDS[key])


def _validate(term: Term) -> None:
    if _CUSTOM_KEY.fullmatch(term.key):
        matcher = "exact"
    elif term.key in _FIELDS:
        matcher = next(iter(_FIELDS[term.key].values()))[0]
    else:
        raise SearchSyntaxError(f"unknown search key {term.key!r}: {term}")
    if term.op != ":" and matcher != "date" and term.key not in _ORDERED:
        raise SearchSyntaxError(f"{term.key} takes only {term.key}:value: {term}")
    if matcher == "enum" and term.value.lower() not in _ENUMS[term.key]:
        raise SearchSyntaxError(f"bad {term.key} {term.value!r}: {term}")
    if matcher == "date":
        _span(term, datetime.now(UTC))


def _field_key(term: Term, custom_fields: Mapping[int, str]) -> str:
    match = _CUSTOM_KEY.fullmatch(term.key)
    if match is None:
        return term.key
    column = custom_fields.get(int(match[1]))
    if column not in CUSTOM_FIELD_KEYS:
        raise SearchSyntaxError(f"unknown custom field {match[1]}: {term}")
    return column


def _condition(term: Term, key: str, kind: Kind, now: datetime) -> tuple[str, list[object]]:
    spec = _FIELDS[key].get(kind)
    if spec is None:
        return "0", []
    matcher, column = spec
    col, value = f"{TABLES[kind]}.{column}", term.value
    lowered = value.lower()
    if matcher == "enum":
        values, r = _ENUMS[key], _ENUMS[key].index(lowered)
        n = len(values)
        ranges = {":": (r, r + 1), "<": (0, r), "<=": (0, r + 1), ">": (r + 1, n), ">=": (r, n)}
        chosen: list[object] = list(values[slice(*ranges[term.op])])
        return f"{col} IN ({', '.join('?' * len(chosen))})", chosen
    if matcher == "date":
        op = ">=" if term.op == ":" and _RELATIVE.fullmatch(value) else term.op
        sql, bounds = _DATE_SQL[op]
        span = _span(term, now)
        return sql.format(c=col), [span[i] for i in bounds]
    if matcher == "text":
        return f"{col} {_LIKE}", [_like(value, contains=True)]
    if matcher == "comment":
        return _COMMENT, [_like(value, contains=True)]
    if lowered == "none":
        empty = {"tags": f"coalesce(json_array_length({col}), 0) = 0",
                 "exact": f"coalesce({col}, '') = ''"}
        return empty.get(matcher, f"{col} IS NULL"), []
    if matcher == "tags":
        tag = f"EXISTS (SELECT 1 FROM json_each({col}) WHERE json_each.value {_LIKE})"
        return tag, [_like(lowered)]
    if matcher == "exact":
        return f"{col} {_LIKE}", [_like(value)]
    if lowered == "me" and matcher == "person":
        return f"{col} = ?", [1]
    if value.isdigit():
        return f"{col} = ?", [int(value)]
    if matcher == "person":
        field = "email" if "@" in value else "name"
        return f"{col} IN (SELECT id FROM users WHERE {field} {_LIKE})", [_like(value)]
    return f"{col} IN (SELECT id FROM {_REF_TABLES[column]} WHERE name {_LIKE})", [_like(value)]


def _free_text(text: str, kind: Kind) -> tuple[str, list[object]]:
    table = TABLES[kind]
    matches = [f"{table}.{column} {_LIKE}" for column in _FREE_TEXT[kind]]
    if kind == "ticket":
        matches.append(_COMMENT)
    return " OR ".join(matches), [_like(text, contains=True)] * len(matches)


def _like(value: str, *, contains: bool = False) -> str:
    """A LIKE pattern (case-insensitive for ASCII) for ``value``: its %, _ and \\ escaped,
    ``*`` a wildcard; ``contains``: anywhere in the text."""
    pattern = re.sub(r"([\\%_])", r"\\\1", value).replace("*", "%")
    return f"%{pattern}%" if contains else pattern


def _span(term: Term, now: datetime) -> tuple[str, str]:
    """The instants [start, end) a date value stands for: a whole UTC day for 'YYYY-MM-DD',
    one second for a datetime or a relative time ('2days': that long before ``now``)."""
    relative = _RELATIVE.fullmatch(term.value)
    try:
        if relative:
            start = now - timedelta(**{relative[2].lower() + "s": int(relative[1])})
        elif _DATE.fullmatch(term.value):
            start = datetime.fromisoformat(term.value)
            start = start if start.tzinfo else start.replace(tzinfo=UTC)
        else:
            raise ValueError(term.value)
        day = not relative and "T" not in term.value
        return iso(start), iso(start + (timedelta(days=1) if day else timedelta(seconds=1)))
    except (ValueError, OverflowError) as exc:
        raise SearchSyntaxError(f"malformed date {term.value!r}: {term}") from exc
