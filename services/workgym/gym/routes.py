"""HTTP routes of the gym API."""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response

from workgym_proxy.faults import PLUGINS, PRESETS

from ..registry import EpisodeRecord
from ..runtime.errors import NotFound, Unauthorized
from ..tasks import TaskDetail, TaskSummary
from .models import (
    EpisodeCreate,
    EpisodeCreated,
    EpisodeView,
    FinishRequest,
    TokenRefresh,
    TokenRefreshed,
)
from .service import EpisodeService, plan_for


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


@router.post("/episodes/{episode_id}/token", operation_id="refresh_token",
             summary="Mint a new bearer token with the refresh token (after token_expired).")
async def refresh_token(episode_id: str, body: TokenRefresh,
                        service: ServiceDep) -> TokenRefreshed:
    return TokenRefreshed(token=await service.registry.refresh(episode_id, body.refresh_token))


async def _control(
    request: Request,
    authorization: Annotated[str | None, Header(description="'Bearer <control token>'")] = None,
) -> None:
    """The fault control API answers the operator's control token, never an agent's."""
    expected = f"Bearer {request.app.state.settings.control_token}"
    if not hmac.compare_digest((authorization or "").encode(), expected.encode()):
        raise Unauthorized("the fault control API needs the control token", code="invalid_token")


control = APIRouter(prefix="/v1/control", dependencies=[Depends(_control)])


@control.get("/episodes/{episode_id}/faults", operation_id="list_faults",
             summary="The episode's fault plan.")
async def list_faults(episode_id: str, service: ServiceDep) -> list[dict[str, Any]]:
    return await service.registry.faults(episode_id)


@control.post("/episodes/{episode_id}/faults", status_code=201, operation_id="add_fault",
              summary="Add a fault to the episode's plan (takes effect on the next request).")
async def add_fault(episode_id: str, fault: dict[str, Any],
                    service: ServiceDep) -> list[dict[str, Any]]:
    plan = await service.registry.faults(episode_id)
    plan = [*plan, *plan_for([fault], [])]
    await service.registry.set_faults(episode_id, plan)
    return plan


@control.delete("/episodes/{episode_id}/faults/{index}", operation_id="remove_fault",
                summary="Remove the fault at ``index`` from the episode's plan.")
async def remove_fault(episode_id: str, index: int,
                       service: ServiceDep) -> list[dict[str, Any]]:
    plan = await service.registry.faults(episode_id)
    if not 0 <= index < len(plan):
        raise NotFound(f"no fault at index {index} (plan has {len(plan)})",
                       code="fault_not_found", field="index")
    del plan[index]
    await service.registry.set_faults(episode_id, plan)
    return plan


@router.get("/faults", operation_id="list_fault_kinds",
            summary="Every fault plugin with its config schema, and the presets.")
async def list_fault_kinds() -> dict[str, Any]:
    return {"plugins": {kind: cls.model_json_schema() for kind, cls in PLUGINS.items()},
            "presets": PRESETS}


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
