"""The helpdesk's Zendesk Support API v2, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    actions,
    config,
    exports,
    knowledge,
    people,
    records,
    search,
    tickets,
    uploads,
    views,
)

router = APIRouter()
# Flattened rather than include_router'ed: each nesting level of routers costs
# route-matching time on every request (area tags/responses are already on each route).
for module in (tickets, actions, people, views, search, config, knowledge, records,
               exports, uploads):
    router.routes.extend(module.router.routes)

TAGS = [
    {"name": "tickets", "description": "Tickets: create, update with comments, merge, macros, "
     "audits, tags, SLA metric events, jobs."},
    {"name": "users", "description": "Users (end users and agents), identities, "
     "organizations, groups and memberships."},
    {"name": "views", "description": "Views: the team's saved ticket lists."},
    {"name": "search", "description": "The search API and its query language."},
    {"name": "business rules", "description": "Ticket fields, macros, triggers, automations, "
     "SLA policies and business-hours schedules."},
    {"name": "exports", "description": "Incremental exports: the tickets and users created "
     "or changed since a time (cursor or time based)."},
    {"name": "help center", "description": "Help-center articles (the policies) and "
     "satisfaction ratings."},
]

# The browser's pages (replicas/helpdesk/pages): HTML, outside the agent's OpenAPI.
from ..pages import router as pages  # noqa: E402 - after the API's routes, which match first

router.routes.extend(pages.routes)
