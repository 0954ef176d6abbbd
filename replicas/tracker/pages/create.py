"""Create issue (Jira's ``/secure/CreateIssue``)::

    GET  /secure/CreateIssue?project=KEY&type=NAME&parent=KEY   the form (a sub-task's: its
                                                                parent's project and key)
    POST /secure/CreateIssue                                    create -> the new issue

The issue is the API's (``POST /rest/api/2/issue``: rules/issues.create, the create
screen's fields and their rules): project, type, summary, description, priority, assignee,
labels, components (each project's, grouped under it: one of another project's is refused),
parent; what the form leaves empty is not sent.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import Form, performs, redirect, sends

from ..rules import issues, permissions
from ..world import data
from .common import CALLER, PAGES, form, page_router

router = page_router()
Given = Annotated[str, Query(max_length=40)]


@router.get("/secure/CreateIssue")
async def create_page(request: Request, episode: EpisodeDep, project: Given = "",
                      type: Given = "", parent: Given = "") -> Response:
    browsable = permissions.browsable(episode.db, CALLER)
    projects = [p for p in rows(episode.db, "SELECT key, name, id FROM projects ORDER BY key")
                if p["id"] in browsable]
    components = rows(episode.db, "SELECT id, name, project_id FROM components ORDER BY name")
    return PAGES.page(request, "create.html", chosen={"project": project.upper(),
                                                      "type": type, "parent": parent.upper()},
                      projects=projects,
                      components={p["key"]: [c for c in components if c["project_id"] == p["id"]]
                                  for p in projects},
                      types=[t[1] for t in data()["issue_types"]],
                      priorities=[p[1] for p in data()["priorities"]],
                      users=rows(episode.db, "SELECT account_id, display_name FROM users "
                                 "WHERE active ORDER BY display_name"))


def created(posted: Form) -> dict[str, Any]:
    """The API's ``fields`` from the create form (what it leaves empty is not sent)."""
    given: dict[str, Any] = {"project": {"key": posted.get("project")},
                             "issuetype": {"name": posted.get("type")},
                             "summary": posted.get("summary")}
    description = posted.text("description")
    optional = {"description": description if description.strip() else None,
                "priority": {"name": posted.get("priority")} if posted.get("priority") else None,
                "assignee": ({"accountId": posted.get("assignee")} if posted.get("assignee")
                             else None),
                "labels": sorted(set(posted.get("labels").split())) or None,
                "components": [{"id": c} for c in posted.all("components")] or None,
                "parent": {"key": posted.get("parent").upper()} if posted.get("parent") else None}
    return {**given, **{k: v for k, v in optional.items() if v is not None}}


@router.post("/secure/CreateIssue")
@performs("create_issue")
async def create(request: Request, episode: EpisodeDep) -> Response:
    fields = created(await form(request))
    sends(request, {"fields": fields})
    made = issues.create(episode.db, fields, {}, CALLER, episode.now(), adf=False)
    return redirect(request, f"/browse/{made['key']}", done="created")
