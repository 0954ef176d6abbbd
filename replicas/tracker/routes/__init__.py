"""The tracker's Jira Cloud REST API, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import issues, search, site

router = APIRouter()
for module in (site, search, issues):
    router.routes.extend(module.router.routes)

TAGS = [
    {"name": "site", "description": "Server info, you, fields, users, projects."},
    {"name": "search", "description": "JQL search."},
    {"name": "issues", "description": "Issues, transitions, assignment, comments."},
]
