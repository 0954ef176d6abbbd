"""Rows -> Jira's JSON (platform v2/v3, Agile 1.0), one function per resource.

Every resource carries its absolute ``self`` under the app's public base (the proxy passes
it), as Jira's do and as the ``jira`` library follows. ``adf``: v3 renders rich text as ADF
documents, v2 as wiki text. Every standard field is present, ``null`` or ``[]`` when empty
(the ``jira`` library raises on a missing one).
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from replicas.runtime.db import one, rows

from .formats import adf_to_text, jira_time
from .world import AGENT_ID, data

Row = dict[str, Any]


def api(base: str, version: str) -> str:
    return f"{base}/rest/api/{version}"


def _time(value: str | None) -> str | None:
    return jira_time(value) if value else None


def text(stored: str | None, adf: bool) -> Any:
    if stored is None:
        return None
    doc = orjson.loads(stored)
    return doc if adf else adf_to_text(doc)


def user(row: Row | None, base: str, version: str) -> Row | None:
    """A person as an issue, comment, worklog, history or watch list shows them (Jira's
    UserDetails: no locale)."""
    if row is None:
        return None
    return {"self": f"{api(base, version)}/user?accountId={row['account_id']}",
            "accountId": row["account_id"], "accountType": "atlassian",
            "emailAddress": row["email"], "displayName": row["display_name"],
            "active": bool(row["active"]), "timeZone": row["time_zone"], "avatarUrls": {}}


def account(row: Row | None, base: str, version: str) -> Row | None:
    """A user as the user operations (myself, user search) and leads show them (Jira's
    User: with the locale)."""
    shown = user(row, base, version)
    return None if shown is None or row is None else {**shown, "locale": row["locale"]}


def status(name: str, base: str, version: str) -> Row:
    sid, _, category = next(s for s in data()["statuses"] if s[1] == name)
    cid, key, cname, color = next(c for c in data()["status_categories"] if c[1] == category)
    return {"self": f"{api(base, version)}/status/{sid}", "id": str(sid), "name": name,
            "description": "", "iconUrl": "",
            "statusCategory": {"self": f"{api(base, version)}/statuscategory/{cid}",
                               "id": cid, "key": key, "colorName": color, "name": cname}}


def named(kind: str, table: str, name: str | None, base: str, version: str) -> Row | None:
    if name is None:
        return None
    found = next(x for x in data()[table] if x[1] == name)
    return {"self": f"{api(base, version)}/{kind}/{found[0]}", "id": str(found[0]),
            "name": name}


def issue_type(name: str, base: str, version: str) -> Row:
    found = next(t for t in data()["issue_types"] if t[1] == name)
    return {"self": f"{api(base, version)}/issuetype/{found[0]}", "id": str(found[0]),
            "name": name, "subtask": found[2], "hierarchyLevel": found[3], "description": "",
            "iconUrl": ""}


def project(row: Row, base: str, version: str) -> Row:
    return {"self": f"{api(base, version)}/project/{row['id']}", "id": str(row["id"]),
            "key": row["key"], "name": row["name"], "projectTypeKey": "software",
            "simplified": False, "avatarUrls": {}}


def component(row: Row, base: str, version: str) -> Row:
    return {"self": f"{api(base, version)}/component/{row['id']}", "id": str(row["id"]),
            "name": row["name"], "description": row["description"]}


def fix_version(row: Row, base: str, version: str) -> Row:
    return {"self": f"{api(base, version)}/version/{row['id']}", "id": str(row["id"]),
            "name": row["name"], "archived": bool(row["archived"]),
            "released": bool(row["released"]), "description": row["description"],
            "projectId": row["project_id"],
            **{k: row[c] for k, c in (("releaseDate", "release_date"),
                                      ("startDate", "start_date")) if row[c] is not None}}


def sprint(row: Row, base: str) -> Row:
    return {"id": row["id"], "self": f"{base}/rest/agile/1.0/sprint/{row['id']}",
            "state": row["state"], "name": row["name"], "goal": row["goal"],
            "originBoardId": row["board_id"], "startDate": _time(row["start_date"]),
            "endDate": _time(row["end_date"]), "completeDate": _time(row["complete_date"])}


def comment(row: Row, people: dict[int, Row], base: str, version: str, adf: bool) -> Row:
    """A comment; ``people`` has its author and its last editor by id."""
    rendered = user(people[row["author_id"]], base, version)
    editor = row.get("update_author_id")
    return {"self": f"{api(base, version)}/issue/{row['issue_id']}/comment/{row['id']}",
            "id": str(row["id"]), "author": rendered,
            "updateAuthor": user(people[editor], base, version) if editor else rendered,
            "body": text(row["body"], adf), "created": _time(row["created"]),
            "updated": _time(row["updated_at"]), "jsdPublic": True}


# What an attachment's rendering reads (not its bytes).
ATTACHMENT_COLUMNS = "id, issue_id, author_id, filename, mime_type, size, created"


def attachment(row: Row, author: Row | None, base: str, version: str) -> Row:
    """An attachment as the issue's ``attachment`` field and the upload's answer show it
    (Jira's Attachment: the id a string, the author's UserDetails); ``content`` downloads
    it."""
    return {"self": f"{api(base, version)}/attachment/{row['id']}", "id": str(row["id"]),
            "filename": row["filename"], "author": user(author, base, version),
            "created": _time(row["created"]), "size": row["size"],
            "mimeType": row["mime_type"],
            "content": f"{api(base, version)}/attachment/content/{row['id']}"}


def attachment_metadata(row: Row, author: Row | None, base: str, version: str) -> Row:
    """An attachment as GET /attachment/{id} gives it (Jira's AttachmentMetadata: the id a
    number, the author a User)."""
    return {**attachment(row, author, base, version), "id": row["id"],
            "author": account(author, base, version)}


def history(row: Row, author: Row | None, base: str, version: str) -> Row:
    """A changelog entry: who changed what when."""
    return {"id": str(row["id"]), "author": user(author, base, version),
            "created": _time(row["created"]), "items": orjson.loads(row["items"])}


def link_type(name: str, base: str, version: str) -> Row:
    lid, _, inward, outward = next(t for t in data()["link_types"] if t[1] == name)
    return {"id": str(lid), "name": name, "inward": inward, "outward": outward,
            "self": f"{api(base, version)}/issueLinkType/{lid}"}


def _brief(row: Row, base: str, version: str) -> Row:
    """An issue as links and sub-task lists show it."""
    return {"id": str(row["id"]), "key": row["key"],
            "self": f"{api(base, version)}/issue/{row['id']}",
            "fields": {"summary": row["summary"], "status": status(row["status"], base, version),
                       "priority": named("priority", "priorities", row["priority"], base,
                                          version),
                       "issuetype": issue_type(row["issue_type"], base, version)}}


def _links(db: sqlite3.Connection, row: Row, base: str, version: str) -> list[Row]:
    """The issue's links from its side: where it is the source (inward) the other issue is
    the link's outwardIssue (A blocks B shows B on A), and the other way round."""
    out = []
    for link in rows(db, "SELECT * FROM issue_links WHERE ? IN (inward_id, outward_id) "
                     "ORDER BY id", (row["id"],)):
        side, other = (("outwardIssue", link["outward_id"]) if link["inward_id"] == row["id"]
                       else ("inwardIssue", link["inward_id"]))
        found = one(db, "SELECT * FROM issues WHERE id = ?", (other,))
        assert found is not None
        out.append({"id": str(link["id"]), "self": f"{api(base, version)}/issueLink/{link['id']}",
                    "type": link_type(link["link_type"], base, version),
                    side: _brief(found, base, version)})
    return out


def _users(db: sqlite3.Connection, ids: set[int]) -> dict[int, Row]:
    found = [i for i in ids if i is not None]
    marks = ",".join("?" * len(found))
    return {u["id"]: u for u in rows(db, f"SELECT * FROM users WHERE id IN ({marks})",
                                     found)} if found else {}


def comments(db: sqlite3.Connection, listed: list[Row], base: str, version: str,
             adf: bool) -> list[Row]:
    """Comment rows as Jira's comments, each with its author and last editor."""
    people = _users(db, {c["author_id"] for c in listed}
                    | {c["update_author_id"] for c in listed})
    return [comment(c, people, base, version, adf) for c in listed]


def attachments(db: sqlite3.Connection, listed: list[Row], base: str, version: str
                ) -> list[Row]:
    """Attachment rows as Jira's attachments, each with its author."""
    people = _users(db, {a["author_id"] for a in listed})
    return [attachment(a, people.get(a["author_id"]), base, version) for a in listed]


def issue(db: sqlite3.Connection, row: Row, base: str, version: str) -> Row:
    """An issue with all its standard fields (and the custom ones), as GET issue gives it."""
    adf = version == "3"
    people = _users(db, {row["assignee_id"], row["reporter_id"]})
    proj = one(db, "SELECT * FROM projects WHERE id = ?", (row["project_id"],))
    assert proj is not None
    listed = {table: [r for r in rows(db, f"SELECT * FROM {table} WHERE id IN (SELECT value "
                                      f"FROM json_each(?)) ORDER BY name", (row[column],))]
              for table, column in (("components", "components"),
                                    ("versions", "fix_versions"))}
    found_sprint = one(db, "SELECT * FROM sprints WHERE id = ?", (row["sprint_id"],)) \
        if row["sprint_id"] else None
    parent = one(db, "SELECT id, key, summary, status FROM issues WHERE id = ?",
                 (row["parent_id"],)) if row["parent_id"] else None
    watch = one(db, "SELECT count(*) AS n, max(user_id = ?) AS me FROM watchers WHERE "
                "issue_id = ?", (AGENT_ID, row["id"]))
    listed_comments = comments(db, rows(db, "SELECT * FROM comments WHERE issue_id = ? "
                                        "ORDER BY id", (row["id"],)), base, version, adf)
    fields: Row = {
        "summary": row["summary"], "description": text(row["description"], adf),
        "issuetype": issue_type(row["issue_type"], base, version),
        "project": project(proj, base, version),
        "status": status(row["status"], base, version),
        "resolution": named("resolution", "resolutions", row["resolution"], base, version),
        "priority": named("priority", "priorities", row["priority"], base, version),
        "assignee": user(people.get(row["assignee_id"]), base, version),
        "reporter": user(people.get(row["reporter_id"]), base, version),
        "creator": user(people.get(row["reporter_id"]), base, version),
        "labels": orjson.loads(row["labels"]),
        "components": [component(c, base, version) for c in listed["components"]],
        "fixVersions": [fix_version(v, base, version) for v in listed["versions"]],
        "versions": [], "environment": None, "duedate": row["due_date"],
        "created": _time(row["created"]), "updated": _time(row["updated_at"]),
        "resolutiondate": _time(row["resolution_date"]),
        "timetracking": {k: v for k, v in (("originalEstimateSeconds",
                                            row["original_estimate_s"]),
                                           ("remainingEstimateSeconds",
                                            row["remaining_estimate_s"]),
                                           ("timeSpentSeconds", row["time_spent_s"] or None))
                         if v is not None},
        "watches": {"self": f"{api(base, version)}/issue/{row['key']}/watchers",
                    "watchCount": watch["n"] if watch else 0,
                    "isWatching": bool(watch and watch["me"])},
        "comment": {"comments": listed_comments, "maxResults": len(listed_comments),
                    "total": len(listed_comments), "startAt": 0},
        "issuelinks": _links(db, row, base, version),
        "subtasks": [_brief(r, base, version) for r in rows(
            db, "SELECT * FROM issues WHERE parent_id = ? AND issue_type = 'Sub-task' "
            "ORDER BY id", (row["id"],))],
        "attachment": attachments(db, rows(db, f"SELECT {ATTACHMENT_COLUMNS} FROM attachments "
                                           "WHERE issue_id = ? ORDER BY id", (row["id"],)),
                                  base, version),
        "customfield_10016": row["story_points"],
        "customfield_10020": [sprint(found_sprint, base)] if found_sprint else None,
        "customfield_10030": {"value": row["severity"]} if row["severity"] else None,
    }
    if parent is not None:
        fields["parent"] = {"id": str(parent["id"]), "key": parent["key"],
                            "self": f"{api(base, version)}/issue/{parent['id']}",
                            "fields": {"summary": parent["summary"],
                                       "status": status(parent["status"], base, version)}}
    return {"expand": "renderedFields,names,schema,operations,editmeta,changelog,"
                      "versionedRepresentations", "id": str(row["id"]),
            "self": f"{api(base, version)}/issue/{row['id']}", "key": row["key"],
            "fields": fields}
