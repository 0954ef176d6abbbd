"""HTTP routes of the gym API."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response

from ..registry import EpisodeRecord
from ..runtime.errors import Unauthorized
from ..tasks import TaskDetail, TaskSummary
from .models import EpisodeCreate, EpisodeCreated, EpisodeView, FinishRequest
from .service import EpisodeService


async def _service(request: Request) -> EpisodeService:
    return request.app.state.service  # type: ignore[no-any-return]


async def _base_url(request: Request) -> str:
    configured = request.app.state.settings.public_url
    return (configured or str(request.base_url)).rstrip("/")


async def _authorized_episode(
    episode_id: str, service: Annotated[EpisodeService, Depends(_service)],
    authorization: Annotated[str | None, Header(description="'Bearer <episode token>'")] = None,
) -> EpisodeRecord:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("missing bearer token: send 'Authorization: Bearer <episode token>'",
                           code="missing_token")
    return await service.registry.authorize(episode_id, token.strip())


ServiceDep = Annotated[EpisodeService, Depends(_service)]
BaseUrlDep = Annotated[str, Depends(_base_url)]
EpisodeDep = Annotated[EpisodeRecord, Depends(_authorized_episode)]

router = APIRouter(prefix="/v1")


@router.post("/episodes", status_code=201, operation_id="create_episode",
             summary="Create an isolated, seeded episode of a task.")
async def create_episode(body: EpisodeCreate, service: ServiceDep,
                         base_url: BaseUrlDep) -> EpisodeCreated:
    return await service.create(body, base_url)


@router.get("/episodes/{episode_id}", operation_id="get_episode",
            summary="An episode's status, step count and, once finished, its report.")
async def get_episode(record: EpisodeDep, service: ServiceDep,
                      base_url: BaseUrlDep) -> EpisodeView:
    return service.view(record, base_url)


@router.post("/episodes/{episode_id}/finish", operation_id="finish_episode",
             summary="End the episode and score what changed.")
async def finish_episode(record: EpisodeDep, service: ServiceDep,
                         body: FinishRequest | None = None) -> dict[str, Any]:
    return await service.finish(record, body.answer if body else None)


@router.delete("/episodes/{episode_id}", status_code=204, operation_id="delete_episode",
               summary="Drop an episode and reclaim its state.")
async def delete_episode(record: EpisodeDep, service: ServiceDep) -> Response:
    await service.delete(record)
    return Response(status_code=204)


@router.get("/tasks", operation_id="list_tasks", summary="The task catalogue.")
async def list_tasks(service: ServiceDep) -> list[TaskSummary]:
    return [task.summary() for task in service.catalogue]


@router.get("/tasks/{task_id:path}", operation_id="get_task",
            summary="One task: what an agent is told, never how it is checked.")
async def get_task(task_id: str, service: ServiceDep) -> TaskDetail:
    return service.catalogue.get(task_id).detail()


@router.get("/apps/{app}/openapi.json", operation_id="get_app_openapi",
            summary="The agent-facing OpenAPI document of an app.")
async def get_app_openapi(app: str, service: ServiceDep) -> dict[str, Any]:
    return await service.openapi(app)
