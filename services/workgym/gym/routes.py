"""HTTP routes of the gym API.

Each route names the principal it serves (:mod:`.auth`): the operator's API key creates
and forks episodes (each counted against its quotas), reads full reports, the task catalogue
and the fault kinds, and controls faults; an episode's token reaches that episode's status
and ``finish`` only (403 ``operator_only`` elsewhere), and gets no task, seed or verifier
detail back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Header, Path, Query, Response

from workgym_core.errors import NotFound
from workgym_core.trajectory import TrajectoryStep
from workgym_proxy.faults import PLUGINS

from ..envversion import current
from ..presets import fault_presets
from ..tasks import TaskDetail, TaskSummary
from .auth import AccessDep, Anyone, OperatorDep, ServiceDep, operator_only
from .docs import responses
from .models import (
    EpisodeCreate,
    EpisodeCreated,
    EpisodeForked,
    EpisodeStatus,
    EpisodeView,
    FinishAck,
    FinishRequest,
    TokenRefresh,
    TokenRefreshed,
)
from .toolsets import SEPARATOR, ToolSet

EpisodeId = Annotated[str, Path(max_length=64, description="The episode's id.")]

router = APIRouter(prefix="/v1")


ToolsChoice = Annotated[Literal["reference", "inline"], Query(
    description="inline: the answer carries the tool schemas; reference (the default): only "
    "where they are (tools_url) and their ETag, for a client that holds them already.")]


@router.post("/episodes", status_code=201, operation_id="create_episode",
             response_model=EpisodeCreated,
             summary="Create an isolated, seeded episode of a task (operator).",
             responses=responses(401, 403, 404, 422, 429, 502, 503))
async def create_episode(body: EpisodeCreate, service: ServiceDep, operator: OperatorDep,
                         tools: ToolsChoice = "reference") -> Response:
    return _created(*await service.create(body, operator.owner), tools)


def _created(created: EpisodeCreated, toolset: ToolSet, tools: ToolsChoice) -> Response:
    """A created (or forked) episode's 201, its tools inline if asked for."""
    answer: dict[str, Any] = created.model_dump(exclude={"tools"})
    if tools == "inline":  # serialised once per set of apps, spliced in as it is
        answer["tools"] = orjson.Fragment(toolset.json)
    return Response(orjson.dumps(answer), status_code=201, media_type="application/json")


@router.get("/tools/{apps}", operation_id="get_tools", dependencies=[Anyone],
            summary="The tools of an episode of these apps (comma-separated, in the task's "
            "order), as an episode's tools_url names them; cacheable by their ETag.",
            response_model=list[dict[str, Any]],
            responses={**responses(401, 404, 502, 503), 304: {"description": "Not modified."}})
async def get_tools(apps: Annotated[str, Path(max_length=200)], service: ServiceDep,
                    if_none_match: Annotated[str | None, Header()] = None) -> Response:
    toolset = await service.toolset(service.served(apps.split(SEPARATOR)))
    headers = {"etag": toolset.etag, "cache-control": "no-cache"}
    if if_none_match is not None and toolset.etag in (t.strip() for t in
                                                        if_none_match.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(toolset.json, media_type="application/json", headers=headers)


@router.post("/episodes/{episode_id}/fork", status_code=201, operation_id="fork_episode",
             response_model=EpisodeForked,
             summary="A new episode in this one's state now: its apps' worlds, clock, steps "
             "and trajectory, scripted actors and fault state, with tokens of its own; the two "
             "then diverge, and each is finished and scored on its own (operator).",
             responses=responses(401, 403, 404, 409, 410, 429, 502, 503))
async def fork_episode(episode_id: EpisodeId, access: AccessDep, service: ServiceDep,
                       operator: OperatorDep, tools: ToolsChoice = "reference") -> Response:
    return _created(*await service.fork(access.record), tools)


@router.get("/episodes/{episode_id}", operation_id="get_episode",
            summary="An episode's status and steps for its agent; also its task, seed and "
            "report for the operator.",
            responses=responses(401, 404, 410, 502, 503))
async def get_episode(episode_id: EpisodeId, access: AccessDep,
                      service: ServiceDep) -> EpisodeView | EpisodeStatus:
    return service.view(access.record, access.operator)


@router.post("/episodes/{episode_id}/finish", operation_id="finish_episode",
             summary="End the episode and score what changed: the report for the operator, "
             "an acknowledgement without verifier detail for the agent.",
             response_model=dict[str, Any] | FinishAck,
             responses=responses(401, 404, 409, 410, 422, 502, 503))
async def finish_episode(episode_id: EpisodeId, access: AccessDep, service: ServiceDep,
                         body: FinishRequest | None = None) -> dict[str, Any] | FinishAck:
    report = await service.finish(access.record, body.answer if body else None)
    if access.operator:
        return report
    return FinishAck(episode_id=access.record.id, steps=int(report.get("steps", 0)))


@router.get("/episodes/{episode_id}/trajectory", operation_id="get_trajectory",
            summary="The episode's steps as the proxy recorded them: each request, its "
            "answer and the faults it met (operator).",
            responses=responses(401, 403, 404, 410, 502, 503))
async def get_trajectory(episode_id: EpisodeId, access: AccessDep,
                         service: ServiceDep) -> list[TrajectoryStep]:
    if not access.operator:
        raise operator_only()
    return await service.registry.trajectory(episode_id)


@router.delete("/episodes/{episode_id}", status_code=204, operation_id="delete_episode",
               summary="Drop an episode and reclaim its state (operator).",
               responses=responses(401, 403, 404, 410, 502, 503))
async def delete_episode(episode_id: EpisodeId, access: AccessDep, service: ServiceDep,
                         operator: OperatorDep) -> Response:
    await service.delete(access.record)
    return Response(status_code=204)


@router.post("/episodes/{episode_id}/token", operation_id="refresh_token",
             summary="Mint a new bearer token with the refresh token (after token_expired).",
             responses=responses(401, 409, 410, 422, 502, 503))
async def refresh_token(episode_id: EpisodeId, body: TokenRefresh,
                        service: ServiceDep) -> TokenRefreshed:
    return TokenRefreshed(token=await service.registry.refresh(episode_id, body.refresh_token))


control = APIRouter(prefix="/v1/control")
_CONTROL = responses(401, 403, 404, 410, 422, 503)


@control.get("/episodes/{episode_id}/faults", operation_id="list_faults",
             summary="The episode's fault plan (operator).", responses=_CONTROL)
async def list_faults(episode_id: EpisodeId, service: ServiceDep,
                      operator: OperatorDep) -> list[dict[str, Any]]:
    return await service.registry.faults(episode_id)


@control.post("/episodes/{episode_id}/faults", status_code=201, operation_id="add_fault",
              summary="Add a fault to the episode's plan, effective on the next request "
              "(operator).", responses=_CONTROL)
async def add_fault(episode_id: EpisodeId, fault: dict[str, Any], service: ServiceDep,
                    operator: OperatorDep) -> list[dict[str, Any]]:
    record = await service.registry.get(episode_id)
    plan = await service.registry.faults(episode_id)
    added = await service.checked_plan(list(record.apps), [fault], [])
    plan = [*plan, *added]
    await service.registry.set_faults(episode_id, plan)
    return plan


@control.delete("/episodes/{episode_id}/faults/{index}", operation_id="remove_fault",
                summary="Remove the fault at ``index`` from the episode's plan (operator).",
                responses=_CONTROL)
async def remove_fault(episode_id: EpisodeId,
                       index: Annotated[int, Path(ge=0, le=1000, description="Plan position.")],
                       service: ServiceDep, operator: OperatorDep) -> list[dict[str, Any]]:
    plan = await service.registry.faults(episode_id)
    if not index < len(plan):
        raise NotFound(f"no fault at index {index} (plan has {len(plan)})",
                       code="fault_not_found", field="index")
    del plan[index]
    await service.registry.set_faults(episode_id, plan)
    return plan


@router.get("/faults", operation_id="list_fault_kinds",
            summary="Every fault plugin with its config schema, and the presets (operator).",
            responses=responses(401, 403))
async def list_fault_kinds(operator: OperatorDep) -> dict[str, Any]:
    return {"plugins": {kind: cls.model_json_schema() for kind, cls in PLUGINS.items()},
            "presets": fault_presets()}


@router.get("/version", operation_id="get_version",
            summary="The environment version this server runs (operator): a content hash of "
            "its code, world data, task files and fault plans (workgym.envversion).",
            responses=responses(401, 403))
async def get_version(operator: OperatorDep) -> dict[str, object]:
    return current().as_dict()


@router.get("/tasks", operation_id="list_tasks",
            summary="The task catalogue (operator).", responses=responses(401, 403))
async def list_tasks(service: ServiceDep, operator: OperatorDep) -> list[TaskSummary]:
    return [task.summary() for task in service.catalogue]


@router.get("/tasks/{task_id:path}", operation_id="get_task",
            summary="One task: what an agent is told, never how it is checked (operator).",
            responses=responses(401, 403, 404))
async def get_task(task_id: str, service: ServiceDep, operator: OperatorDep) -> TaskDetail:
    return service.catalogue.get(task_id).detail()


@router.get("/apps/{app}/openapi.json", operation_id="get_app_openapi", dependencies=[Anyone],
            summary="The agent-facing OpenAPI document of an app.",
            responses=responses(401, 404, 502, 503))
async def get_app_openapi(app: Annotated[str, Path(max_length=64)],
                          service: ServiceDep) -> dict[str, Any]:
    return await service.openapi(app)
