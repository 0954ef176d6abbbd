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
from ..errors import JiraError
from ..rules import boards as boards_rules
from ..rules import sprints
from ..world import board_columns, statuses_in
from .common import CALLER, Base, MaxResults, StartAt, page_bean
from .search import compiled, shown_issues, visible

router = APIRouter(prefix="/rest/agile/1.0", tags=["agile"])
BoardId = Annotated[Id, Path(description="The board's id.")]
SprintId = Annotated[Id, Path(description="The sprint's id.")]
Json = Annotated[dict[str, Any], Body(description="Jira's request body.")]
STATE_ORDER = {"closed": 0, "active": 1, "future": 2}


CAP = 50  # the Agile API's page size cap
Jql = Annotated[str, Query(max_length=5000, description="Only the issues this JQL matches.")]
Fields = Annotated[str | None, Query(max_length=500, description=(
    "Fields to return: *all (default), *navigable, id or names."))]


def _board(row: dict[str, Any], base: str) -> dict[str, Any]:
    return {"id": row["id"], "self": f"{base}/rest/agile/1.0/board/{row['id']}",
            "name": row["name"], "type": row["type"],
            "location": {"projectId": row["project_id"], "projectKey": row["key"],
                         "projectName": row["project_name"]}}


@router.get("/board", operation_id="get_boards", summary="Get boards")
async def boards(episode: EpisodeDep, base: Base, startAt: StartAt = 0,
                 maxResults: MaxResults = CAP,
                 projectKeyOrId: Annotated[str | None, Query(max_length=40, description=(
                     "Only the boards of this project."))] = None,
                 type: Annotated[str | None, Query(pattern="^(scrum|kanban)$", description=(
                     "Only boards of this type."))] = None,
                 name: Annotated[str | None, Query(max_length=200, description=(
                     "Only boards whose name contains this (any case)."))] = None
                 ) -> Response:
    """The boards you may browse (scrum boards have sprints, kanban boards not)."""
    found = [b for b in boards_rules.visible(episode.db, CALLER)
             if (projectKeyOrId is None
                  or projectKeyOrId.upper() in (b["key"], str(b["project_id"])))
             and (type is None or b["type"] == type)
             and (name is None or name.lower() in b["name"].lower())]
    return ok(page_bean([_board(b, base) for b in found], startAt, maxResults, CAP))


@router.get("/board/{board_id}", operation_id="get_board", summary="Get a board")
async def get_board(board_id: BoardId, episode: EpisodeDep, base: Base) -> Response:
    """One board."""
    return ok(_board(boards_rules.board(episode.db, board_id, CALLER), base))


@router.get("/board/{board_id}/configuration", operation_id="get_board_configuration",
            summary="Get a board's configuration")
async def board_configuration(board_id: BoardId, episode: EpisodeDep, base: Base) -> Response:
    """The board's columns: one per status category (To Do, In Progress, Done), each with
    the statuses it shows."""
    board = boards_rules.board(episode.db, board_id, CALLER)
    return ok({"id": board["id"], "name": board["name"], "type": board["type"],
               "self": f"{base}/rest/agile/1.0/board/{board['id']}/configuration",
               "columnConfig": {"constraintType": "none", "columns": [
                   {"name": column, "statuses": [{"id": str(sid), "self": f"{base}/rest/api/2/"
                                                  f"status/{sid}"} for sid, _ in statuses]}
                   for column, statuses in board_columns()]},
               "ranking": {"rankCustomFieldId": 10019}})


@router.get("/board/{board_id}/sprint", operation_id="get_board_sprints",
            summary="Get a board's sprints")
async def board_sprints(board_id: BoardId, episode: EpisodeDep, base: Base,
                        state: Annotated[str | None, Query(max_length=40, description=(
                            "Only these states, comma-separated: future, active, closed."))]
                        = None, startAt: StartAt = 0, maxResults: MaxResults = CAP
                        ) -> Response:
    """The board's sprints, closed first, then active, then future (a kanban board has
    none: 400)."""
    boards_rules.scrum(episode.db, board_id, CALLER)
    wanted = set((state or "future,active,closed").split(","))
    found = [s for s in rows(episode.db, "SELECT * FROM sprints WHERE board_id = ? ORDER BY "
                             "id", (board_id,)) if s["state"] in wanted]
    found.sort(key=lambda s: STATE_ORDER[s["state"]])
    return ok(page_bean([render.sprint(s, base) for s in found], startAt, maxResults, CAP))


def _issues(episode: EpisodeDep, scope: str, params: tuple[Any, ...], query: str,
            fields: str | None, start_at: int, max_results: int, base: str) -> Response:
    """A page of the issues in ``scope`` (SQL) that ``query`` (JQL) matches, as the Agile
    API lists them (under ``issues``, in the query's order, else by rank: id)."""
    where, jql_params, order = compiled(query, episode, bounded=False, unordered="id")
    found = rows(episode.db, f"SELECT * FROM issues WHERE ({scope}) AND ({where}) AND "
                 f"{visible(episode)} ORDER BY {order}", (*params, *jql_params))
    page = page_bean(found, start_at, max_results, CAP, key="issues")
    page["issues"] = shown_issues(episode, page["issues"], fields, base, "2")
    return ok({"expand": "schema,names", **page})


@router.get("/board/{board_id}/issue", operation_id="get_board_issues",
            summary="Get a board's issues")
async def board_issues(board_id: BoardId, episode: EpisodeDep, base: Base, jql: Jql = "",
                       fields: Fields = None, startAt: StartAt = 0,
                       maxResults: MaxResults = CAP) -> Response:
    """Every issue of the board's project."""
    board = boards_rules.board(episode.db, board_id, CALLER)
    return _issues(episode, "project_id = ?", (board["project_id"],), jql, fields, startAt,
                   maxResults, base)


@router.get("/board/{board_id}/backlog", operation_id="get_board_backlog",
            summary="Get a board's backlog")
async def board_backlog(board_id: BoardId, episode: EpisodeDep, base: Base, jql: Jql = "",
                        fields: Fields = None, startAt: StartAt = 0,
                        maxResults: MaxResults = CAP) -> Response:
    """The backlog: the project's unfinished issues in no active or future sprint (scrum
    boards only)."""
    board = boards_rules.board(episode.db, board_id, CALLER)
    if board["type"] != "scrum":
        raise JiraError(400, ["The board does not support the backlog."], code="no_backlog")
    open_ = statuses_in("new", "indeterminate")
    return _issues(episode, "project_id = ? AND coalesce(sprint_id NOT IN (SELECT id FROM "
                   "sprints WHERE state IN ('active', 'future')), 1) AND status IN "
                   f"({','.join('?' * len(open_))})", (board["project_id"], *open_), jql,
                   fields, startAt, maxResults, base)


@router.get("/sprint/{sprint_id}/issue", operation_id="get_sprint_issues",
            summary="Get a sprint's issues")
async def sprint_issues(sprint_id: SprintId, episode: EpisodeDep, base: Base, jql: Jql = "",
                        fields: Fields = None, startAt: StartAt = 0,
                        maxResults: MaxResults = CAP) -> Response:
    """The issues in the sprint."""
    sprints.sprint(episode.db, sprint_id)
    return _issues(episode, "sprint_id = ?", (sprint_id,), jql, fields, startAt, maxResults,
                   base)


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
