"""Support agents and groups."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import schemas
from ..schemas import AgentOut, GroupOut

router = APIRouter(tags=["team"])

AgentId = Annotated[Id, Path(description="Id of the agent.")]
GroupId = Annotated[Id, Path(description="Id of the group.")]


@router.get(
    "/agents",
    operation_id="list_agents",
    summary="List support agents",
    response_model=Page[AgentOut],
)
async def list_agents(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    group_id: Annotated[Id | None, Query(description="Only members of this group.")] = None,
    role: Annotated[
        Literal["agent", "lead", "manager"] | None, Query(description="Only this role.")
    ] = None,
    active: Annotated[bool | None, Query(description="Only active (true) or deactivated.")] = None,
    q: Q = None,
) -> Response:
    """Support staff. Agent 1 'AI Agent' is the identity this API acts as."""
    found = Filters()
    found.equal(group_id=group_id, role=role, active=active)
    found.search(q, "name", "email")
    return ok(
        page(
            episode.db,
            "agents",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
            convert=schemas.agent,
        )
    )


@router.get(
    "/agents/{agent_id}", operation_id="get_agent", summary="Get an agent", response_model=AgentOut
)
async def get_agent(agent_id: AgentId, episode: EpisodeDep) -> Response:
    """One support agent, with role and group."""
    return ok(schemas.agent(get_row(episode.db, "agents", agent_id)))


@router.get(
    "/groups", operation_id="list_groups", summary="List groups", response_model=Page[GroupOut]
)
async def list_groups(
    episode: EpisodeDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0
) -> Response:
    """Agent groups tickets are routed to (Support, Billing, Tier 2, Trust & Safety)."""
    return ok(page(episode.db, "groups", [], [], order_by="id", limit=limit, offset=offset))


@router.get(
    "/groups/{group_id}", operation_id="get_group", summary="Get a group", response_model=GroupOut
)
async def get_group(group_id: GroupId, episode: EpisodeDep) -> Response:
    """One group."""
    return ok(get_row(episode.db, "groups", group_id))
