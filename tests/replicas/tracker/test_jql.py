"""JQL compiled to SQLite (replicas/tracker/jql/), run against a small in-memory tracker
built from the tracker's own schema and world.yaml."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from replicas.runtime.world import create_schema, write_rows
from replicas.tracker import jql
from replicas.tracker.jql import (
    And,
    Clause,
    Function,
    JqlError,
    Not,
    Or,
    Query,
    Sort,
    Value,
    is_bounded,
    order_by,
    parse,
)
from replicas.tracker.models import METADATA
from replicas.tracker.world import data

NOW = datetime(2025, 6, 16, 9, 0, tzinfo=UTC)
WORLD: dict[str, Any] = data()
CALLER = 1


def adf(*texts: str) -> str:
    """An ADF document of one paragraph, one text node per piece (marks split nodes)."""
    nodes = [{"type": "text", "text": text, "marks": [{"type": "strong"}]} for text in texts]
    paragraph = {"type": "paragraph", "content": nodes}
    return json.dumps({"type": "doc", "version": 1, "content": [paragraph]})


USERS = [
    {"id": 1, "account_id": "acc-ava", "display_name": "Ava Lead", "email": "ava@shop.test"},
    {"id": 2, "account_id": "acc-ben", "display_name": "Ben Dev", "email": "ben@shop.test"},
    {"id": 3, "account_id": "acc-cara", "display_name": "Cara QA", "email": None},
]
PROJECTS = [
    {"id": 10000, "key": "SHOP", "name": "Checkout Web", "lead_id": 1},
    {"id": 10001, "key": "APP", "name": "Mobile App", "lead_id": 1},
]
BOARDS = [{"id": 1, "name": "SHOP board", "type": "scrum", "project_id": 10000}]
SPRINTS = [
    {"id": 1, "board_id": 1, "name": "SHOP Sprint 1", "state": "closed"},
    {"id": 2, "board_id": 1, "name": "SHOP Sprint 2", "state": "active"},
    {"id": 3, "board_id": 1, "name": "SHOP Sprint 3", "state": "future"},
]
VERSIONS = [
    {"id": 1, "project_id": 10000, "name": "1.0", "released": 1},
    {"id": 2, "project_id": 10000, "name": "1.1", "released": 0},
    {"id": 3, "project_id": 10001, "name": "2.0", "released": 1},
]
COMPONENTS = [
    {"id": 1, "project_id": 10000, "name": "Payments"},
    {"id": 2, "project_id": 10000, "name": "Cart"},
    {"id": 3, "project_id": 10001, "name": "Payments"},
]
_COLUMNS = ("id", "key", "project_id", "issue_type", "summary", "description", "status",
            "resolution", "priority", "assignee_id", "reporter_id", "labels", "components",
            "fix_versions", "parent_id", "sprint_id", "story_points", "severity", "due_date",
            "created", "updated_at", "resolution_date")
ISSUES = [dict(zip(_COLUMNS, row, strict=True)) for row in [
    (10001, "SHOP-1", 10000, "Epic", "Payments revamp", None, "In Progress", None, "High",
     1, 1, '["payments"]', "[1]", "[]", None, None, None, None, None,
     "2025-05-01T10:00:00Z", "2025-06-10T10:00:00Z", None),
    (10002, "SHOP-2", 10000, "Bug", "Card charged twice on retry",
     adf("Customer order A-10423 was charged ", "twice"), "Open", None, "Highest",
     2, 3, '["payments", "customer-report"]', "[1]", "[2]", 10001, 2, 3.0, "S1", "2025-06-16",
     "2025-06-15T08:00:00Z", "2025-06-16T08:30:00Z", None),
    (10003, "SHOP-3", 10000, "Story", "Guest checkout", None, "Done", "Done", "Medium",
     2, 1, "[]", "[2]", "[1]", None, 1, 5.0, None, "2025-06-01",
     "2025-03-01T09:00:00Z", "2025-04-01T09:00:00Z", "2025-04-01T09:00:00Z"),
    (10004, "SHOP-10", 10000, "Task", "Update cart copy", None, "Backlog", None, "Low",
     None, 2, '["copy"]', "[2]", "[]", None, 3, 1.0, None, None,
     "2025-06-16T08:45:00Z", "2025-06-16T08:45:00Z", None),
    (10005, "APP-1", 10001, "Bug", "Crash on payment screen", None, "Closed", "Won't Do",
     "Lowest", 3, 2, "[]", "[3]", "[3]", None, None, None, "S3", None,
     "2025-01-10T00:00:00Z", "2025-02-01T12:00:00Z", "2025-02-01T12:00:00Z"),
    (10006, "APP-2", 10001, "Sub-task", "Add retry telemetry", None, "In Review", None,
     "Medium", 1, 1, '["payments"]', "[]", "[]", 10005, None, 2.0, None, "2025-06-20",
     "2025-06-12T12:00:00Z", "2025-06-14T12:00:00Z", None),
]]
COMMENTS = [
    {"id": 1, "issue_id": 10003, "author_id": 2, "body": adf("Ship it behind the flag")},
    {"id": 2, "issue_id": 10005, "author_id": 3, "body": adf("Cannot reproduce on Android")},
    {"id": 3, "issue_id": 10002, "author_id": 1, "body": adf("Refund issued via helpdesk")},
]
ALL = [10001, 10002, 10003, 10004, 10005, 10006]


@pytest.fixture(scope="module")
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    create_schema(conn, METADATA)
    users = [{**user, "time_zone": "Europe/Berlin", "locale": "en_US"} for user in USERS]
    for table, rows in (("users", users), ("projects", PROJECTS), ("boards", BOARDS),
                        ("sprints", SPRINTS), ("versions", VERSIONS),
                        ("components", COMPONENTS), ("issues", ISSUES)):
        write_rows(conn, table, rows)
    stamp = "2025-06-01T00:00:00Z"
    write_rows(conn, "comments", [{**c, "created": stamp, "updated_at": stamp} for c in COMMENTS])
    yield conn
    conn.close()


def search(db: sqlite3.Connection, text: str, tz: tzinfo = UTC) -> list[int]:
    """The issue ids ``text`` finds, in its order."""
    query = parse(text)
    where, params = jql.compile(query, now=NOW, caller_id=CALLER, world=WORLD, tz=tz)
    sql = f"SELECT issues.id FROM issues WHERE {where} ORDER BY {order_by(query, world=WORLD)}"
    return [row[0] for row in db.execute(sql, params)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # projects, precedence (NOT > AND > OR), NOT pushed onto the clauses
        ("project = SHOP", [10001, 10002, 10003, 10004]),
        ("project = 'mobile app'", [10005, 10006]),
        ("project in (10001)", [10005, 10006]),
        ("project = SHOP AND status = Done OR priority = Lowest", [10003, 10005]),
        ("project = SHOP AND (status = Done OR priority = Lowest)", [10003]),
        ("priority = High OR priority = Low AND assignee IS EMPTY", [10001, 10004]),
        ("(priority = High OR priority = Low) AND assignee IS NOT EMPTY", [10001]),
        ("NOT (status = Done OR status = Closed) AND project = APP", [10006]),
        ("NOT NOT project = APP", [10005, 10006]),
        ("!(project = SHOP) && type = Bug", [10005]),
        ("project = SHOP || project = APP", ALL),
        ("PROJECT = shop and STATUS = 'in progress'", [10001]),
        # people: accountId, name, email, currentUser(), EMPTY; != never matches the empty
        ("assignee = acc-ben", [10002, 10003]),
        ('assignee = "BEN@shop.test"', [10002, 10003]),
        ("assignee != 'Ben Dev'", [10001, 10005, 10006]),
        ("NOT assignee = 'ben dev'", [10001, 10005, 10006]),
        ("assignee IS EMPTY", [10004]),
        ("assignee in (currentUser(), EMPTY)", [10001, 10004, 10006]),
        ("reporter = currentUser()", [10001, 10003, 10006]),
        ("assignee not in (currentUser(), acc-cara)", [10002, 10003]),
        # static lists: names, ids, categories, priority ranks, Unresolved
        ("status in (Open, 'in review')", [10002, 10006]),
        ("status = 3", [10001]),
        ("statusCategory = 'In Progress'", [10001, 10006]),
        ("statusCategory = done", [10003, 10005]),
        ("statusCategory != new", [10001, 10003, 10005, 10006]),
        ("issuetype = Bug", [10002, 10005]),
        ("type in (Story, 10003)", [10003, 10004]),
        ("priority > Medium", [10001, 10002]),
        ("priority <= Low", [10004, 10005]),
        ("NOT priority >= High", [10003, 10004, 10005, 10006]),
        ("resolution = Unresolved", [10001, 10002, 10004, 10006]),
        ("resolution = \"Won't Do\"", [10005]),
        ("resolution IS NOT EMPTY", [10003, 10005]),
        # labels, components, versions (JSON arrays)
        ("labels = payments", [10001, 10002, 10006]),
        ("labels IS EMPTY", [10003, 10005]),
        ("labels not in (payments)", [10004]),
        ("labels in (COPY, customer-report)", [10002, 10004]),
        ("component = Payments", [10001, 10002, 10005]),
        ("component = 2", [10003, 10004]),
        ("fixVersion = '1.0'", [10003]),
        ("fixVersion in releasedVersions()", [10003, 10005]),
        ("fixVersion in unreleasedVersions(SHOP)", [10002]),
        ("fixVersion in releasedVersions('Mobile App')", [10005]),
        ("fixVersion IS EMPTY AND project = SHOP", [10001, 10004]),
        # sprints and parents
        ("sprint in openSprints()", [10002, 10004]),  # active and future: not completed
        ("sprint in closedSprints()", [10003]),
        ("sprint in futureSprints()", [10004]),
        ("sprint IS EMPTY", [10001, 10005, 10006]),
        ("sprint = 'shop sprint 2'", [10002]),
        ("cf[10020] = 3", [10004]),
        ("parent = SHOP-1", [10002]),
        ("parent in (10005)", [10006]),
        # dates: absolute, relative, functions; duedate by day
        ("created > -1d", [10004]),
        ("created >= -2d", [10002, 10004]),
        ("created > -4h", [10004]),
        ("updated >= -30m", [10002, 10004]),
        ("created >= startOfDay()", [10004]),
        ("created >= startOfDay(-1)", [10002, 10004]),
        ("created > startOfDay('-1M')", [10002, 10004, 10006]),
        ("created > -1440", [10004]),  # a bare number is minutes
        ("created >= startOfWeek()", [10002, 10004]),  # Sunday 2025-06-15
        ("created >= startOfWeek('+1d')", [10004]),
        ("created < endOfWeek(-1)", [10001, 10003, 10005, 10006]),  # before Sunday
        ("created >= startOfMonth()", [10002, 10004, 10006]),
        ("created >= startOfMonth(-1) AND created <= endOfMonth(-1)", [10001]),
        ("created < startOfYear()", []),
        ("created >= startOfYear(-1)", ALL),
        ("updated < '2025-04-01 09:01'", [10003, 10005]),
        ("created < '2025/03/01'", [10005]),
        ("created < 2025/03/01", None),  # '/' is reserved: such a date must be quoted
        ("resolved >= '2025-02-01' AND resolved <= endOfDay()", [10003, 10005]),
        ("resolutiondate IS EMPTY", [10001, 10002, 10004, 10006]),
        ("created > -1w 2d", None),  # a period with a space must be quoted
        ("created > '-1w 2d'", [10002, 10004, 10006]),
        ("duedate = now()", [10002]),
        ("duedate < now()", [10003]),
        ("duedate <= 1w", [10002, 10003, 10006]),
        ("due IS EMPTY", [10001, 10004, 10005]),
        ("duedate > '2025-06-16'", [10006]),
        # keys and ids
        ("key = shop-2", [10002]),
        ("key in (SHOP-1, APP-2, 10003)", [10001, 10003, 10006]),
        ("key > SHOP-2", [10003, 10004]),
        ("issuekey <= SHOP-3", [10001, 10002, 10003]),
        ("id >= 10005", [10005, 10006]),
        ("key != SHOP-1 AND project = SHOP", [10002, 10003, 10004]),
        # text: every word contained, case-insensitive; ADF by its text nodes
        ("summary ~ charge", [10002]),
        ("summary ~ 'copy CART'", [10004]),
        ("summary ~ '\"copy cart\"'", []),
        ("summary ~ 'pay*'", [10001, 10005]),
        ("summary !~ payment", [10002, 10003, 10004, 10006]),
        ("description ~ 'charged twice'", [10002]),
        ("description ~ strong OR description ~ paragraph", []),
        ("description IS EMPTY", [10001, 10003, 10004, 10005, 10006]),
        ("comment ~ reproduce", [10005]),
        ("text ~ refund", [10002]),
        ("text ~ 'guest flag'", [10003]),
        ("NOT text ~ payment", [10002, 10003, 10004, 10006]),
        ("summary ~ \"'; DROP TABLE issues; --\"", []),
        # custom fields by name, cf[N] and customfield_N
        ("'Story point estimate' > 2", [10002, 10003]),
        ("cf[10016] <= 2", [10004, 10006]),
        ("customfield_10016 IS EMPTY", [10001, 10005]),
        ("severity = s1", [10002]),
        ("cf[10030] in (S1, S3)", [10002, 10005]),
        ("", ALL),
    ],
)
def test_queries(db: sqlite3.Connection, text: str, expected: list[int] | None) -> None:
    if expected is None:
        with pytest.raises(JqlError):
            search(db, text)
    else:
        assert sorted(search(db, text)) == expected


def test_dates_read_in_the_callers_zone(db: sqlite3.Connection) -> None:
    text = "created >= '2025-06-15 10:00'"
    assert search(db, text) == [10004]
    assert search(db, text, ZoneInfo("Europe/Berlin")) == [10004, 10002]  # 08:00Z
    # Berlin's day began at 22:00Z, after SHOP-2 and before SHOP-10
    assert search(db, "created >= startOfDay()", ZoneInfo("Europe/Berlin")) == [10004]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [10004, 10002, 10006, 10001, 10003, 10005]),  # created DESC
        ("ORDER BY created", [10004, 10002, 10006, 10001, 10003, 10005]),
        ("project = SHOP ORDER BY key", [10001, 10002, 10003, 10004]),  # SHOP-10 last
        ("ORDER BY key DESC", [10004, 10003, 10002, 10001, 10006, 10005]),
        ("ORDER BY priority", [10002, 10001, 10006, 10003, 10004, 10005]),  # Highest first
        ("ORDER BY priority ASC, created ASC", [10005, 10004, 10003, 10006, 10001, 10002]),
        ("ORDER BY duedate ASC", [10003, 10002, 10006, 10001, 10004, 10005]),  # empty last
        ("ORDER BY duedate", [10005, 10004, 10001, 10006, 10002, 10003]),
        ("ORDER BY status ASC", [10004, 10001, 10006, 10003, 10005, 10002]),
        ("ORDER BY rank", ALL),
        ("order by resolved desc", [10006, 10004, 10002, 10001, 10003, 10005]),
        ("ORDER BY assignee", [10001, 10006, 10002, 10003, 10005, 10004]),
        ("ORDER BY 'Story point estimate' DESC", [10005, 10001, 10003, 10002, 10006, 10004]),
    ],
)
def test_order(db: sqlite3.Connection, text: str, expected: list[int]) -> None:
    assert search(db, text) == expected


def test_parse_shapes() -> None:
    query = parse("NOT a = b AND c in (d, 'e') OR f is empty ORDER BY g DESC, cf[10016]")
    assert query == Query(
        Or((
            And((Not(Clause("a", "=", (Value("b"),))),
                 Clause("c", "IN", (Value("d"), Value("e", quoted=True)), is_list=True))),
            Clause("f", "IS", (Value("empty"),)),
        )),
        (Sort("g", "DESC"), Sort("cf[10016]")),
    )
    assert parse("x not in f(1, 'a b')").where == Clause("x", "NOT IN",
                                                         (Function("f", ("1", "a b")),))
    assert parse('summary ~ "say \\"hi\\"\\u0021"').where == Clause(
        "summary", "~", (Value('say "hi"!', quoted=True),))
    assert parse("").where is None and parse("order by key").order == (Sort("key"),)


def test_is_bounded() -> None:
    assert not is_bounded(parse(""))
    assert not is_bounded(parse("ORDER BY created DESC"))
    assert is_bounded(parse("project = SHOP ORDER BY created DESC"))
    assert is_bounded(parse("assignee IS EMPTY"))


def test_values_are_parameters() -> None:
    where, params = jql.compile(parse("summary ~ \"x'; DROP TABLE issues; --\" AND "
                                      "assignee = \"O'Brien\""),
                                now=NOW, caller_id=CALLER, world=WORLD)
    assert "DROP" not in where and "Brien" not in where
    assert params == ["%x';%", "%DROP%", "%TABLE%", "%issues;%", "%--%", "O'Brien", "O'Brien",
                      "O'Brien"]


def _error(text: str) -> str:
    with pytest.raises(JqlError) as caught:
        query = parse(text)
        jql.compile(query, now=NOW, caller_id=CALLER, world=WORLD)
        order_by(query, world=WORLD)
    return str(caught.value)


VALID = ("The valid operators are '=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', 'NOT IN', "
         "'IS' and 'IS NOT'.")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # syntax (Jira's own parser tests, TestJqlParsing)
        ("a=b c=d", "Error in the JQL Query: Expecting either 'OR' or 'AND' but got 'c'. "
                    "(line 1, character 5)"),
        ("project = SHOP status = Done", "Error in the JQL Query: Expecting either 'OR' or "
                                         "'AND' but got 'status'. (line 1, character 16)"),
        # Cloud says "Error in JQL Query" (sic) when the operand is missing
        ("a=!", "Error in JQL Query: Expecting either a value, list or function but got "
                "'!'. You must surround '!' in quotation marks to use it as a value. "
                "(line 1, character 3)"),
        ("a=", "Error in JQL Query: Expecting either a value, list or function before the end "
               "of the query."),
        ("a", f"Error in the JQL Query: Expecting operator before the end of the query. {VALID}"),
        ("a blah >", f"Error in the JQL Query: Expecting operator but got 'blah'. {VALID} "
                     "(line 1, character 3)"),
        ("a =a and j not is empty", "Error in the JQL Query: Expecting 'IN' but got 'is'. "
                                    "(line 1, character 16)"),
        ("project = SHOP AND", "Error in the JQL Query: Expecting a field name at the end of "
                               "the query."),
        ("(a=b and c = d", "Error in the JQL Query: Expecting ')' before the end of the query."),
        ("a =b order summary", "Error in the JQL Query: Expecting 'by' but got 'summary'. "
                               "(line 1, character 12)"),
        ("a =b order by asc", "Error in the JQL Query: Expecting a field name but got 'asc'. "
                              "You must surround 'asc' in quotation marks to use it as a field "
                              "name. (line 1, character 15)"),
        ("a =b order by ajsks blah", "Error in the JQL Query: Expecting either 'ASC' or 'DESC' "
                                     "but got 'blah'. (line 1, character 21)"),
        ("order by a desc d", "Error in the JQL Query: Expecting ',' but got 'd'. "
                              "(line 1, character 17)"),
        ("cf[ = 9", "Error in the JQL Query: Expecting a custom field id (a positive number) "
                    "but got '='. (line 1, character 5)"),
        ("cf[29829 = world", "Error in the JQL Query: Expecting ']' but got '='. "
                             "(line 1, character 10)"),
        ("k = func(abc, jk!)", "Error in the JQL Query: Expecting ')' or ',' but got '!'. "
                               "(line 1, character 17)"),
        ("comment ~ 'test", "Error in the JQL Query: The quoted string 'test' has not been "
                            "completed. (line 1, character 11)"),
        ("comment ~ '", "Error in the JQL Query: The quoted string has not been completed. "
                        "(line 1, character 11)"),
        ("mine{www = qwwr", "Error in the JQL Query: The character '{' is a reserved JQL "
                            "character. You must enclose it in a string or use the escape "
                            "'\\u007b' instead. (line 1, character 5)"),
        ("summary ~ 'a\\qb'", "Error in the JQL Query: '\\q' is an illegal JQL escape "
                              "sequence. The valid escape sequences are \\', \\\", \\t, \\n, "
                              "\\r, \\\\, '\\ ' and \\uXXXX. (line 1, character 13)"),
        ("status = Open AND\nfoo bar", "Error in the JQL Query: Expecting operator but got "
                                       f"'bar'. {VALID} (line 2, character 5)"),
        ("(" * 70 + "a = b" + ")" * 70, "Error in the JQL Query: The query nests parentheses "
                                        "or NOT more than 64 levels deep."),
        # fields, operators, values
        ("foo = bar", "Field 'foo' does not exist or you do not have permission to view it."),
        ("status = Bogus", "The value 'Bogus' does not exist for the field 'status'."),
        ("status = 999", "A value with ID '999' does not exist for the field 'status'."),
        ("type = Spike", "The value 'Spike' does not exist for the field 'type'."),
        ("priority in (High, Urgent)", "The value 'Urgent' does not exist for the field "
                                       "'priority'."),
        ("resolution = Fixed", "The value 'Fixed' does not exist for the field 'resolution'."),
        ("statusCategory = Doing", "The value 'Doing' does not exist for the field "
                                   "'statusCategory'."),
        ("summary = x", "The operator '=' is not supported by the 'summary' field."),
        ("text !~ x", "The operator '!~' is not supported by the 'text' field."),
        ("labels > x", "The operator '>' is not supported by the 'labels' field."),
        ("key is empty", "The operator 'is' is not supported by the 'key' field."),
        ("key in (SHOP-1, EMPTY)", "The field 'key' does not support searching for EMPTY "
                                   "values."),
        ("created > EMPTY", "The operator '>' does not support searching for EMPTY values on "
                            "the field 'created'."),
        ("assignee is acc-ben", "The operator 'is' only supports searching for EMPTY values."),
        ("status in Open", "Operator 'in' does not support the non-list value '\"Open\"' for "
                           "field 'status'."),
        ("status = (Open, Done)", "Operator '=' does not support the list value '(Open, Done)' "
                                  "for field 'status'."),
        ("created > tomorrow", "Date value 'tomorrow' for field 'created' is invalid. Valid "
                               "formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', "
                               "'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', "
                               "'4w 2d'."),
        ("duedate = '2025-02-30'", "Date value '2025-02-30' for field 'duedate' is invalid."),
        ("assignee = bogus()", "Unable to find JQL function 'bogus()'."),
        ("status = currentUser()", "A value provided by the function 'currentUser' is invalid "
                                   "for the field 'status'."),
        ("created > now('-1d')", "Function 'now' expected '0' arguments but received '1'."),
        ("created > startOfDay('x')", "Duration for function 'startOfDay' should have the "
                                      "format (+/-)n(yMwdm), e.g -1M for 1 month earlier."),
        ("key = foo", "The issue key 'foo' for field 'key' is invalid."),
        ("summary ~ ''", "The field 'summary' does not support searching for an empty string."),
        ("cf[10016] > lots", "The value 'lots' is not a valid number for the field "
                             "'cf[10016]'."),
        ("ORDER BY labels", "Not able to sort using field 'labels'."),
        ("project = SHOP ORDER BY bogus", "Not able to sort using field 'bogus'."),
    ],
)
def test_errors(text: str, message: str) -> None:
    assert _error(text).startswith(message)
