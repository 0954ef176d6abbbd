"""The HTML pages: recent episodes (``/``) and one episode's timeline (``/episodes/{id}``),
the operator's; an episode's page also opens with its signed link."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from workgym_core.pages import PAGE_HEADERS

from . import render
from .api import LimitQuery, episode_timeline
from .auth import OperatorPageDep, ReaderPageDep
from .deps import StoreDep

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
def episode_page(access: ReaderPageDep, episode_id: str, store: StoreDep) -> HTMLResponse:
    return html(render.episode(episode_timeline(store, episode_id), link=access.link))
