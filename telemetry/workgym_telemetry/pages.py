"""The HTML pages: recent episodes (``/``) and one episode's timeline (``/episodes/{id}``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from . import render
from .api import LimitQuery, episode_timeline
from .deps import StoreDep

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

# The filter form sends empty values for "all tasks" and "any outcome".
TaskField = Annotated[str, Query()]
OutcomeField = Annotated[Literal["", "success", "failure"], Query()]


@router.get("/")
def index_page(store: StoreDep, task: TaskField = "", outcome: OutcomeField = "",
               limit: LimitQuery = 100) -> HTMLResponse:
    episodes = store.episodes(task=task or None, outcome=outcome or None, limit=limit)
    return HTMLResponse(render.index(episodes, tasks=store.tasks(), task=task or None,
                                     outcome=outcome or None))


@router.get("/episodes/{episode_id}")
def episode_page(episode_id: str, store: StoreDep) -> HTMLResponse:
    return HTMLResponse(render.episode(episode_timeline(store, episode_id)))
