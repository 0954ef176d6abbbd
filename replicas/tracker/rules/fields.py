"""Issue fields as the REST API writes them, to the issues table's columns: ``fields``
(``{x: v}``, shorthand for ``update: {x: [{"set": v}]}``) and ``update`` (ordered ``set`` /
``add`` / ``remove`` operations per field), validated as Jira does: every field on the
screen, each op one the field supports, each value valid; all errors at once (a field ->
message map, Jira's 400), nothing written on any error.

Values: ``{"id"|"name"|"key"|"accountId"|"value": ...}`` objects as Jira's, text as v2
strings or v3 ADF documents (``adf``), custom fields by their ids (world.yaml).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from replicas.runtime.db import one

from ..errors import JiraError
from ..formats import FormatError, adf_text, parse_duration, text_to_adf, validate_adf
from ..world import data

Row = dict[str, Any]
SEVERITIES = ("S1", "S2", "S3", "S4")  # the options of customfield_10030, Severity
SEVERITY_IDS = {str(i): s for i, s in enumerate(SEVERITIES, start=10100)}  # option ids
LISTS = {"labels": "labels", "components": "components", "fixVersions": "fix_versions"}


@dataclass
class Draft:
    """The columns an edit writes, and the field errors met so far."""

    issue: Mapping[str, Any]
    columns: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def current(self, column: str) -> Any:
        return self.columns.get(column, self.issue.get(column))


def _named(db: sqlite3.Connection, table: str, value: Any, project_id: int) -> int | None:
    """A component or version by {"id"} or {"name"} in the project."""
    if not isinstance(value, Mapping):
        return None
    if "id" in value:
        found = one(db, f"SELECT id FROM {table} WHERE id = ? AND project_id = ?",
                    (int(value["id"]) if str(value["id"]).isdigit() else -1, project_id))
    else:
        found = one(db, f"SELECT id FROM {table} WHERE name = ? AND project_id = ?",
                    (str(value.get("name")), project_id))
    return None if found is None else int(found["id"])


def _choice(kind: str, options: list[str],
            ids: Mapping[str, str] | None = None) -> Callable[[Any], str]:
    """A value of ``options`` named by {"name"} or {"value"}, or by {"id"} (``ids``: id ->
    name)."""
    def read(value: Any) -> str:
        name = value.get("name", value.get("value")) if isinstance(value, Mapping) else value
        if name is None and isinstance(value, Mapping) and ids:
            name = ids.get(str(value.get("id")))
        if name not in options:
            raise ValueError(f"Specify a valid value for {kind}")
        return str(name)
    return read


# Jira's text fields (description, environment, comments, text custom fields) hold at most
# this many characters (jira.text.field.character.limit's default); the summary, SUMMARY_MAX.
TEXT_MAX = 32_767
SUMMARY_MAX = 255


class TextTooLong(ValueError):
    """A text field past TEXT_MAX characters, in Jira's words."""

    def __init__(self) -> None:
        super().__init__(f"The entered text is too long. It exceeds the allowed limit of "
                         f"{TEXT_MAX:,} characters.")


def _text(adf: bool) -> Callable[[Any], str | None]:
    def read(value: Any) -> str | None:
        if value is None:
            return None
        if adf:
            try:
                doc = validate_adf(value)
            except FormatError as error:
                raise ValueError("Operation value must be an Atlassian Document (see the "
                                 "Atlassian Document Format)") from error
            if len(adf_text(doc)) > TEXT_MAX:
                raise TextTooLong
            return orjson.dumps(doc).decode()
        if not isinstance(value, str):
            raise ValueError("Operation value must be a string")
        if len(value) > TEXT_MAX:
            raise TextTooLong
        return orjson.dumps(text_to_adf(value)).decode()
    return read


def _summary(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("You must specify a summary of the issue.")
    if len(value) > SUMMARY_MAX or "\n" in value:
        raise ValueError(f"Summary must be less than {SUMMARY_MAX} characters and on one line.")
    return value


def _points(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Operation value must be a number")
    return float(value)


def parse_date(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise ValueError("Error parsing date string: " + str(value)) from None


def setters(adf: bool) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """Single-value fields: API name -> (column, value reader raising ValueError)."""
    w = data()
    return {
        "summary": ("summary", _summary),
        "description": ("description", _text(adf)),
        "priority": ("priority", _choice("priority", [p[1] for p in w["priorities"]],
                                         {str(p[0]): p[1] for p in w["priorities"]})),
        "resolution": ("resolution", lambda v: None if v is None else _choice(
            "resolution", [r[1] for r in w["resolutions"]],
            {str(r[0]): r[1] for r in w["resolutions"]})(v)),
        "duedate": ("due_date", parse_date),
        "customfield_10016": ("story_points", _points),
        "customfield_10030": ("severity", lambda v: None if v is None else _choice(
            "Severity", list(SEVERITIES), SEVERITY_IDS)(v)),
    }


def _list_op(db: sqlite3.Connection, draft: Draft, name: str, op: str, value: Any,
             project_id: int) -> None:
    column = LISTS[name]
    items: list[Any] = orjson.loads(draft.current(column))
    if name == "labels":
        values = value if op == "set" else [value]
        if not isinstance(values, list) or not all(
                isinstance(v, str) and v and " " not in v for v in values):
            raise ValueError("The label can't contain spaces.")
        found: list[Any] = values
    else:
        table = "components" if name == "components" else "versions"
        values = value if op == "set" else [value]
        if not isinstance(values, list):
            raise ValueError(f"Operation value must be a list of {name}")
        found = []
        for v in values:
            ref = _named(db, table, v, project_id)
            if ref is None and op != "remove":
                raise ValueError(f"{'Component' if table == 'components' else 'Version'} "
                                 f"{orjson.dumps(v).decode()} is not valid.")
            found.append(ref)
    if op == "set":
        items = list(dict.fromkeys(found))
    elif op == "add":
        items += [v for v in found if v not in items]
    else:
        items = [v for v in items if v not in found]
    draft.columns[column] = orjson.dumps(sorted(items) if name == "labels" else items).decode()


def _user(db: sqlite3.Connection, value: Any, _: int) -> int | None:
    if value is None:
        return None
    account = value.get("accountId") if isinstance(value, Mapping) else None
    found = one(db, "SELECT id FROM users WHERE account_id = ? AND active", (str(account),))
    if found is None:
        raise ValueError(f"User '{account}' cannot be assigned issues.")
    return int(found["id"])


def _parent(db: sqlite3.Connection, value: Any, project_id: int) -> int | None:
    if value is None or (isinstance(value, Mapping) and value.get("none")):
        return None
    ref = value.get("key", value.get("id")) if isinstance(value, Mapping) else None
    found = one(db, "SELECT id FROM issues WHERE (key = ? OR CAST(id AS TEXT) = ?) AND "
                "project_id = ?", (str(ref), str(ref), project_id))
    if found is None:
        raise ValueError(f"Could not find issue by id or key: {ref}")
    return int(found["id"])


def _sprint(db: sqlite3.Connection, value: Any, _: int) -> int | None:
    if value is None:
        return None
    found = one(db, "SELECT id, state FROM sprints WHERE id = ?",
                (value if isinstance(value, int) and not isinstance(value, bool) else -1,))
    if found is None:
        raise ValueError("Number value expected as the Sprint id.")
    if found["state"] == "closed":
        raise ValueError("Issue can be assigned only to active or future sprints.")
    return int(found["id"])


# Fields naming another record: API name -> (column, reader of the reference).
REFERENCES: dict[str, tuple[str, Callable[[sqlite3.Connection, Any, int], int | None]]] = {
    "assignee": ("assignee_id", _user),
    "parent": ("parent_id", _parent),
    "customfield_10020": ("sprint_id", _sprint),
}


def apply(db: sqlite3.Connection, issue: Mapping[str, Any], project_id: int, *,
          fields: Mapping[str, Any], update: Mapping[str, list[Mapping[str, Any]]],
          screen: frozenset[str], adf: bool) -> dict[str, Any]:
    """The columns ``fields`` and ``update`` write on ``issue``; JiraError(400) with every
    field's error, nothing applied, when any is refused."""
    draft = Draft(issue)
    for name in sorted(set(fields) & set(update)):
        draft.errors[name] = f"Field '{name}' cannot be set in both 'fields' and 'update'."
    ops = [(n, "set", v) for n, v in fields.items()]
    ops += [(n, *next(iter(o.items()))) for n, listed in update.items() for o in listed]
    single = setters(adf)
    for name, op, value in ops:
        if name in draft.errors:
            continue
        if name not in screen or name == "status":
            draft.errors[name] = (f"Field '{name}' cannot be set. It is not on the "
                                  "appropriate screen, or unknown.")
            continue
        try:
            if name in LISTS and op in ("set", "add", "remove"):
                _list_op(db, draft, name, op, value, project_id)
            elif name in single and op == "set":
                column, read = single[name]
                draft.columns[column] = read(value)
            elif name in REFERENCES and op == "set":
                column, read_ref = REFERENCES[name]
                draft.columns[column] = read_ref(db, value, project_id)
            elif name == "timetracking" and op in ("set", "edit"):
                for key, column in (("originalEstimate", "original_estimate_s"),
                                    ("remainingEstimate", "remaining_estimate_s")):
                    if isinstance(value, Mapping) and key in value:
                        draft.columns[column] = parse_duration(str(value[key]))
            elif name in single or name in LISTS or name == "timetracking":
                draft.errors[name] = f"Operation '{op}' is not supported for field '{name}'."
            else:
                draft.errors[name] = (f"Field '{name}' cannot be set. It is not on the "
                                      "appropriate screen, or unknown.")
        except (ValueError, FormatError) as error:
            draft.errors[name] = str(error)
    if draft.errors:
        raise JiraError(400, [], draft.errors, code="field_invalid")
    return draft.columns


EDIT_SCREEN = frozenset({"summary", "description", "priority", "labels", "components",
                         "fixVersions", "duedate", "customfield_10016", "customfield_10030",
                         "timetracking", "comment", "assignee", "parent",
                         "customfield_10020"})
"""The fields an edit may set (the edit screen); transitions have their own (workflows)."""
