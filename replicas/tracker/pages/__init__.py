"""The tracker's pages, server-rendered HTML on the episode's own state, through the same
proxy, recorded step by step like any other request: the sprint board (board.py), the issue
page and what is done on it (issue.py; comments and work log, activity.py; links and
watchers, relations.py), issue search by JQL (search.py) and create issue (create.py). Every
write is the API's rule. Outside the agent's OpenAPI: they are pages, not API operations."""

from __future__ import annotations

from fastapi import APIRouter

from . import activity, board, create, issue, relations, search

router = APIRouter(include_in_schema=False)
for part in (board, issue, activity, relations, search, create):
    router.routes.extend(part.router.routes)

__all__ = ["router"]
