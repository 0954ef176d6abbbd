"""The notes API, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import notes, people

router = APIRouter()
for module in (people, notes):  # flattened: nested routers cost matching time per request
    router.routes.extend(module.router.routes)

TAGS = [
    {"name": "people", "description": "The people the company deals with."},
    {"name": "notes", "description": "Notes about them: read, add, edit, delete."},
]
