"""Zendesk's search query language compiled to SQLite (replicas/helpdesk/search_query.py),
run against a small in-memory helpdesk."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from replicas.helpdesk.search_query import (
    TABLES,
    Kind,
    Phrase,
    SearchSyntaxError,
    Term,
    compile,
    kinds,
    order_by,
    parse,
)

NOW = datetime(2025, 6, 16, 9, 0, tzinfo=UTC)
CUSTOM_FIELDS = {360001: "order_number", 360002: "product", 360003: "contact_reason"}

SCHEMA = """
CREATE TABLE organizations (id INTEGER PRIMARY KEY, name TEXT, domain TEXT, notes TEXT,
    created_at TEXT);
CREATE TABLE groups (id INTEGER PRIMARY KEY, name TEXT, description TEXT);
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, phone TEXT, role TEXT,
    organization_id INTEGER, notes TEXT, created_at TEXT, updated_at TEXT);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, subject TEXT, description TEXT, status TEXT,
    priority TEXT, type TEXT, channel TEXT, tags TEXT, requester_id INTEGER,
    submitter_id INTEGER, assignee_id INTEGER, group_id INTEGER, organization_id INTEGER,
    order_number TEXT, product TEXT, contact_reason TEXT, due_at TEXT, created_at TEXT,
    updated_at TEXT, solved_at TEXT);
CREATE TABLE comments (id INTEGER PRIMARY KEY, ticket_id INTEGER, author_id INTEGER,
    body TEXT, public INTEGER, created_at TEXT);
"""
ORGANIZATIONS = [
    (1, "Acme Corp", "acme.com", "", "2024-01-01T00:00:00Z"),
    (2, "Globex", "globex.com", "refund abuse suspected", "2025-02-01T00:00:00Z"),
]
GROUPS = [(1, "Tier 1", "Front line"), (2, "Tier 2", "Escalations"), (3, "Billing", "")]
USERS = [
    (1, "AI Agent", "ai@shop.test", None, "agent", None, "", "2024-01-01T00:00:00Z"),
    (2, "Dana Admin", "dana@shop.test", None, "admin", None, "", "2024-01-01T00:00:00Z"),
    (3, "Sam Support", "sam@shop.test", None, "agent", None, "", "2024-01-02T00:00:00Z"),
    (10, "Jane Doe", "jane@example.com", "+1 555 0100", "end-user", 1, "VIP buyer",
     "2025-03-01T00:00:00Z"),
    (11, "John Smith", "x@y.com", None, "end-user", 2, "", "2025-06-15T00:00:00Z"),
    (12, "Ann Other", None, None, "end-user", None, "", "2025-06-16T08:00:00Z"),
]
# id, subject, description, status, priority, type, channel, tags, requester (= submitter),
# assignee, group, organization, order_number, product, contact_reason, due_at, created_at,
# updated_at, solved_at
TICKETS = [
    (1, "Refund for order A-10423", "I was charged twice", "open", "high", "question", "email",
     '["refund", "vip"]', 11, 3, 2, 2, "A-10423", "Widget", "billing", None,
     "2025-06-15T10:00:00Z", "2025-06-15T12:00:00Z", None),
    (2, "Where is my parcel", "Tracking shows nothing", "new", "normal", "question", "web",
     '["shipping"]', 10, None, None, 1, "A-20001", "Gadget", "shipping", None,
     "2025-01-01T08:00:00Z", "2025-06-10T00:00:00Z", None),
    (3, "Refund request", "Please refund me", "solved", "low", "task", "chat", '["refund"]',
     11, 1, 3, 2, None, None, None, None,
     "2024-12-31T23:59:59Z", "2025-01-05T10:00:00Z", "2025-01-05T10:00:00Z"),
    (4, "Broken widget", "It arrived broken", "pending", "urgent", "incident", "phone",
     '["damaged", "refund"]', 10, 2, 2, 1, "A-10424", "Widget", "damaged",
     "2025-06-20T00:00:00Z", "2025-06-16T07:00:00Z", "2025-06-16T08:00:00Z", None),
    (5, "Account locked", "Cannot log in, brokenXpart", "closed", "normal", "problem", "api",
     "[]", 12, 3, 1, None, None, None, None, None,
     "2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-02T00:00:00Z"),
    (6, "Invoice copy", "I need an invoice", "hold", "low", "question", "email",
     '["billing"]', 11, None, 3, 2, None, None, None, None,
     "2025-01-02T00:00:00Z", "2025-01-03T00:00:00Z", None),
]
COMMENTS = [
    (1, 1, 11, "The phrase: double charge on my card", 1, "2025-06-15T10:00:00Z"),
    (2, 2, 10, "My parcel was lost in transit", 1, "2025-01-01T08:00:00Z"),
    (3, 4, 2, "Photo attached, 100% broken_part", 0, "2025-06-16T07:30:00Z"),
]


@pytest.fixture(scope="module")
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO organizations VALUES (?, ?, ?, ?, ?)", ORGANIZATIONS)
    conn.executemany("INSERT INTO groups VALUES (?, ?, ?)", GROUPS)
    conn.executemany(
        "INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [(*u, u[-1]) for u in USERS]
    )
    conn.executemany(
        "INSERT INTO tickets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(*t[:9], t[8], *t[9:]) for t in TICKETS],
    )
    conn.executemany("INSERT INTO comments VALUES (?, ?, ?, ?, ?, ?)", COMMENTS)
    yield conn
    conn.close()


def search(
    db: sqlite3.Connection,
    text: str,
    kind: Kind = "ticket",
    sort_by: str | None = None,
    sort_order: str | None = None,
) -> list[int]:
    """The ids ``text`` finds among ``kind``, in the order the search gives them."""
    query = parse(text)
    where, params = compile(query, kind, now=NOW, custom_fields=CUSTOM_FIELDS)
    order = order_by(kind, sort_by or query.order_by, sort_order or query.sort_order)
    table = TABLES[kind]
    sql = f"SELECT {table}.id FROM {table} WHERE {where} ORDER BY {order}"
    return [row[0] for row in db.execute(sql, params)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'type:ticket status<solved tags:refund requester:x@y.com created>2025-01-01 '
            '"double charge"',
            [1],
        ),
        ("status:open status:pending", [1, 4]),
        ("-status:closed -status:solved", [1, 2, 4, 6]),
        ("status<=hold priority>=high", [1, 4]),
        ("priority<normal", [3, 6]),
        ("ticket_type:question via:EMAIL", [1, 6]),
        ("tag:refund -tags:vip", [3, 4]),
        ("tags:none", [5]),
        ("subject:refund*", [1, 3]),
        ("subject:ref*st", [3]),
        ("description:TWICE", [1]),
        ("comment:transit", [2]),
        ("created>2days", [1, 4]),
        ("created>4hours", [4]),
        ("created<4hours", [1, 2, 3, 5, 6]),
        ("updated:1weeks", [1, 2, 4]),
        ("created:2025-01-01", [2]),
        ("created<2025-01-01", [3]),
        ("created<=2025-01-01", [2, 3]),
        ("created>=2025-06-15T10:00:00Z", [1, 4]),
        ("created>2025-06-15T10:00:00Z", [4]),
        ("created>2025-06-15T12:00:00+02:00", [4]),
        ("created>2025-01-01 created<2025-06-01", [5, 6]),
        ("solved<2025-02-01", [3]),
        ("-solved<2025-02-01", [1, 2, 4, 5, 6]),
        ("due_date>2025-06-16", [4]),
        ("assignee:none", [2, 6]),
        ("-assignee:none", [1, 3, 4, 5]),
        ("assignee:me", [3]),
        ('assignee:"sam support"', [1, 5]),
        ("assignee:sam* assignee:2", [1, 4, 5]),
        ("submitter:jane@EXAMPLE.com", [2, 4]),
        ("requester:11 -requester:11", []),
        ('group:"Tier 2"', [1, 4]),
        ("group:tier*", [1, 4, 5]),
        ("group:3", [3, 6]),
        ("group:none", [2]),
        ("organization:acme*", [2, 4]),
        ("organization:none", [5]),
        ("custom_field_360001:A-10423", [1]),
        ("custom_field_360001:a-1042*", [1, 4]),
        ("order_number:A-10423 order_number:A-20001", [1, 2]),
        ("product:widget contact_reason:damaged", [4]),
        ("custom_field_360002:none", [3, 5, 6]),
        ("parcel", [2]),
        ("BROKEN", [4, 5]),
        ('"broken_part"', [4]),
        ("0%", [4]),
        ("-refund", [2, 4, 5, 6]),
        ("refund -vip invoice", []),
        ("x'); DROP TABLE tickets; --", []),
    ],
)
def test_tickets(db: sqlite3.Connection, text: str, expected: list[int]) -> None:
    assert sorted(search(db, text)) == expected


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("type:user role:end-user organization:Globex", "user", [11]),
        ("role:agent role:admin", "user", [1, 2, 3]),
        ("email:JANE@example.com", "user", [10]),
        ("email:none", "user", [12]),
        ("name:doe", "user", [10]),
        ("phone:555", "user", [10]),
        ("vip", "user", [10]),
        ("created>1days", "user", [12]),
        ("-organization:none", "user", [10, 11]),
        ("name:acme", "organization", [1]),
        ("refund", "organization", [2]),
        ("globex.com", "organization", [2]),
        ("created>2025-01-01", "organization", [2]),
        ("tier", "group", [1, 2]),
        ("name:billing", "group", [3]),
        ("escalations", "group", [2]),
        ("status:open", "user", []),
        ("-status:open", "organization", [1, 2]),
    ],
    ids=str,
)
def test_other_kinds(db: sqlite3.Connection, text: str, kind: Kind, expected: list[int]) -> None:
    assert sorted(search(db, text, kind)) == expected


def test_no_type_searches_tickets_users_and_organizations(db: sqlite3.Connection) -> None:
    query = parse("refund")
    assert kinds(query) == ("ticket", "user", "organization")
    assert {kind: sorted(search(db, "refund", kind)) for kind in kinds(query)} == {
        "ticket": [1, 3], "user": [], "organization": [2],
    }
    assert kinds(parse("status:open")) == ("ticket",)
    assert kinds(parse("-status:open")) == ("ticket", "user", "organization")
    assert kinds(parse("created>2025-01-01")) == ("ticket", "user", "organization")
    assert kinds(parse("type:group type:user")) == ("group", "user")
    assert kinds(parse("type:group type:user name:x created>2025-01-01")) == ("user",)


def test_parse_shapes() -> None:
    query = parse('-tag:VIP subject:"charged twice" refund -"not this" order_by:created sort:asc')
    assert query.terms == (
        Term("tags", ":", "VIP", negated=True),
        Term("subject", ":", "charged twice"),
    )
    assert query.phrases == (Phrase("refund"), Phrase("not this", negated=True))
    assert (query.types, query.order_by, query.sort_order) == ((), "created_at", "asc")
    assert parse("  ").terms == () and parse('""').phrases == ()
    assert str(query.terms[1]) == 'subject:"charged twice"'


def test_sorting(db: sqlite3.Connection) -> None:
    assert search(db, "") == [4, 1, 2, 5, 3, 6]  # updated_at, newest first
    assert search(db, "order_by:created sort:asc") == [3, 2, 6, 5, 1, 4]
    assert search(db, "order_by:created_at") == [4, 1, 5, 6, 2, 3]
    assert search(db, "", sort_by="priority") == [4, 1, 5, 2, 6, 3]
    assert search(db, "", sort_by="status", sort_order="asc") == [2, 1, 4, 6, 3, 5]
    assert search(db, "", sort_by="ticket_type", sort_order="asc") == [4, 5, 1, 2, 6, 3]
    # the API's parameters take precedence over the query's
    assert search(db, "sort:asc", sort_by="updated_at", sort_order="desc")[0] == 4
    assert search(db, "", "user") == [1, 2, 3, 10, 11, 12]
    assert search(db, "", "user", sort_by="created_at") == [12, 11, 10, 3, 2, 1]
    assert search(db, "", "user", sort_by="priority") == [1, 2, 3, 10, 11, 12]
    assert search(db, "", "organization", sort_by="created_at", sort_order="asc") == [1, 2]
    assert search(db, "", "group", sort_by="created_at") == [1, 2, 3]
    with pytest.raises(SearchSyntaxError):
        order_by("ticket", "color", None)
    with pytest.raises(SearchSyntaxError):
        order_by("ticket", None, "sideways")


def test_values_are_parameters() -> None:
    where, params = compile(
        parse("subject:\"'; DROP TABLE tickets; --\" requester:\"O'Brien\""),
        "ticket",
        now=NOW,
        custom_fields=CUSTOM_FIELDS,
    )
    assert "DROP" not in where and "Brien" not in where
    assert params == ["%'; DROP TABLE tickets; --%", "O'Brien"]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("foo:bar", "foo:bar"),
        ("status:archived", "status:archived"),
        ("priority:extreme", "priority:extreme"),
        ("role:owner", "role:owner"),
        ("created>2025-13-45", "created>2025-13-45"),
        ("created>yesterday", "created>yesterday"),
        ("updated<2fortnights", "updated<2fortnights"),
        ("subject>abc", "subject>abc"),
        ("tags<=x", "tags<=x"),
        ('subject:"unterminated', '"unterminated'),
        ("status: open", "status:"),
        ('status:""', 'status:""'),
        ("type:user status:open", "status:open"),
        ("type:widget", "type:widget"),
        ("-type:ticket", "-type:ticket"),
        ("order_by:color", "order_by:color"),
        ("sort:sideways", "sort:sideways"),
    ],
)
def test_syntax_errors(text: str, named: str) -> None:
    with pytest.raises(SearchSyntaxError) as caught:
        parse(text)
    assert named in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_unknown_custom_field() -> None:
    query = parse("custom_field_99:x")
    with pytest.raises(SearchSyntaxError, match="custom_field_99:x"):
        compile(query, "ticket", now=NOW, custom_fields=CUSTOM_FIELDS)
    with pytest.raises(SearchSyntaxError, match="custom_field_7:x"):
        compile(parse("custom_field_7:x"), "ticket", now=NOW, custom_fields={7: "subject"})
