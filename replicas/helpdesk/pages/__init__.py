"""The helpdesk's pages: the agent workspace in a browser (views, tickets, the reply editor,
macros, merge, people, search, the help center), server-rendered HTML on the episode's own
state, through the same proxy, recorded step by step like any other request. Every form
does what the API does, through the same rules (``rules/``: triggers, SLA, audits). Outside
the agent's OpenAPI: they are pages, not API operations.

Paths follow Zendesk's agent interface (``/agent/...``) and help center (``/hc/...``).
"""

from __future__ import annotations

from fastapi import APIRouter

from . import bulk, help_center, macros, people, search, tickets, views

router = APIRouter()
# bulk before tickets: /agent/tickets/bulk is not a ticket's page
for module in (views, bulk, tickets, macros, search, people, help_center):
    router.routes.extend(module.router.routes)

__all__ = ["router"]
