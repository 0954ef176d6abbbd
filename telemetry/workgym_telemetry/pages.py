"""The HTML pages: recent episodes (``/``) and one episode's timeline (``/episodes/{id}``),
the operator's; an episode's page also opens with its signed link."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from workgym_core.pages import PAGE_HEADERS, wants_html

from . import render
from .api import LimitQuery, episode_timeline
from .auth import OperatorPageDep, ReaderPageDep
from .deps import StoreDep
from .errors import UnknownEpisode

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def html(page: str, status_code: int = 200, headers: dict[str, str] | None = None
         ) -> HTMLResponse:
    return HTMLResponse(page, status_code=status_code, headers={**PAGE_HEADERS, **(headers or {})})


# The filter form sends empty values for "all tasks" and "any outcome".
TaskField = Annotated[str, Query()]
OutcomeField = Annotated[Literal["", "success", "failure"], Query()]


@router.get("/")
def index_page(_: OperatorPageDep, store: StoreDep, task: TaskField = "",
               outcome: OutcomeField = "", limit: LimitQuery = 100) -> HTMLResponse:
    episodes = store.episodes(task=task or None, outcome=outcome or None, limit=limit)
    return html(render.index(episodes, tasks=store.tasks(), task=task or None,
                             outcome=outcome or None))


@router.get("/episodes/{episode_id}")
def episode_page(access: ReaderPageDep, episode_id: str, store: StoreDep,
                 request: Request) -> HTMLResponse:
    """The episode's timeline; an unknown one is a 404 page to a browser (JSON otherwise)."""
    try:
        timeline = episode_timeline(store, episode_id)
    except UnknownEpisode:
        if not wants_html(request.headers.get("accept")):
            raise
        return html(render.unknown_episode(episode_id), status_code=404)
    return html(render.episode(timeline, link=access.link))
