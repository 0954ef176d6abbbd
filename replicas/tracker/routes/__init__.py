"""The tracker's Jira Cloud REST API, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    agile,
    attachments,
    filters,
    issues,
    meta,
    projects,
    relations,
    search,
    session,
    site,
    worklogs,
)
from .common import VERSIONS

router = APIRouter()
# The platform API under each version's prefix: /rest/api/3 documented (Jira Cloud's
# current), /rest/api/2 and /rest/api/latest the same routes (text bodies), undocumented.
for version in VERSIONS:
    for module in (site, projects, search, filters, issues, meta, relations, worklogs,
                   attachments):
        router.include_router(module.router, prefix=f"/rest/api/{version}",
                              include_in_schema=version == VERSIONS[0])
router.routes.extend(agile.router.routes)
router.routes.extend(session.router.routes)
# The browser's pages (replicas/tracker/pages): HTML, outside the agent's OpenAPI.
from ..pages import router as pages  # noqa: E402 - after the API's routes

router.routes.extend(pages.routes)

TAGS = [
    {"name": "site", "description": "Server info, you, fields, users, the catalogues."},
    {"name": "projects", "description": "Projects, their components and versions (and, "
                                        "for project administrators, creating and editing "
                                        "them)."},
    {"name": "search", "description": "JQL search."},
    {"name": "filters", "description": "Saved searches: yours, your favourites."},
    {"name": "issues", "description": "Issues, transitions, assignment, comments, create "
                                      "and edit metadata."},
    {"name": "links", "description": "Issue links, remote links, watchers, worklogs."},
    {"name": "attachments", "description": "Files attached to issues: add, read, download, "
                                           "delete."},
    {"name": "agile", "description": "Boards, their issues and backlog, sprints."},
    {"name": "session", "description": "Cookie login (rest/auth/1/session)."},
]
