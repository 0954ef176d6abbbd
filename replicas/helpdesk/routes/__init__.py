"""The helpdesk API, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import customers, knowledge, team, tickets

router = APIRouter()
# Flattened rather than include_router'ed: each nesting level of routers costs
# route-matching time on every request (area tags/responses are already on each route).
for module in (tickets, customers, knowledge, team):
    router.routes.extend(module.router.routes)

TAGS = [
    {"name": "tickets", "description": "Tickets, comments, merges, macros and CSAT."},
    {"name": "customers", "description": "Customers and organizations."},
    {"name": "knowledge", "description": "Help-center articles (policies) and macros."},
    {"name": "team", "description": "Support agents and groups."},
]
