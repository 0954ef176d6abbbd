"""Episodes in Redis: the record, its token, its step counter and its trajectory.

Keys (all expire with the episode):
    wg:ep:{id}    hash   task, seed, token_sha, refresh_sha, status, steps, max_steps,
                         apps (JSON), vars (JSON), faults (JSON plan), created_at, expires_at,
                         expired_sha (a token the token_expiry fault revoked),
                         limited_until (rate_limit fault), report (JSON, once finished)
    wg:traj:{id}  list   one JSON TrajectoryStep per agent request

A token is ``<episode id>.<secret>``; Redis keeps only the secret's SHA-256. The
refresh token (``<episode id>.r.<secret>``) mints a new token after a token_expiry.
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

from .runtime.errors import Conflict, NotFound, Unauthorized, UpstreamError
from .runtime.trajectory import TrajectoryStep

ACTIVE, FINISHING, FINISHED = "active", "finishing", "finished"
LOST = "lost"  # the replica instance holding the episode died: nothing to step or score

# Atomically: check the token, refuse finished episodes and spent budgets, count the step.
_BEGIN_STEP = """
local v = redis.call('HMGET', KEYS[1], 'token_sha', 'status', 'max_steps', 'steps',
                     'apps', 'expires_at', 'seed', 'faults', 'limited_until', 'expired_sha', 'task')
local expired = v[10] and v[10] == ARGV[1]
if not v[1] then return {'missing'} end
if v[1] ~= ARGV[1] and not expired then return {'bad_token'} end
if v[2] ~= 'active' then return {v[2]} end
if tonumber(v[4]) >= tonumber(v[3]) then return {'budget'} end
local step = redis.call('HINCRBY', KEYS[1], 'steps', 1)
return {expired and 'expired' or 'ok', tostring(step), v[5], v[6], v[7], v[8], v[9] or '0', v[11]}
"""

# Rotate the access token if the refresh token matches.
_REFRESH = """
local v = redis.call('HMGET', KEYS[1], 'refresh_sha', 'status')
if not v[1] then return 'missing' end
if v[1] ~= ARGV[1] then return 'bad_token' end
if v[2] ~= 'active' then return v[2] end
redis.call('HSET', KEYS[1], 'token_sha', ARGV[2])
redis.call('HDEL', KEYS[1], 'expired_sha')
return 'ok'
"""

# Mark an episode lost unless it was already finished (its report stays).
_MARK_LOST = """
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'finished' then redis.call('HSET', KEYS[1], 'status', 'lost') end
return status
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


def lost_error() -> UpstreamError:
    return UpstreamError("the replica instance holding this episode is gone, and the episode "
                         "with it; start a new episode", code="episode_lost")


def _refused(outcome: str) -> Exception:
    """The error for a refused token check (missing, bad token, finished, budget, lost)."""
    if outcome == LOST:
        return lost_error()
    if outcome in ("missing", "bad_token"):
        return Unauthorized("invalid or expired episode token", code="invalid_token")
    if outcome == "budget":
        return Conflict("the episode's step budget is spent; finish it",
                        code="step_budget_exhausted")
    return Conflict(f"episode is {outcome}; it accepts no more requests",
                    code="episode_finished")


def split_token(token: str) -> tuple[str, str]:
    episode_id, _, secret = token.partition(".")
    if not episode_id or not secret:
        raise Unauthorized("malformed episode token", code="invalid_token")
    return episode_id, secret


@dataclass(frozen=True)
class StepGrant:
    """What the proxy learns when it admits one agent request."""

    episode_id: str
    task: str
    step: int
    seed: int
    apps: dict[str, str]
    expires_at: float
    faults: str  # the plan's JSON, parsed (and cached) by the proxy
    limited_until: float  # a rate_limit fault refuses requests until then (wall time)
    token_expired: bool  # the token_expiry fault revoked the token this request used


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
        self._refresh = redis.register_script(_REFRESH)
        self._mark_lost = redis.register_script(_MARK_LOST)

    @staticmethod
    def new_identity() -> tuple[str, str, str]:
        """A fresh (episode id, token, refresh token)."""
        episode_id = "ep_" + secrets.token_hex(8)
        return (episode_id, f"{episode_id}.{secrets.token_urlsafe(24)}",
                f"{episode_id}.r{secrets.token_urlsafe(24)}")

    async def create(
        self, *, episode_id: str, token: str, refresh_token: str, task: str, seed: int,
        max_steps: int, apps: dict[str, str], vars: dict[str, Any], faults: list[Any],
        ttl_s: int,
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
            "refresh_sha": _sha(split_token(refresh_token)[1]), "faults": orjson.dumps(faults),
        }
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), mapping=fields)  # type: ignore[arg-type]
            pipe.expire(_ep(episode_id), ttl_s)
            await pipe.execute()
        return record

    async def _hash(self, episode_id: str) -> dict[str, str]:
        """The episode's Redis hash, in one read, or 404."""
        raw: dict[str, str] = await self.redis.hgetall(_ep(episode_id))  # type: ignore[assignment]
        if not raw:
            raise NotFound(f"no episode '{episode_id}' (never created, or expired)",
                           code="episode_not_found")
        return raw

    async def get(self, episode_id: str) -> EpisodeRecord:
        return EpisodeRecord.from_hash(episode_id, await self._hash(episode_id))

    async def authorize(self, episode_id: str, token: str) -> EpisodeRecord:
        """The episode the token (or the refresh token) grants, or 401/404: for the gym
        API's own routes, which a trainer may call after its agent refreshed the token."""
        tok_episode, secret = split_token(token)
        raw = await self._hash(episode_id)
        presented = _sha(secret)
        if tok_episode != episode_id or not any(
                hmac.compare_digest(raw.get(field, ""), presented)
                for field in ("token_sha", "refresh_sha")):
            raise Unauthorized("token does not grant this episode", code="invalid_token")
        return EpisodeRecord.from_hash(episode_id, raw)

    async def begin_step(self, token: str) -> StepGrant:
        """Count one agent request of the token's episode, or refuse it."""
        episode_id, secret = split_token(token)
        result = await self._begin_step(keys=[_ep(episode_id)], args=[_sha(secret)])
        if result[0] not in ("ok", "expired"):
            raise _refused(result[0])
        return StepGrant(
            episode_id=episode_id, step=int(result[1]), apps=orjson.loads(result[2]),
            expires_at=float(result[3]), seed=int(result[4]), faults=result[5],
            limited_until=float(result[6]), task=result[7], token_expired=result[0] == "expired",
        )

    async def refresh(self, episode_id: str, refresh_token: str) -> str:
        """A new access token, if ``refresh_token`` is this episode's."""
        tok_episode, secret = split_token(refresh_token)
        token = f"{episode_id}.{secrets.token_urlsafe(24)}"
        outcome = await self._refresh(keys=[_ep(episode_id)],
                                      args=[_sha(secret), _sha(split_token(token)[1])])
        if tok_episode != episode_id or outcome != "ok":
            raise _refused("bad_token" if tok_episode != episode_id else str(outcome))
        return token

    async def expire_token(self, episode_id: str, token: str) -> None:
        """The token_expiry fault: refuse this token (401 token_expired) until a refresh."""
        await self.redis.hset(_ep(episode_id), "expired_sha", _sha(split_token(token)[1]))

    async def limit_until(self, episode_id: str, until: float) -> None:
        """The rate_limit fault: refuse the episode's requests until ``until`` (wall time)."""
        await self.redis.hset(_ep(episode_id), "limited_until", until)

    async def faults(self, episode_id: str) -> list[Any]:
        return orjson.loads((await self._hash(episode_id)).get("faults") or "[]")  # type: ignore[no-any-return]

    async def set_faults(self, episode_id: str, faults: list[Any]) -> None:
        await self._hash(episode_id)  # 404 for an unknown episode
        await self.redis.hset(_ep(episode_id), "faults", orjson.dumps(faults))

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

    async def mark_lost(self, episode_id: str) -> None:
        """The episode's replica instance is gone: refuse its steps and finish (502
        ``episode_lost``) from now on."""
        await self._mark_lost(keys=[_ep(episode_id)])

    async def store_report(self, episode_id: str, report: dict[str, Any], ttl_s: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), mapping={"status": FINISHED,
                                                "report": orjson.dumps(report)})
            pipe.expire(_ep(episode_id), ttl_s)
            pipe.expire(_traj(episode_id), ttl_s)
            await pipe.execute()

    async def delete(self, episode_id: str) -> None:
        await self.redis.delete(_ep(episode_id), _traj(episode_id))
