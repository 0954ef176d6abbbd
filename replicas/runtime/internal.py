"""The replica's internal /_env routes: episode lifecycle and state snapshots.

Only the gym API and the reward engine call these, with the internal
credential; the proxy never forwards an agent's request here.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from workgym_core.chat import MODEL_PATTERN
from workgym_core.internal import INTERNAL_PREFIX, SNAPSHOT_HEADER, require_internal
from workgym_core.rowops import RowOps

from . import changes
from .setup import apply_ops as apply_row_ops
from .store import EpisodeStore


async def _internal(request: Request) -> None:
    require_internal(request.headers, request.app.state.settings.internal_secret)


def _store(request: Request) -> EpisodeStore:
    store: EpisodeStore = request.app.state.store
    return store


class EpisodeCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    seed: int = Field(ge=0, le=2**31 - 1)
    setup: RowOps = Field(default_factory=list, description="The task's setup.")
    script: dict[str, Any] = Field(default_factory=dict,
                                   description="The task's scripted actors (SPEC.actors).")
    others: dict[str, dict[str, dict[str, Any]]] = Field(
        default_factory=dict, description="Rows other apps of the episode bound before this "
        "one (app -> name -> row): the setup refers to them as $app.name.field.")
    ttl_s: float = Field(3600, gt=0)
    apps: list[str] = Field(default_factory=list, description="Every app of the episode (what "
                            "its scripted actors may read messages about).")
    user: str | None = Field(None, pattern=MODEL_PATTERN, description="The model that words "
                             "what the app's people say (openai:MODEL); none: their scripts.")


class EpisodeFork(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The new episode's.")
    ttl_s: float = Field(3600, gt=0)


class OpsApply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ops: RowOps = Field(min_length=1, max_length=100,
                             description="Row operations of another actor.")


class Mail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mail: list[dict[str, Any]] = Field(min_length=1, max_length=100, description="What "
                                       "another app of the episode sent the world's people.")


class EpisodeCreated(BaseModel):
    episode_id: str
    snapshot_key: str
    vars: dict[str, Any]


health = APIRouter(prefix=INTERNAL_PREFIX)
router = APIRouter(prefix=INTERNAL_PREFIX, dependencies=[Depends(_internal)])


@health.get("/health")
async def get_health(request: Request) -> dict[str, Any]:
    store = _store(request)
    return {"status": "ok", "app": store.spec.name, "episodes": len(store)}


@router.get("/schema")
async def get_schema(request: Request) -> dict[str, list[str]]:
    """The app's tables and columns, which row operations are checked against (a world is
    built, the first time: in a worker thread, as every world)."""
    return await asyncio.to_thread(_store(request).schema)


@router.post("/episodes", status_code=201)
async def create_episode(body: EpisodeCreate, request: Request) -> EpisodeCreated:
    """A new episode; its world is built (a new seed's, a new setup's) in a worker thread,
    the loop serving other requests meanwhile (one built already is handed out at once)."""
    store, setup = _store(request), [op.model_dump() for op in body.setup]
    prepared = store.snapshots.built(body.seed, setup, body.others) or await asyncio.to_thread(
        store.snapshots.prepared, body.seed, setup, body.others)
    episode = store.create(
        body.episode_id, seed=body.seed, setup=setup, script=body.script, others=body.others,
        ttl_s=body.ttl_s, apps=body.apps, prepared=prepared, user=body.user,
    )
    return EpisodeCreated(
        episode_id=episode.id, snapshot_key=episode.snapshot_key, vars=episode.vars
    )


@router.post("/episodes/{episode_id}/fork", status_code=201)
async def fork_episode(episode_id: str, body: EpisodeFork, request: Request) -> EpisodeCreated:
    """A new episode in this one's state now (EpisodeStore.fork); the two then diverge."""
    episode = await _store(request).fork(episode_id, body.episode_id, ttl_s=body.ttl_s)
    return EpisodeCreated(
        episode_id=episode.id, snapshot_key=episode.snapshot_key, vars=episode.vars
    )


@router.get("/episodes/{episode_id}/state/{which}")
async def get_state(
    episode_id: str, which: Literal["initial", "final"], request: Request
) -> Response:
    episode = _store(request).get(episode_id)
    async with episode.lock:
        data = episode.initial if which == "initial" else episode.state()
    return Response(data, media_type="application/vnd.sqlite3",
                    headers={SNAPSHOT_HEADER: episode.snapshot_key})


class Applied(BaseModel):
    changes: list[dict[str, Any]] = Field(description="The rows the operations changed: "
                                          "{table, op, id, ref} (runtime/changes.py).")


@router.post("/episodes/{episode_id}/apply")
async def apply_ops(episode_id: str, body: OpsApply, request: Request) -> Applied:
    """Another actor changes the world (the state_drift fault): row ops at the clock's now.
    Answers the rows they changed (what an agent must read again)."""
    store = _store(request)
    async with store.opened(store.get(episode_id), write=True) as episode:
        apply_row_ops(episode.db, body.ops, episode.now(), seed=episode.seed,
                      bound=episode.vars, others=episode.others,
                      factories=store.spec.factories)
        # Another actor's changes are not the agent's: skip them in the change log.
        found, episode.memory["changes_seq"] = changes.since(
            episode.db, episode.memory.get("changes_seq", 0), store.spec.public_id)
    return Applied(changes=found)


@router.post("/episodes/{episode_id}/mail", status_code=204)
async def deliver_mail(episode_id: str, body: Mail, request: Request) -> Response:
    """Mail another app of the episode sent (its write's ``MAIL_HEADER``), delivered: the
    app's actors read it in ``episode.memory["mail"]``, in the order it was sent."""
    _store(request).get(episode_id).memory.setdefault("mail", []).extend(body.mail)
    return Response(status_code=204)


@router.delete("/episodes/{episode_id}", status_code=204)
async def delete_episode(episode_id: str, request: Request) -> Response:
    _store(request).delete(episode_id)
    return Response(status_code=204)
