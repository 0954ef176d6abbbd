"""Issues as Jira keeps them: create (project, type, summary required; the workflow's
initial status; the reporter watches), edit (the edit screen's fields, Edit issues
permission), assign (Assign issues; the assignee must be assignable; ``-1`` the project's
lead), transition (the workflow engine: conditions, screen, validators, post-functions; the
resolution and its date follow), every change in the changelog."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import one, rows

from ..errors import ISSUE_NOT_FOUND, JiraError
from ..formats import adf_text
from ..world import data, status_category
from . import fields, permissions, workflows
from .workflows import Facts

Row = dict[str, Any]
# The changelog's names of the columns it records: (field, fieldtype).
LOGGED = {"summary": ("summary", "jira"), "description": ("description", "jira"),
          "status": ("status", "jira"), "resolution": ("resolution", "jira"),
          "priority": ("priority", "jira"), "assignee_id": ("assignee", "jira"),
          "labels": ("labels", "jira"), "components": ("Component", "jira"),
          "fix_versions": ("Fix Version", "jira"), "sprint_id": ("Sprint", "custom"),
          "story_points": ("Story point estimate", "custom"),
          "parent_id": ("IssueParentAssociation", "jira"), "due_date": ("duedate", "jira")}


def get(db: sqlite3.Connection, id_or_key: str, caller_id: int) -> Row:
    """The issue named by id or key that the caller may browse, else Jira's 404."""
    found = one(db, "SELECT * FROM issues WHERE key = ? OR CAST(id AS TEXT) = ?",
                (id_or_key.upper(), id_or_key))
    if found is None or not permissions.has(db, found["project_id"], caller_id,
                                            "BROWSE_PROJECTS"):
        raise JiraError(404, [ISSUE_NOT_FOUND], code="issue_not_found")
    return found


def workflow_of(issue: Mapping[str, Any], db: sqlite3.Connection) -> workflows.Workflow:
    """The workflow the issue runs in (its project's scheme, its type)."""
    key = one(db, "SELECT key FROM projects WHERE id = ?", (issue["project_id"],))
    assert key is not None
    return workflows.flow(key["key"], issue["issue_type"])


def _named(db: sqlite3.Connection, column: str, value: Any) -> tuple[str | None, str | None]:
    """A changed value as the changelog shows it: (id or raw value, display string)."""
    if value is None:
        return None, None
    w = data()
    catalogue = {"status": w["statuses"], "resolution": w["resolutions"],
                 "priority": w["priorities"]}
    if column in catalogue:
        return str(next(x[0] for x in catalogue[column] if x[1] == value)), str(value)
    lookups = {"assignee_id": "SELECT account_id AS id, display_name AS name FROM users "
                              "WHERE id = ?",
               "sprint_id": "SELECT id, name FROM sprints WHERE id = ?",
               "parent_id": "SELECT id, key AS name FROM issues WHERE id = ?"}
    if column in lookups:
        found = one(db, lookups[column], (value,))
        return (str(found["id"]), str(found["name"])) if found else (str(value), None)
    if column == "labels":
        return None, " ".join(orjson.loads(value))
    return None, str(value)


_MEMBERS = {"components": "components", "fix_versions": "versions"}


def _items(db: sqlite3.Connection, column: str, old: Any, new: Any) -> list[Row]:
    field, kind = LOGGED[column]
    if column in _MEMBERS:  # one item per component or version added or removed
        before, after = set(orjson.loads(old or "[]")), set(orjson.loads(new or "[]"))
        names = {r["id"]: r["name"] for r in rows(
            db, f"SELECT id, name FROM {_MEMBERS[column]}")}
        return ([{"field": field, "fieldtype": kind, "from": str(i), "fromString": names.get(i),
                  "to": None, "toString": None} for i in sorted(before - after)]
                + [{"field": field, "fieldtype": kind, "from": None, "fromString": None,
                    "to": str(i), "toString": names.get(i)} for i in sorted(after - before)])
    (old_id, old_text), (new_id, new_text) = _named(db, column, old), _named(db, column, new)
    return [{"field": field, "fieldtype": kind, "from": old_id, "fromString": old_text,
             "to": new_id, "toString": new_text}]


def log(db: sqlite3.Connection, issue: Mapping[str, Any], columns: Mapping[str, Any],
        author_id: int, now: datetime) -> None:
    """One changelog entry for the logged columns that changed, each item as Jira shows it
    (ids in from/to, names in fromString/toString; one item per component or version)."""
    items = [item for c, v in columns.items() if c in LOGGED and issue.get(c) != v
             for item in _items(db, c, issue.get(c), v)]
    if items:
        sql.insert(db, "changelog", {"issue_id": issue["id"], "author_id": author_id,
                                     "created": iso(now),
                                     "items": orjson.dumps(items).decode()})


def write_as(db: sqlite3.Connection, issue: Row, columns: Mapping[str, Any], caller_id: int,
             now: datetime) -> Row:
    """Change the issue's columns as ``caller_id``, each change in its history."""
    changed = {c: v for c, v in columns.items() if issue.get(c) != v}
    if changed:
        log(db, issue, changed, caller_id, now)
        sql.update(db, "issues", issue["id"], {**changed, "updated_at": iso(now)})
    found = one(db, "SELECT * FROM issues WHERE id = ?", (issue["id"],))
    assert found is not None
    return found


def create(db: sqlite3.Connection, given: Mapping[str, Any], update: Mapping[str, Any],
           caller_id: int, now: datetime, *, adf: bool) -> Row:
    """A new issue from the API's ``fields`` and ``update``; 400 with every field error."""
    errors: dict[str, str] = {}
    ref = given.get("project") or {}
    project = one(db, "SELECT * FROM projects WHERE key = ? OR CAST(id AS TEXT) = ?",
                  (str(ref.get("key", "")).upper(), str(ref.get("id", ""))))
    if project is None:
        errors["project"] = "Specify a valid project ID or key"
    kind = given.get("issuetype") or {}
    types = {str(t[0]): t[1] for t in data()["issue_types"]}
    issue_type = types.get(str(kind.get("id"))) or (
        kind.get("name") if kind.get("name") in types.values() else None)
    if issue_type is None:
        errors["issuetype"] = "Specify an issue type"
    if not str(given.get("summary") or "").strip():
        errors["summary"] = "You must specify a summary of the issue."
    if errors:
        raise JiraError(400, [], errors, code="create_invalid")
    assert project is not None and issue_type is not None
    permissions.require(db, project["id"], caller_id, "create")
    rest = {k: v for k, v in given.items() if k not in ("project", "issuetype")}
    blank: Row = {"labels": "[]", "components": "[]", "fix_versions": "[]"}
    columns = fields.apply(db, blank, project["id"], fields=rest, update=update,
                           screen=fields.EDIT_SCREEN, adf=adf)
    flow = workflows.flow(project["key"], issue_type)
    number = project["issue_counter"] + 1
    sql.update(db, "projects", project["id"], {"issue_counter": number})
    stamp = iso(now)
    issue_id = sql.insert(db, "issues", {
        "key": f"{project['key']}-{number}", "project_id": project["id"],
        "issue_type": issue_type, "status": flow.initial, "priority": "Medium",
        "reporter_id": caller_id, "created": stamp, "updated_at": stamp,
        "labels": "[]", "components": "[]", "fix_versions": "[]", **columns})
    sql.insert(db, "watchers", {"issue_id": issue_id, "user_id": caller_id})
    found = one(db, "SELECT * FROM issues WHERE id = ?", (issue_id,))
    assert found is not None
    return found


def delete(db: sqlite3.Connection, issue: Row, caller_id: int, *, subtasks: bool) -> None:
    """Delete the issue and what hangs on it (Delete issues); one with sub-tasks only with
    ``subtasks`` (they go too)."""
    permissions.require(db, issue["project_id"], caller_id, "delete")
    children = [r["id"] for r in rows(db, "SELECT id FROM issues WHERE parent_id = ? AND "
                                      "issue_type = 'Sub-task'", (issue["id"],))]
    if children and not subtasks:
        raise JiraError(400, ["The issue has subtasks. Set deleteSubtasks=true to delete "
                              "them with it."], code="delete_has_subtasks")
    for target in [*children, issue["id"]]:
        for table in ("comments", "worklogs", "watchers", "changelog", "remote_links",
                      "attachments"):
            db.execute(f"DELETE FROM {table} WHERE issue_id = ?", (target,))
        db.execute("DELETE FROM issue_links WHERE ? IN (inward_id, outward_id)", (target,))
        db.execute("UPDATE issues SET parent_id = NULL WHERE parent_id = ?", (target,))
        db.execute("DELETE FROM issues WHERE id = ?", (target,))


def edit(db: sqlite3.Connection, issue: Row, given: Mapping[str, Any],
         update: Mapping[str, Any], caller_id: int, now: datetime, *, adf: bool) -> Row:
    """Change fields (not the status: that is a transition)."""
    permissions.editable(db, issue["project_id"], caller_id,
                         sorted(set(given) | set(update) - {"comment"}))
    columns = fields.apply(db, issue, issue["project_id"], fields=given,
                           update={k: v for k, v in update.items() if k != "comment"},
                           screen=fields.EDIT_SCREEN, adf=adf)
    _comments(db, issue, update, caller_id, now, adf=adf)
    return write_as(db, issue, columns, caller_id, now)


def _comments(db: sqlite3.Connection, issue: Row, update: Mapping[str, Any], caller_id: int,
              now: datetime, *, adf: bool) -> None:
    """The comments an ``update`` adds (``{"comment": [{"add": {"body": ...}}]}``), as an
    edit or a transition takes them."""
    ops = update.get("comment", [])
    if not isinstance(ops, list) or not all(isinstance(op, Mapping) and set(op) == {"add"}
                                            and isinstance(op["add"], Mapping) for op in ops):
        raise JiraError(400, [], {"comment": "Operation value must be a list of "
                                             "{\"add\": {\"body\": ...}}."},
                        code="comment_op")
    for op in ops:
        add_comment(db, issue, op["add"].get("body"), caller_id, now, adf=adf)


def assign(db: sqlite3.Connection, issue: Row, account: str | None, caller_id: int,
           now: datetime) -> Row:
    """``account`` (an accountId, None: unassign, "-1": the project's default assignee, its
    lead)."""
    permissions.require(db, issue["project_id"], caller_id, "assign")
    if account is None:
        return write_as(db, issue, {"assignee_id": None}, caller_id, now)
    if account == "-1":
        lead = one(db, "SELECT lead_id FROM projects WHERE id = ?", (issue["project_id"],))
        assert lead is not None
        user_id = lead["lead_id"]
    else:
        found = one(db, "SELECT id FROM users WHERE account_id = ? AND active", (account,))
        if found is None or not permissions.has(db, issue["project_id"], found["id"],
                                                "ASSIGNABLE_USER"):
            raise JiraError(400, [], {"assignee": f"User '{account}' cannot be assigned "
                                      "issues."}, code="assignee_not_assignable")
        user_id = found["id"]
    return write_as(db, issue, {"assignee_id": user_id}, caller_id, now)


def available(db: sqlite3.Connection, issue: Row, caller_id: int) -> list[workflows.Transition]:
    """The transitions the caller sees (none without Transition issues)."""
    roles = permissions.roles_of(db, issue["project_id"], caller_id)
    if "TRANSITION_ISSUES" not in permissions.permissions_of(roles):
        return []
    return workflows.available(workflow_of(issue, db), issue["status"], roles)


def _facts(db: sqlite3.Connection, issue: Row, columns: Mapping[str, Any],
           comment: bool) -> Facts:
    links = [(r["link_type"], "outward" if r["inward_id"] == issue["id"] else "inward",
              status_category(r["status"])) for r in rows(
        db, "SELECT l.*, o.status FROM issue_links l JOIN issues o ON o.id = CASE WHEN "
        "l.inward_id = ? THEN l.outward_id ELSE l.inward_id END WHERE ? IN "
        "(l.inward_id, l.outward_id)", (issue["id"], issue["id"]))]
    open_subtasks = len([r for r in rows(db, "SELECT status FROM issues WHERE parent_id = ? "
                                         "AND issue_type = 'Sub-task'", (issue["id"],))
                         if status_category(r["status"]) != "done"])
    return Facts(resolution=columns.get("resolution", issue["resolution"]),
                 fields={**issue, **columns}, comment=comment, open_subtasks=open_subtasks,
                 links=tuple(links))


def transition(db: sqlite3.Connection, issue: Row, transition_id: int,
               given: Mapping[str, Any], update: Mapping[str, Any], caller_id: int,
               now: datetime, *, adf: bool) -> Row:
    """Run a transition: Jira's order (valid now, screen, fields, validators, status and
    post-functions); on any refusal nothing changes."""
    permissions.require(db, issue["project_id"], caller_id, "transition")
    roles = permissions.roles_of(db, issue["project_id"], caller_id)
    chosen = workflows.find(workflow_of(issue, db), issue["status"], transition_id, roles)
    workflows.screen_check(chosen, set(given) | set(update))
    columns = fields.apply(db, issue, issue["project_id"],
                           fields={k: v for k, v in given.items() if k != "comment"},
                           update={k: v for k, v in update.items() if k != "comment"},
                           screen=chosen.screen, adf=adf)
    workflows.validate(chosen, _facts(db, issue, columns, "comment" in update))
    columns.update(workflows.post_functions(
        chosen, resolution=columns.get("resolution", issue["resolution"]),
        assignee_id=columns.get("assignee_id", issue["assignee_id"]), caller_id=caller_id))
    resolved = columns.get("resolution", issue["resolution"])
    columns["resolution_date"] = (issue["resolution_date"] or iso(now)) if resolved else None
    _comments(db, issue, update, caller_id, now, adf=adf)
    return write_as(db, issue, columns, caller_id, now)


def comment_body(body: Any, *, adf: bool) -> str:
    """A comment's body as stored (a document), from v2 text or a v3 document; an empty or
    invalid one is Jira's 400."""
    try:
        text = fields.setters(adf)["description"][1](body)
    except fields.TextTooLong as error:
        raise JiraError(400, [], {"comment": str(error)}, code="text_too_long") from None
    except ValueError:
        text = None
    if not text or not adf_text(orjson.loads(text)).strip():
        raise JiraError(400, [], {"comment": "Comment body is not valid!"},
                        code="comment_invalid")
    return str(text)


def add_comment(db: sqlite3.Connection, issue: Row, body: Any, caller_id: int,
                now: datetime, *, adf: bool) -> Row:
    """A comment (Add comments permission; v2 text or a v3 document)."""
    user = one(db, "SELECT display_name FROM users WHERE id = ?", (caller_id,))
    permissions.require(db, issue["project_id"], caller_id, "comment",
                        name=user["display_name"] if user else "")
    text = comment_body(body, adf=adf)
    stamp = iso(now)
    comment_id = sql.insert(db, "comments", {"issue_id": issue["id"], "author_id": caller_id,
                                             "body": text, "created": stamp, "updated_at": stamp})
    sql.update(db, "issues", issue["id"], {"updated_at": stamp})
    found = one(db, "SELECT * FROM comments WHERE id = ?", (comment_id,))
    assert found is not None
    return found


def replace_in_issues(db: sqlite3.Connection, column: str, old: int, new: int | None,
                      caller_id: int, now: datetime, *, unresolved: bool = False) -> int:
    """Replace the component or version ``old`` with ``new`` (None: drop it) in ``column``
    (components, fix_versions) of every issue that has it (``unresolved``: those without a
    resolution only), each change in its history; how many issues changed."""
    changed = rows(db, f"SELECT * FROM issues WHERE EXISTS (SELECT 1 FROM json_each({column}) "
                   f"WHERE value = ?){' AND resolution IS NULL' if unresolved else ''} "
                   "ORDER BY id", (old,))
    for issue in changed:
        kept = {i for i in orjson.loads(issue[column]) if i != old} | ({new} if new else set())
        write_as(db, issue, {column: orjson.dumps(sorted(kept)).decode()}, caller_id, now)
    return len(changed)
