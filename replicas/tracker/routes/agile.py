"""The Agile API 1.0: boards, their sprints, sprints, moving issues to a sprint or the
backlog."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..rules import sprints
from .common import CALLER, Base

router = APIRouter(prefix="/rest/agile/1.0", tags=["agile"])
BoardId = Annotated[Id, Path(description="The board's id.")]
SprintId = Annotated[Id, Path(description="The sprint's id.")]
Json = Annotated[dict[str, Any], Body(description="Jira's request body.")]
STATE_ORDER = {"closed": 0, "active": 1, "future": 2}


def _page(values: list[Any]) -> dict[str, Any]:
    return {"maxResults": max(50, len(values)), "startAt": 0, "total": len(values),
            "isLast": True, "values": values}


@router.get("/board", operation_id="get_boards", summary="Get boards")
async def boards(episode: EpisodeDep, base: Base) -> Response:
    """Every board (scrum boards have sprints, kanban boards not)."""
    found = rows(episode.db, "SELECT b.*, p.key, p.name AS project_name FROM boards b JOIN "
                 "projects p ON p.id = b.project_id ORDER BY b.id")
    return ok(_page([{"id": b["id"], "self": f"{base}/rest/agile/1.0/board/{b['id']}",
                      "name": b["name"], "type": b["type"],
                      "location": {"projectId": b["project_id"], "projectKey": b["key"],
                                   "projectName": b["project_name"]}} for b in found]))


@router.get("/board/{board_id}/sprint", operation_id="get_board_sprints",
            summary="Get a board's sprints")
async def board_sprints(board_id: BoardId, episode: EpisodeDep, base: Base,
                        state: Annotated[str | None, Query(max_length=40, description=(
                            "Only these states, comma-separated: future, active, closed."))]
                        = None) -> Response:
    """The board's sprints, closed first, then active, then future."""
    wanted = set((state or "future,active,closed").split(","))
    found = [s for s in rows(episode.db, "SELECT * FROM sprints WHERE board_id = ? ORDER BY "
                             "id", (board_id,)) if s["state"] in wanted]
    found.sort(key=lambda s: STATE_ORDER[s["state"]])
    return ok(_page([render.sprint(s, base) for s in found]))


@router.get("/sprint/{sprint_id}", operation_id="get_sprint", summary="Get a sprint")
async def get_sprint(sprint_id: SprintId, episode: EpisodeDep, base: Base) -> Response:
    """One sprint."""
    return ok(render.sprint(sprints.sprint(episode.db, sprint_id), base))


@router.post("/sprint", operation_id="create_sprint", summary="Create a sprint",
             status_code=201)
async def create_sprint(body: Json, episode: EpisodeDep, base: Base) -> Response:
    """A future sprint on a scrum board: {name, originBoardId, startDate?, endDate?, goal?}."""
    return ok(render.sprint(sprints.create(episode.db, body, CALLER), base), 201)


@router.post("/sprint/{sprint_id}", operation_id="partially_update_sprint",
             summary="Partially update a sprint")
async def partially_update(sprint_id: SprintId, body: Json, episode: EpisodeDep,
                           base: Base) -> Response:
    """Change what the body names: start it (state active, with dates) or close it (state
    closed: its unfinished issues go to the backlog)."""
    return ok(render.sprint(sprints.update(episode.db, sprint_id, body, CALLER, episode.now(),
                                           partial=True), base))


@router.put("/sprint/{sprint_id}", operation_id="update_sprint", summary="Update a sprint")
async def update_sprint(sprint_id: SprintId, body: Json, episode: EpisodeDep,
                        base: Base) -> Response:
    """Replace the sprint's fields (absent ones become empty), with the same state rules."""
    return ok(render.sprint(sprints.update(episode.db, sprint_id, body, CALLER, episode.now(),
                                           partial=False), base))


@router.post("/sprint/{sprint_id}/issue", operation_id="move_issues_to_sprint",
             summary="Move issues to a sprint", status_code=204)
async def move_to_sprint(sprint_id: SprintId, body: Json, episode: EpisodeDep) -> Response:
    """{issues: [keys or ids]}: at most 50, into a future or active sprint."""
    sprints.move(episode.db, sprint_id, body.get("issues"), CALLER, episode.now())
    return Response(status_code=204)


@router.post("/backlog/issue", operation_id="move_issues_to_backlog",
             summary="Move issues to the backlog", status_code=204)
async def move_to_backlog(body: Json, episode: EpisodeDep) -> Response:
    """{issues: [keys or ids]}: out of their sprints, at most 50."""
    sprints.move(episode.db, None, body.get("issues"), CALLER, episode.now())
    return Response(status_code=204)
