"""The board's routes::

    GET  /boards                 every board
    GET  /boards/{board}         the board: a scrum board's active sprint, a kanban board's
                                 unfinished work and the last two weeks' finished
    POST /boards/{board}/moves   a card moved: issue (key), transition (id), resolution and
                                 comment where the transition asks for them -> the board

A move is the workflow's transition (rules/issues.transition), as the API's: the same
conditions, validators, screen and post-functions, the same history; a refused one changes
nothing and says why on a page.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.clock import iso
from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect

from ..errors import JiraError
from ..rules import boards, issues
from ..world import board_columns, data, status_category
from .common import CALLER, PAGES, form, page_router
from .issue import run_transition

router = page_router()
BoardId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]
RECENT = timedelta(days=14)  # how long a kanban board shows finished work


def _cards(episode: EpisodeDep, board: dict[str, Any]) -> tuple[dict[str, Any] | None,
                                                                list[dict[str, Any]]]:
    """The board's sprint (scrum) and the issues it shows."""
    if board["type"] == "scrum":
        sprint = one(episode.db, "SELECT * FROM sprints WHERE board_id = ? AND state = 'active'",
                     (board["id"],))
        found = rows(episode.db, "SELECT * FROM issues WHERE sprint_id = ? ORDER BY id",
                     (sprint["id"] if sprint else -1,))
        return sprint, found
    since = iso(episode.now() - RECENT)
    found = rows(episode.db, "SELECT * FROM issues WHERE project_id = ? ORDER BY id",
                 (board["project_id"],))
    return None, [i for i in found if status_category(i["status"]) != "done"
                  or (i["resolution_date"] or i["updated_at"]) >= since]


def _card(episode: EpisodeDep, issue: dict[str, Any], people: dict[int, str]) -> dict[str, Any]:
    moves = [{"id": t.id, "name": t.name, "to": t.to,
              "resolution": "resolution" in t.screen,
              "comment": any(v.get("comment_required") for v in t.validators)}
             for t in issues.available(episode.db, issue, CALLER)]
    return {"key": issue["key"], "summary": issue["summary"], "type": issue["issue_type"],
            "priority": issue["priority"], "status": issue["status"],
            "resolution": issue["resolution"],
            "assignee": people.get(issue["assignee_id"]) if issue["assignee_id"] else None,
            "points": issue["story_points"], "moves": moves}


@router.get("/boards")
async def boards_page(request: Request, episode: EpisodeDep) -> Response:
    return PAGES.page(request, "boards.html", boards=boards.visible(episode.db, CALLER))


@router.get("/boards/{board_id}")
async def board_page(request: Request, board_id: BoardId, episode: EpisodeDep) -> Response:
    board = boards.board(episode.db, board_id, CALLER)
    sprint, found = _cards(episode, board)
    people = {u["id"]: u["display_name"] for u in rows(episode.db, "SELECT * FROM users")}
    columns = [{"name": name, "cards": [_card(episode, i, people) for i in found
                                        if i["status"] in {s for _, s in statuses}]}
               for name, statuses in board_columns()]
    return PAGES.page(request, "board.html", board=board, sprint=sprint, columns=columns,
                      resolutions=[r[1] for r in data()["resolutions"]],
                      moved=request.query_params.get("moved", "")[:40])


@router.post("/boards/{board_id}/moves")
@performs("do_transition")  # of the issue picked (run_transition names it)
async def move(request: Request, board_id: BoardId, episode: EpisodeDep) -> Response:
    board = boards.board(episode.db, board_id, CALLER)
    posted = await form(request)
    if not posted.get("issue"):
        raise JiraError(400, ["Choose an issue and a transition."], code="move_incomplete")
    issue = issues.get(episode.db, posted.get("issue"), CALLER)
    if issue["project_id"] != board["project_id"]:
        raise JiraError(400, [f"{issue['key']} is not on this board."], code="move_foreign")
    run_transition(request, episode, issue, posted)
    return redirect(request, f"/boards/{board_id}", moved=issue["key"])
