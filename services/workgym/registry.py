"""Episodes in Redis: the record, its token, its step counter and its trajectory.

Keys (all expire with the episode):
    wg:ep:{id}    hash   task, seed, token_sha, status, steps, max_steps, apps (JSON),
                         vars (JSON), created_at, expires_at, report (JSON, once finished)
    wg:traj:{id}  list   one JSON TrajectoryStep per agent request

A token is ``<episode id>.<secret>``; Redis keeps only the secret's SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis

from .runtime.errors import Conflict, NotFound, Unauthorized
from .runtime.trajectory import TrajectoryStep

ACTIVE, FINISHING, FINISHED = "active", "finishing", "finished"

# Atomically: check the token, refuse finished episodes and spent budgets, count the step.
_BEGIN_STEP = """
local v = redis.call('HMGET', KEYS[1], 'token_sha', 'status', 'max_steps', 'steps',
                     'apps', 'expires_at')
if not v[1] then return {'missing'} end
if v[1] ~= ARGV[1] then return {'bad_token'} end
if v[2] ~= 'active' then return {v[2]} end
if tonumber(v[4]) >= tonumber(v[3]) then return {'budget'} end
local step = redis.call('HINCRBY', KEYS[1], 'steps', 1)
return {'ok', tostring(step), v[5], v[6]}
"""

# Atomically move an active episode to 'finishing' so no further step is accepted.
_CLAIM_FINISH = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status == 'active' then redis.call('HSET', KEYS[1], 'status', 'finishing') end
return status
"""


def _ep(episode_id: str) -> str:
    return f"wg:ep:{episode_id}"


def _traj(episode_id: str) -> str:
    return f"wg:traj:{episode_id}"


def _sha(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def split_token(token: str) -> tuple[str, str]:
    episode_id, _, secret = token.partition(".")
    if not episode_id or not secret:
        raise Unauthorized("malformed episode token", code="invalid_token")
    return episode_id, secret


@dataclass(frozen=True)
class StepGrant:
    """What the proxy learns when it admits one agent request."""

    episode_id: str
    step: int
    apps: dict[str, str]
    expires_at: float


@dataclass(frozen=True)
class EpisodeRecord:
    id: str
    task: str
    seed: int
    status: str
    steps: int
    max_steps: int
    apps: dict[str, str]
    vars: dict[str, Any]
    created_at: float
    expires_at: float
    report: dict[str, Any] | None

    @classmethod
    def from_hash(cls, episode_id: str, raw: dict[str, str]) -> EpisodeRecord:
        return cls(
            id=episode_id, task=raw["task"], seed=int(raw["seed"]), status=raw["status"],
            steps=int(raw["steps"]), max_steps=int(raw["max_steps"]),
            apps=orjson.loads(raw["apps"]), vars=orjson.loads(raw["vars"]),
            created_at=float(raw["created_at"]), expires_at=float(raw["expires_at"]),
            report=orjson.loads(raw["report"]) if raw.get("report") else None,
        )


class Registry:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._begin_step = redis.register_script(_BEGIN_STEP)
        self._claim_finish = redis.register_script(_CLAIM_FINISH)

    @staticmethod
    def new_identity() -> tuple[str, str]:
        """A fresh (episode id, token)."""
        episode_id = "ep_" + secrets.token_hex(8)
        return episode_id, f"{episode_id}.{secrets.token_urlsafe(24)}"

    async def create(
        self, *, episode_id: str, token: str, task: str, seed: int, max_steps: int,
        apps: dict[str, str], vars: dict[str, Any], ttl_s: int,
    ) -> EpisodeRecord:
        now = time.time()
        record = EpisodeRecord(
            id=episode_id, task=task, seed=seed, status=ACTIVE, steps=0, max_steps=max_steps,
            apps=apps, vars=vars, created_at=now, expires_at=now + ttl_s, report=None,
        )
        fields: dict[str, str | int | float | bytes] = {
            "task": task, "seed": seed, "status": ACTIVE, "steps": 0, "max_steps": max_steps,
            "apps": orjson.dumps(apps), "vars": orjson.dumps(vars), "created_at": now,
            "expires_at": record.expires_at, "token_sha": _sha(split_token(token)[1]),
        }
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), mapping=fields)  # type: ignore[arg-type]
            pipe.expire(_ep(episode_id), ttl_s)
            await pipe.execute()
        return record

    async def get(self, episode_id: str) -> EpisodeRecord:
        raw: dict[str, str] = await self.redis.hgetall(_ep(episode_id))  # type: ignore[assignment]
        if not raw:
            raise NotFound(f"no episode '{episode_id}' (never created, or expired)",
                           code="episode_not_found")
        return EpisodeRecord.from_hash(episode_id, raw)

    async def authorize(self, episode_id: str, token: str) -> EpisodeRecord:
        """The episode ``token`` grants, or 401/404: for the gym API's own routes."""
        tok_episode, secret = split_token(token)
        record_sha: str | None = await self.redis.hget(_ep(episode_id), "token_sha")  # type: ignore[assignment]
        if record_sha is None:
            raise NotFound(f"no episode '{episode_id}' (never created, or expired)",
                           code="episode_not_found")
        if tok_episode != episode_id or not hmac.compare_digest(record_sha, _sha(secret)):
            raise Unauthorized("token does not grant this episode", code="invalid_token")
        return await self.get(episode_id)

    async def begin_step(self, token: str) -> StepGrant:
        """Count one agent request of the token's episode, or refuse it."""
        episode_id, secret = split_token(token)
        result = await self._begin_step(keys=[_ep(episode_id)], args=[_sha(secret)])
        match result[0]:
            case "ok":
                return StepGrant(episode_id=episode_id, step=int(result[1]),
                                 apps=orjson.loads(result[2]), expires_at=float(result[3]))
            case "missing" | "bad_token":
                raise Unauthorized("invalid or expired episode token", code="invalid_token")
            case "budget":
                raise Conflict("the episode's step budget is spent; finish it",
                               code="step_budget_exhausted")
            case _:
                raise Conflict(f"episode is {result[0]}; it accepts no more requests",
                               code="episode_finished")

    async def record_step(self, grant: StepGrant, step: TrajectoryStep) -> None:
        key = _traj(grant.episode_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.rpush(key, step.model_dump_json())
            pipe.expireat(key, int(grant.expires_at) + 1)
            await pipe.execute()

    async def trajectory(self, episode_id: str) -> list[TrajectoryStep]:
        raw = await self.redis.lrange(_traj(episode_id), 0, -1)
        return [TrajectoryStep.model_validate_json(item) for item in raw]

    async def claim_finish(self, episode_id: str) -> str:
        """Stop the episode taking steps; returns its status before the claim."""
        return str(await self._claim_finish(keys=[_ep(episode_id)]))

    async def store_report(self, episode_id: str, report: dict[str, Any], ttl_s: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), mapping={"status": FINISHED,
                                                "report": orjson.dumps(report)})
            pipe.expire(_ep(episode_id), ttl_s)
            pipe.expire(_traj(episode_id), ttl_s)
            await pipe.execute()

    async def delete(self, episode_id: str) -> None:
        await self.redis.delete(_ep(episode_id), _traj(episode_id))
