"""Stripe's search (docs.stripe.com/search): its query language, compiled to SQL, and the
``search_result`` page (``{"object": "search_result", "data", "has_more", "next_page", "url"}``,
``total_count`` with ``expand[]=total_count``; ``page``: the ``next_page`` of the page before).

A query is up to 10 clauses joined by ``AND`` or by ``OR`` (not both), each
``[-]field<op>value``: ``:`` exact (strings: whatever their case), ``~`` substring (at least 3
characters; the fields that allow it), ``=``, ``>``, ``<``, ``>=``, ``<=`` on numbers
(``amount``, ``created`` in Unix seconds); ``-`` negates; ``metadata["key"]:"value"``;
``field:null`` (a field or metadata key that is not set). Strings are quoted (``"..."`` or
``'...'``, ``\\"`` inside), numbers, ``true``/``false`` and ``null`` are not.

A resource is searchable with one :class:`Searchable` (its table and its query fields, those of
docs.stripe.com/search#query-fields-for-<resource> the checkout's objects have) and one route
(``routes/search.py``). Every resource Stripe searches is: customers, charges, payment_intents,
invoices, subscriptions, prices and products.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from replicas.runtime import db as sql

from .errors import InvalidRequestError
from .render import Objects, Row

Kind = Literal["string", "token", "number", "boolean"]
MAX_CLAUSES = 10
MIN_SUBSTRING = 3


@dataclass(frozen=True)
class QueryField:
    sql: str  # the column, or an expression of the row's table
    kind: Kind
    substring: bool = False  # whether ``~`` applies


def _card(column: str) -> QueryField:
    """A field of the charge's card (its PaymentMethod's row)."""
    return QueryField(f"(SELECT pm.{column} FROM payment_methods pm WHERE pm.stripe_id = "
                      "payment_method)", "number" if column.startswith("exp_") else "token")


@dataclass(frozen=True)
class Searchable:
    table: str
    kind: str  # the object's name in errors
    resource: str  # the path's, in Stripe's messages: /v1/<resource>/search
    fields: Mapping[str, QueryField]
    where: str = "1"  # the objects search ever finds (e.g. no deleted customers)


_CREATED = QueryField("created", "number")
SEARCHABLE: dict[str, Searchable] = {s.resource: s for s in (
    Searchable("customers", "customer", "customers", {
        "created": _CREATED, "email": QueryField("email", "string", substring=True),
        "name": QueryField("name", "string", substring=True),
        "phone": QueryField("phone", "string", substring=True)}, where="deleted = 0"),
    Searchable("charges", "charge", "charges", {
        "amount": QueryField("amount", "number"), "created": _CREATED,
        "currency": QueryField("currency", "token"),
        "customer": QueryField("customer", "token"),
        "disputed": QueryField("disputed", "boolean"),
        "payment_intent": QueryField("payment_intent", "token"),
        "refunded": QueryField("refunded", "boolean"),
        "status": QueryField("status", "token"),
        "payment_method_details.card.brand": _card("brand"),
        "payment_method_details.card.exp_month": _card("exp_month"),
        "payment_method_details.card.exp_year": _card("exp_year"),
        "payment_method_details.card.fingerprint": _card("fingerprint"),
        "payment_method_details.card.last4": _card("last4")}),
    Searchable("payment_intents", "payment_intent", "payment_intents", {
        "amount": QueryField("amount", "number"), "created": _CREATED,
        "currency": QueryField("currency", "token"),
        "customer": QueryField("customer", "token"),
        "status": QueryField("status", "token")}),
    Searchable("invoices", "invoice", "invoices", {
        "created": _CREATED, "currency": QueryField("currency", "token"),
        "customer": QueryField("customer", "token"),
        "number": QueryField("number", "string", substring=True),
        "status": QueryField("status", "token"),
        "subscription": QueryField("subscription", "token"),
        "total": QueryField("total", "number")}),
    Searchable("subscriptions", "subscription", "subscriptions", {
        "created": _CREATED, "status": QueryField("status", "token")}),
    Searchable("prices", "price", "prices", {
        "active": QueryField("active", "boolean"), "currency": QueryField("currency", "token"),
        "lookup_key": QueryField("lookup_key", "string", substring=True),
        "product": QueryField("product", "token"), "type": QueryField("type", "token")}),
    Searchable("products", "product", "products", {
        "active": QueryField("active", "boolean"),
        "description": QueryField("description", "string", substring=True),
        "name": QueryField("name", "string", substring=True),
        "url": QueryField("url", "string", substring=True)}),
)}

_CLAUSE = re.compile(r"""
    \s*(?P<neg>-)?
    (?:metadata\[(?P<q>["'])(?P<key>(?:\\.|(?!(?P=q)).)+)(?P=q)\]|(?P<field>[a-z_][a-z0-9_.]*))
    (?P<op>:|~|>=|<=|=|>|<)
    (?:(?P<vq>["'])(?P<quoted>(?:\\.|(?!(?P=vq)).)*)(?P=vq)|(?P<bare>[A-Za-z0-9_.\-]+))
    \s*""", re.VERBOSE)
_JOIN = re.compile(r"(AND|OR)\s+")
_NUMBER = re.compile(r"-?\d+")


def _refused(message: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="parameter_invalid", param="query")


def _unparsable(query: str) -> InvalidRequestError:
    return _refused(f"We were unable to parse your search query: {query!r}. Try using the "
                    "format `metadata[\"key\"]:\"value\"` to query for metadata or "
                    "`key:\"value\"` to query for other fields (docs.stripe.com/search"
                    "#search-query-language).")


def _condition(s: Searchable, m: re.Match[str]) -> tuple[str, list[Any]]:
    """One clause as SQL, with its parameters."""
    op, bare = m["op"], m["bare"]
    value: Any = None if m["vq"] is None else re.sub(r"\\(.)", r"\1", m["quoted"])
    if m["key"] is not None:
        key = re.sub(r"\\(.)", r"\1", m["key"])
        field = QueryField("json_extract(metadata, '$.\"' || ? || '\"')", "string")
        named, args = f'metadata["{key}"]', [key]
    else:
        named, args = m["field"], []
        if named not in s.fields:
            raise _refused(f"Field `{named}` is an unsupported search field for resource "
                           f"`{s.resource}`. See https://docs.stripe.com/search"
                           f"#query-fields-for-{s.resource.replace('_', '')} for a list of "
                           "supported fields.")
        field = s.fields[named]
    if bare == "null" and op == ":":
        return f"{field.sql} IS NULL", args
    if op == "~":
        if not field.substring:
            raise _refused(f"Field `{named}` does not support the substring operator `~`.")
        if value is None or len(value) < MIN_SUBSTRING:
            raise _refused(f"The substring (`~`) query on `{named}` needs at least "
                           f"{MIN_SUBSTRING} characters in quotes.")
        return f"instr(lower({field.sql}), lower(?)) > 0", [*args, value]
    if field.kind == "number":
        if bare is None or not _NUMBER.fullmatch(bare):
            raise _refused(f"`{named}` is a number: compare it with an integer, unquoted "
                           f"(`{named}>1000`).")
        return f"{field.sql} {'=' if op == ':' else op} ?", [*args, int(bare)]
    if op != ":":
        raise _refused(f"The operator `{op}` compares numbers: `{named}` takes `:`"
                       f"{' or `~`' if field.substring else ''}.")
    if field.kind == "boolean":  # quoted or not: Stripe's own examples say active:'true'
        given = bare if value is None else value
        if given not in ("true", "false"):
            raise _refused(f"`{named}` is true or false.")
        return f"{field.sql} = ?", [*args, int(given == "true")]
    if value is None:
        raise _refused(f"The value of `{named}` must be in quotes: {named}:\"{bare}\".")
    if field.kind == "string":
        return f"lower({field.sql}) = lower(?)", [*args, value]
    return f"{field.sql} = ?", [*args, value]


def compile_query(s: Searchable, query: str) -> tuple[str, list[Any]]:
    """``query`` as a SQL condition on ``s.table`` and its parameters, or Stripe's 400
    naming the query."""
    conds: list[str] = []
    args: list[Any] = []
    joins: set[str] = set()
    at = 0
    while True:
        m = _CLAUSE.match(query, at)
        if m is None:
            raise _unparsable(query)
        cond, found = _condition(s, m)
        conds.append(f"NOT coalesce(({cond}), 0)" if m["neg"] else f"({cond})")
        args += found
        at = m.end()
        if at == len(query):
            break
        join = _JOIN.match(query, at)
        if join is None:
            raise _unparsable(query)
        joins.add(join[1])
        at = join.end()
    if len(joins) > 1:
        raise _refused("A search query cannot combine AND and OR: use one of them.")
    if len(conds) > MAX_CLAUSES:
        raise _refused(f"A search query takes at most {MAX_CLAUSES} clauses.")
    return f" {joins.pop() if joins else 'AND'} ".join(conds), args


def _offset(page: str | None) -> int:
    if page is None:
        return 0
    try:
        offset = int(base64.urlsafe_b64decode(page.encode()).decode().removeprefix("page:"))
    except (ValueError, UnicodeDecodeError):
        offset = -1
    if offset < 0:
        raise InvalidRequestError(f"Invalid page: {page!r}. Pass the next_page of a previous "
                                  "search, unchanged.", code="parameter_invalid", param="page")
    return offset


def _page(offset: int) -> str:
    return base64.urlsafe_b64encode(f"page:{offset}".encode()).decode()


def search_page(objects: Objects, s: Searchable, *, query: str, limit: int, page: str | None,
                expand: Sequence[str]) -> Row:
    """One page of ``s``'s objects matching ``query``, newest first: Stripe's
    ``search_result``."""
    cond, args = compile_query(s, query)
    offset = _offset(page)
    where = f"({s.where}) AND ({cond})"
    rows = sql.rows(objects.db, f"SELECT * FROM {s.table} WHERE {where} ORDER BY created DESC, "
                    "id DESC LIMIT ? OFFSET ?", (*args, limit + 1, offset))
    has_more = len(rows) > limit
    inner = [path.removeprefix("data.") for path in expand if path.startswith("data.")]
    if len(inner) + expand.count("total_count") != len(expand):
        raise InvalidRequestError("Search results expand their objects' properties (prefix "
                                  "each with 'data.') or total_count.",
                                  code="parameter_invalid", param="expand")
    found: Row = {"object": "search_result", "data": [
        objects.expand(objects.render(s.table, r), inner) for r in rows[:limit]],
        "has_more": has_more, "next_page": _page(offset + limit) if has_more else None,
        "url": f"/v1/{s.resource}/search"}
    if "total_count" in expand:
        counted = sql.one(objects.db, f"SELECT count(*) AS n FROM {s.table} WHERE {where}",
                          tuple(args))
        found["total_count"] = counted["n"] if counted else 0
    return found
