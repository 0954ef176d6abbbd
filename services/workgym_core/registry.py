"""Episodes in Redis: the record, its tokens, its step counter and its trajectory.

Keys (all expire with the episode):
    wg:ep:{id}    hash   task, seed, owner, token_sha, refresh_sha, status, steps, inflight,
                         max_steps, apps (JSON), vars (JSON), faults (JSON plan), created_at,
                         expires_at, expired_sha (a token the token_expiry fault revoked),
                         limited ("<requests left>:<retry after s>", the rate_limit fault),
                         match:<position> (requests the plan's fault there matched so far),
                         lost_reason, report (JSON, once finished),
                         forked_from (the episode it is a fork of)
    wg:traj:{id}  zset   one JSON TrajectoryStep per agent request, scored by its index
                         (the order the proxy admitted them in, not the order they ended)
    wg:live:{owner}   zset   the owner's live episodes, scored by expiry (the quota)
    wg:rate:{owner}   hash   the owner's creation token bucket

A token is ``<episode id>.<expiry>.<nonce>.<signature>``, signed with the token secret, so
a service tells a genuine token from a guess without Redis, and a genuine token whose record
is gone from an expired episode or a lost one. Redis keeps only a token's SHA-256 (the
refresh token, ``...r<nonce>...``, mints a new token after a token_expiry; an access token's
nonce is ``a<nonce>``).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis

from . import credentials
from .batches import Batches
from .errors import (
    Conflict,
    EpisodeLost,
    EpisodeNotFound,
    Gone,
    TooManyRequests,
    Unauthorized,
    WorkGymError,
)
from .trajectory import TrajectoryStep, steps_of

ACTIVE, FINISHING, FINISHED = "active", "finishing", "finished"
LOST = "lost"  # the replica instance holding the episode died: nothing to step or score
DELETED = "deleted"  # dropped by its operator; the record stays (a tombstone) until expiry

# Atomically, for each request of a batch (KEYS: its episode's record; ARGV: its token's SHA,
# the time and whether it may be the page a browser was sent on to, three per request), in
# their order: check the token, refuse finished episodes and spent budgets, count the step and
# hold it in flight until it is recorded; spend one refusal of an active rate limit. The page
# a browser loads after an answer that sent it on (``led``, set by the proxy: ``leads_on``)
# is the same action: counted as a step, not against the budget (``free``). One answer per
# request.
_BEGIN_STEPS = """
local function begin(key, sha, now, goes_on)
  local v = redis.call('HMGET', key, 'token_sha', 'status', 'max_steps', 'steps',
                       'apps', 'expires_at', 'seed', 'faults', 'limited', 'expired_sha', 'task',
                       'lost_reason', 'led', 'free')
  if not v[1] then return {'missing'} end
  local expired = v[10] and v[10] == sha
  if v[1] ~= sha and not expired then return {'bad_token'} end
  if v[2] ~= 'active' then return {v[2], v[12] or ''} end
  if tonumber(now) >= tonumber(v[6]) then return {'timed_out'} end
  local followed = v[13] == '1' and goes_on == '1'
  if v[13] then redis.call('HDEL', key, 'led') end
  if followed then
    redis.call('HINCRBY', key, 'free', 1)
  elseif tonumber(v[4]) - tonumber(v[14] or 0) >= tonumber(v[3]) then
    return {'budget'}
  end
  local step = redis.call('HINCRBY', key, 'steps', 1)
  redis.call('HINCRBY', key, 'inflight', 1)
  local limited = '0'
  if v[9] then
    local left, wait = string.match(v[9], '^(%d+):(%d+)$')
    if left and tonumber(left) > 0 then
      limited = wait
      if tonumber(left) > 1 then
        redis.call('HSET', key, 'limited', (tonumber(left) - 1) .. ':' .. wait)
      else
        redis.call('HDEL', key, 'limited')
      end
    end
  end
  return {expired and 'expired' or 'ok', tostring(step), v[5], v[6], v[7], v[8], limited, v[11]}
end
local answers = {}
for i, key in ipairs(KEYS) do
  answers[i] = begin(key, ARGV[3 * i - 2], ARGV[3 * i - 1], ARGV[3 * i])
end
return answers
"""

# Record steps, each of one episode (KEYS: its record, its trajectory; ARGV: index, step
# JSON, expiry): each leaves the in-flight count of an episode that still exists. Idempotent:
# a step written twice (a retried write) is counted once.
_RECORD = """
for i = 1, #KEYS, 2 do
  local a = (i - 1) / 2 * 3
  if redis.call('ZADD', KEYS[i + 1], ARGV[a + 1], ARGV[a + 2]) == 1 then
    redis.call('EXPIREAT', KEYS[i + 1], ARGV[a + 3])
    if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('HINCRBY', KEYS[i], 'inflight', -1) end
  end
end
return 1
"""

# Count one more request matching each of these faults (ARGV: plan positions); their counts.
_COUNT_MATCHES = """
local counts = {}
for i, position in ipairs(ARGV) do
  counts[i] = redis.call('HINCRBY', KEYS[1], 'match:' .. position, 1)
end
return counts
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
if status and status ~= 'finished' then
  redis.call('HSET', KEYS[1], 'status', 'lost', 'lost_reason', ARGV[1])
end
return status
"""

# Atomically move an active episode to 'finishing' so no further step is accepted.
_CLAIM_FINISH = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status == 'active' then redis.call('HSET', KEYS[1], 'status', 'finishing') end
return status
"""

# The owner's quotas, a Lua function both scripts that make an episode start with: the live
# episodes (a zset scored by expiry; ``discount``: one of them that no longer counts, '' none)
# and the creation rate (a token bucket). Returns nil with the episode counted, or {'live'|'rate',
# seconds until it may succeed} with nothing changed.
_ADMIT = """
local function admit(live_key, bucket_key, now, expires_at, max_live, rate, burst, id, discount)
  redis.call('ZREMRANGEBYSCORE', live_key, '-inf', now)
  local live = redis.call('ZCARD', live_key)
  if discount ~= '' and redis.call('ZSCORE', live_key, discount) then live = live - 1 end
  if live >= max_live then
    local first = redis.call('ZRANGE', live_key, 0, 0, 'WITHSCORES')
    return {'live', tostring(tonumber(first[2]) - now)}
  end
  local b = redis.call('HMGET', bucket_key, 'tokens', 'at')
  local tokens, at = burst, now
  if b[1] then
    -- Callers' clocks: one that reaches Redis late refills nothing (never negative), and the
    -- bucket's time never moves back.
    at = math.max(now, tonumber(b[2]))
    tokens = math.min(burst, tonumber(b[1]) + (at - tonumber(b[2])) * rate)
  end
  if tokens < 1 then return {'rate', tostring((1 - tokens) / rate)} end
  redis.call('HSET', bucket_key, 'tokens', tostring(tokens - 1), 'at', tostring(at))
  redis.call('EXPIRE', bucket_key, math.ceil(burst / rate) + 60)
  redis.call('ZADD', live_key, expires_at, id)
  return nil
end
"""

# A new episode: its owner's quotas checked and, if they admit it, its record written, in
# one call. KEYS: the record, the owner's live zset, their bucket, the record and trajectory
# of the episode it replaces. ARGV: now, expires_at, max_live, rate/s, burst, episode id,
# the record's expiry (ms), the replaced episode's id ('': none), owner, then the record's
# fields and values. Returns {'ok', <the replaced episode's apps JSON, if its replicas still
# hold it>}, {'live'|'rate', seconds until it may succeed}, or {'foreign'} (the replaced
# episode is another owner's: nothing written).
_CREATE = _ADMIT + """
local now = tonumber(ARGV[1])
local replaces = ARGV[8]
local old = nil
if replaces ~= '' then
  old = redis.call('HMGET', KEYS[4], 'owner', 'status', 'apps')
  if old[1] and old[1] ~= ARGV[9] then return {'foreign'} end
end
-- The episode it replaces no longer counts: a rollout loop at its quota keeps going.
local refused = admit(KEYS[2], KEYS[3], now, ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]),
                      tonumber(ARGV[5]), ARGV[6], replaces)
if refused then return refused end
redis.call('HSET', KEYS[1], unpack(ARGV, 10))
redis.call('PEXPIREAT', KEYS[1], ARGV[7])
local held = ''
if old and old[1] then
  redis.call('ZREM', KEYS[2], replaces)
  if old[2] ~= 'deleted' then
    redis.call('HSET', KEYS[4], 'status', 'deleted')
    redis.call('HDEL', KEYS[4], 'report', 'vars', 'faults')
    redis.call('DEL', KEYS[5])
    -- A finished episode's replicas dropped it when it was scored.
    if old[2] ~= 'finished' then held = old[3] end
  end
end
return {'ok', held}
"""

# Copy an active episode's record and trajectory to a new episode (its fork), if it has taken
# no step since the fork read ARGV[1] steps and none is in flight, and the owner's quotas
# admit it. KEYS: parent record, fork record, parent trajectory, fork trajectory, the owner's
# live zset, their bucket. ARGV: steps, token sha, refresh sha, now, expires_at, record expiry
# (ms), trajectory expiry (s), parent id, fork id, max_live, rate/s, burst. The fork's own: its
# tokens (revoked, as the parent's, if a token_expiry revoked the parent's current one),
# times and parent; everything else (steps, vars, plan, fault counts, rate limit) is copied.
# Returns {status} ('ok', 'missing', 'moved', or the parent's status), or a quota's refusal.
_FORK = _ADMIT + """
local v = redis.call('HGETALL', KEYS[1])
if #v == 0 then return {'missing'} end
local r = {}
for i = 1, #v, 2 do r[v[i]] = v[i + 1] end
if r.status ~= 'active' then return {r.status} end
if r.steps ~= ARGV[1] or tonumber(r.inflight or '0') > 0 then return {'moved'} end
local refused = admit(KEYS[5], KEYS[6], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[10]),
                      tonumber(ARGV[11]), tonumber(ARGV[12]), ARGV[9], '')
if refused then return refused end
local revoked = r.expired_sha ~= nil and r.expired_sha == r.token_sha
r.expired_sha, r.report, r.lost_reason = nil, nil, nil
r.token_sha, r.refresh_sha, r.created_at, r.expires_at = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
r.forked_from = ARGV[8]
if revoked then r.expired_sha = ARGV[2] end
local fields = {}
for k, value in pairs(r) do
  fields[#fields + 1] = k
  fields[#fields + 1] = value
end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('PEXPIREAT', KEYS[2], ARGV[6])
if redis.call('COPY', KEYS[3], KEYS[4]) == 1 then redis.call('EXPIREAT', KEYS[4], ARGV[7]) end
return {'ok'}
"""


def _ep(episode_id: str) -> str:
    return f"wg:ep:{episode_id}"


def _traj(episode_id: str) -> str:
    return f"wg:traj:{episode_id}"


def _live(owner: str) -> str:
    return f"wg:live:{owner}"


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# Why an episode is lost (said in every ``episode_lost`` error and the episode's view).
UNREACHABLE = "its replica instance is unreachable"
RESTARTED = "its replica instance no longer holds it (the instance restarted)"


def lost_error(reason: str = "") -> EpisodeLost:
    return EpisodeLost(reason or UNREACHABLE)


def invalid_token() -> Unauthorized:
    return Unauthorized("invalid or expired episode token", code="invalid_token")


def not_found(episode_id: str) -> EpisodeNotFound:
    """The one answer for an episode the caller may not see: unknown and foreign ids alike."""
    return EpisodeNotFound(f"no episode '{episode_id}' for this credential", field="episode_id")


def _deleted() -> Gone:
    return Gone("this episode was deleted", code="episode_deleted")


def _not_deleted(raw: dict[str, str]) -> dict[str, str]:
    if raw.get("status") == DELETED:
        raise _deleted()
    return raw


def _refused(outcome: str, reason: str = "") -> WorkGymError:
    """The error for a refused step (finished, deleted, budget, lost)."""
    if outcome == LOST:
        return lost_error(reason)
    if outcome == DELETED:
        return _deleted()
    if outcome == "budget":
        return Conflict("the episode's step budget is spent; finish it",
                        code="step_budget_exhausted")
    return Conflict(f"episode is {outcome}; it accepts no more requests",
                    code="episode_finished")


@dataclass(frozen=True)
class Token:
    """A parsed, genuine (signature-checked) episode or refresh token."""

    episode_id: str
    expires_at: int
    refresh: bool
    raw: str


class Tokens:
    """Mints and checks episode tokens, signed with the deployment's token secret."""

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def _sign(self, body: str) -> str:
        return credentials.mac(self.secret, "episode-token", body)[:32]

    def mint(self, episode_id: str, expires_at: float, refresh: bool = False) -> str:
        kind = "r" if refresh else "a"
        body = f"{episode_id}.{int(expires_at)}.{kind}{secrets.token_urlsafe(18)}"
        return f"{body}.{self._sign(body)}"

    def parse(self, token: str) -> Token | None:
        """The token if it is genuine (whatever its episode's state), else None."""
        body, _, signature = token.rpartition(".")
        parts = body.split(".")
        if len(parts) != 3 or not parts[1].isdigit() or len(token) > 200 or \
                not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return None
        return Token(parts[0], int(parts[1]), parts[2].startswith("r"), token)

    def genuine(self, token: str) -> Token:
        found = self.parse(token)
        if found is None:
            raise invalid_token()
        return found


def gone(token: Token) -> WorkGymError:
    """Why a genuine token's episode has no record: it expired, or its record was lost."""
    if token.expires_at <= time.time():
        return Gone("this episode expired and was reclaimed; start a new episode",
                    code="episode_expired")
    return lost_error("its record is missing from the episode store (Redis lost its data)")


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
    limited_s: int  # > 0: an active rate limit refuses this request (Retry-After seconds)
    token_expired: bool  # the token_expiry fault revoked the token this request used


@dataclass(frozen=True)
class EpisodeRecord:
    id: str
    task: str
    seed: int
    owner: str
    status: str
    steps: int
    inflight: int
    max_steps: int
    apps: dict[str, str]
    vars: dict[str, Any]
    created_at: float
    expires_at: float
    lost_reason: str
    report: dict[str, Any] | None

    @classmethod
    def from_hash(cls, episode_id: str, raw: dict[str, str]) -> EpisodeRecord:
        return cls(
            id=episode_id, task=raw["task"], seed=int(raw["seed"]), owner=raw.get("owner", ""),
            status=raw["status"], steps=int(raw["steps"]), inflight=int(raw.get("inflight", 0)),
            max_steps=int(raw["max_steps"]), apps=orjson.loads(raw["apps"]),
            vars=orjson.loads(raw["vars"]), created_at=float(raw["created_at"]),
            expires_at=float(raw["expires_at"]), lost_reason=raw.get("lost_reason", ""),
            report=orjson.loads(raw["report"]) if raw.get("report") else None,
        )


@dataclass(frozen=True)
class Quota:
    """An owner's quotas: live episodes, and a creation rate (a token bucket)."""

    max_live: int
    rate_per_s: float
    burst: int

    def args(self) -> list[float]:
        return [self.max_live, self.rate_per_s, self.burst]

    def check(self, result: list[Any]) -> None:
        """429 with Retry-After if the script's ``admit`` refused the episode (``result``)."""
        if result[0] == "live":
            raise TooManyRequests(
                f"{self.max_live} live episodes is this key's quota: finish or delete some",
                code="live_episode_quota", retry_after_s=float(result[1]))
        if result[0] == "rate":
            raise TooManyRequests(
                f"episodes are created at most {self.rate_per_s:g}/s per key (bursts of "
                f"{self.burst})", code="creation_rate_quota", retry_after_s=float(result[1]))


@dataclass(frozen=True)
class Identity:
    episode_id: str
    token: str
    refresh_token: str
    expires_at: float


class Registry:
    def __init__(self, redis: aioredis.Redis, secret: str) -> None:
        self.redis = redis
        self.tokens = Tokens(secret)
        self._begin_steps = redis.register_script(_BEGIN_STEPS)
        # The proxy's requests, counted together while one Redis call is in flight.
        self._steps: Batches[tuple[str, str, float, bool], list[Any]] = Batches(
            self._send_steps)
        self._record = redis.register_script(_RECORD)
        self._claim_finish = redis.register_script(_CLAIM_FINISH)
        self._refresh = redis.register_script(_REFRESH)
        self._mark_lost = redis.register_script(_MARK_LOST)
        self._create = redis.register_script(_CREATE)
        self._count_matches = redis.register_script(_COUNT_MATCHES)
        self._fork = redis.register_script(_FORK)

    def new_identity(self, ttl_s: int) -> Identity:
        """A fresh episode id, its token and refresh token, and its expiry."""
        episode_id = "ep_" + secrets.token_hex(8)
        expires_at = time.time() + ttl_s
        return Identity(episode_id, self.tokens.mint(episode_id, expires_at),
                        self.tokens.mint(episode_id, expires_at, refresh=True), expires_at)

    async def release(self, owner: str, episode_id: str) -> None:
        """The episode no longer counts against its owner's live quota."""
        await self.redis.zrem(_live(owner), episode_id)

    async def create(
        self, identity: Identity, *, owner: str, task: str, seed: int, max_steps: int,
        apps: dict[str, str], vars: dict[str, Any], faults: list[Any], quota: Quota,
        replaces: str | None = None,
    ) -> tuple[EpisodeRecord, dict[str, str]]:
        """Count a new episode against its owner's quotas (or 429 with Retry-After) and write
        its record, in one call. ``replaces``: an episode of the owner's it takes the place of
        (a rollout loop's previous one), dropped in the same call; 404 naming the field if it
        is another owner's (a missing or deleted one is dropped already). Returns the record
        and where the replaced episode's state is still held (app -> instance), to reclaim."""
        episode_id = identity.episode_id
        fields: dict[str, str | int | float | bytes] = {
            "task": task, "seed": seed, "owner": owner, "status": ACTIVE, "steps": 0,
            "inflight": 0, "max_steps": max_steps, "apps": orjson.dumps(apps),
            "vars": orjson.dumps(vars), "created_at": time.time(),
            "expires_at": identity.expires_at, "token_sha": _sha(identity.token),
            "refresh_sha": _sha(identity.refresh_token), "faults": orjson.dumps(faults),
        }
        result = await self._create(
            keys=[_ep(episode_id), _live(owner), f"wg:rate:{owner}", _ep(replaces or ""),
                  _traj(replaces or "")],
            args=[time.time(), identity.expires_at, quota.max_live, quota.rate_per_s,
                  quota.burst, episode_id, int(identity.expires_at * 1000) + 1, replaces or "",
                  owner, *(x for pair in fields.items() for x in pair)])
        if result[0] == "foreign":
            raise EpisodeNotFound(f"no episode '{replaces}' for this credential",
                                  field="replaces")
        quota.check(result)
        record = EpisodeRecord.from_hash(episode_id, {
            k: v.decode() if isinstance(v, bytes) else str(v) for k, v in fields.items()})
        held: dict[str, str] = orjson.loads(result[1]) if result[1] else {}
        return record, held

    async def progress(self, episode_id: str) -> tuple[int, int]:
        """The episode's steps taken and requests in flight, read together."""
        steps, inflight = await self.redis.hmget(_ep(episode_id), ["steps", "inflight"])
        return int(steps or 0), int(inflight or 0)

    async def fork(self, parent_id: str, identity: Identity, *, steps: int, owner: str,
                   quota: Quota) -> bool:
        """Make ``identity``'s episode a copy of the parent's record and trajectory (its fork),
        if the parent has still taken ``steps`` steps and has none in flight, counted against
        the owner's quotas as a created one (or 429): False if it has moved on meanwhile;
        refused as a step would be if it is no longer active."""
        outcome = await self._fork(
            keys=[_ep(parent_id), _ep(identity.episode_id), _traj(parent_id),
                  _traj(identity.episode_id), _live(owner), f"wg:rate:{owner}"],
            args=[steps, _sha(identity.token), _sha(identity.refresh_token), time.time(),
                  identity.expires_at, int(identity.expires_at * 1000) + 1,
                  int(identity.expires_at) + 1, parent_id, identity.episode_id,
                  *quota.args()])
        if outcome[0] == "missing":
            raise not_found(parent_id)
        quota.check(outcome)
        if outcome[0] not in ("ok", "moved"):
            raise _refused(str(outcome[0]))
        return bool(outcome[0] == "ok")

    async def _hash(self, episode_id: str) -> dict[str, str]:
        """The episode's Redis hash, in one read; 404 if there is none, 410 if deleted."""
        # The client decodes responses (str); redis-py's types allow bytes as well.
        raw: dict[str, str] = await self.redis.hgetall(_ep(episode_id))  # type: ignore[assignment]
        if not raw:
            raise not_found(episode_id)
        return _not_deleted(raw)

    async def get(self, episode_id: str) -> EpisodeRecord:
        return EpisodeRecord.from_hash(episode_id, await self._hash(episode_id))

    async def authorize(self, episode_id: str, token: str) -> EpisodeRecord:
        """The episode an agent's token (or refresh token) grants, for the gym API's own
        routes. Unknown ids, other episodes' ids and wrong tokens answer alike (404)."""
        found = self.tokens.parse(token)
        if found is None or found.episode_id != episode_id:
            raise not_found(episode_id)
        # The client decodes responses (str); redis-py's types allow bytes as well.
        raw: dict[str, str] = await self.redis.hgetall(_ep(episode_id))  # type: ignore[assignment]
        if not raw:
            raise gone(found)
        _not_deleted(raw)
        presented = _sha(token)
        if not any(hmac.compare_digest(raw.get(field, ""), presented)
                   for field in ("token_sha", "refresh_sha")):
            raise not_found(episode_id)
        return EpisodeRecord.from_hash(episode_id, raw)

    async def begin_step(self, token: str, *, goes_on: bool = False) -> StepGrant:
        """Count one agent request of the token's episode, or refuse it; ``goes_on``: it may
        be the page a browser was sent on to (``trajectory.goes_on``), which after an answer
        that led it on (:meth:`lead_on`) spends no budget."""
        found = self.tokens.genuine(token)
        result = await self._steps((_ep(found.episode_id), _sha(token), time.time(), goes_on))
        if result[0] in ("missing", "timed_out"):
            raise gone(found)
        if result[0] == "bad_token":
            raise invalid_token()
        if result[0] not in ("ok", "expired"):
            raise _refused(result[0], result[1] if len(result) > 1 else "")
        return StepGrant(
            episode_id=found.episode_id, step=int(result[1]), apps=orjson.loads(result[2]),
            expires_at=float(result[3]), seed=int(result[4]), faults=result[5],
            limited_s=int(result[6]), task=result[7], token_expired=result[0] == "expired",
        )

    async def _send_steps(self, requests: list[tuple[str, str, float, bool]]
                          ) -> list[list[Any]]:
        """Count a batch of requests (record key, token SHA, time, goes on) in one call."""
        answers: list[list[Any]] = await self._begin_steps(
            keys=[key for key, _, _, _ in requests],
            args=[arg for _, sha, now, goes_on in requests
                  for arg in (sha, now, int(goes_on))])
        return answers

    async def lead_on(self, episode_id: str) -> None:
        """The answer just given sends the episode's browser on to a page
        (``trajectory.leads_on``): its next request, if it is that page, spends no budget (a
        form's post and the page it lands on are one action, as the efficiency signal counts
        them). Set before the answer is sent, so before the browser can follow it."""
        await self.redis.hset(_ep(episode_id), "led", 1)

    async def refresh(self, episode_id: str, refresh_token: str) -> str:
        """A new access token, if ``refresh_token`` is this episode's."""
        found = self.tokens.parse(refresh_token)
        if found is None or not found.refresh or found.episode_id != episode_id:
            raise invalid_token()
        token = self.tokens.mint(episode_id, found.expires_at)
        outcome = await self._refresh(keys=[_ep(episode_id)],
                                      args=[_sha(refresh_token), _sha(token)])
        if outcome == "missing":
            raise gone(found)
        if outcome == "bad_token":
            raise invalid_token()
        if outcome != "ok":
            raise _refused(str(outcome))
        return token

    async def expire_token(self, episode_id: str, token: str) -> None:
        """The token_expiry fault: refuse this token (401 token_expired) until a refresh."""
        await self.redis.hset(_ep(episode_id), "expired_sha", _sha(token))

    async def limit(self, episode_id: str, requests: int, retry_after_s: int) -> None:
        """The rate_limit fault: refuse the episode's next ``requests`` requests (counted,
        never timed: the same requests meet the same refusals at any speed)."""
        if requests > 0:
            await self.redis.hset(_ep(episode_id), "limited", f"{requests}:{retry_after_s}")

    async def matches_so_far(self, episode_id: str, positions: list[int]) -> dict[int, int]:
        """For each fault (by plan position), how many requests it has counted so far."""
        counts = await self.redis.hmget(_ep(episode_id), [f"match:{p}" for p in positions])
        return {position: int(n or 0) for position, n in zip(positions, counts, strict=True)}

    async def count_matches(self, episode_id: str, positions: list[int]) -> dict[int, int]:
        """Count this request for each fault (by plan position) whose window it counts in
        (its target matched and the app accepted it); each one's count so far, this one
        included."""
        counts = await self._count_matches(keys=[_ep(episode_id)], args=positions)
        return {position: int(n) for position, n in zip(positions, counts, strict=True)}

    async def faults(self, episode_id: str) -> list[Any]:
        faults: list[Any] = orjson.loads((await self._hash(episode_id)).get("faults") or "[]")
        return faults

    async def set_faults(self, episode_id: str, faults: list[Any]) -> None:
        await self._hash(episode_id)  # 404 for an unknown episode
        await self.redis.hset(_ep(episode_id), "faults", orjson.dumps(faults))

    async def record_steps(self, steps: list[tuple[str, int, bytes, float]]) -> None:
        """Put steps (episode id, index, JSON, episode expiry) on their trajectories in one
        call; they are no longer in flight."""
        keys: list[str] = []
        args: list[int | bytes] = []
        for episode_id, index, step, expires_at in steps:
            keys += [_ep(episode_id), _traj(episode_id)]
            args += [index, step, int(expires_at) + 1]
        await self._record(keys=keys, args=args)

    async def trajectory(self, episode_id: str, settle_s: float | None = 5.0
                         ) -> list[TrajectoryStep]:
        """The episode's steps, once those in flight are recorded (up to ``settle_s``; None:
        the caller waited already)."""
        if settle_s is not None:
            await self.settled(episode_id, settle_s)
        return steps_of(await self.recorded_steps(episode_id))

    async def recorded_steps(self, episode_id: str) -> list[str]:
        """The episode's steps as recorded (JSON, in order), unparsed."""
        # The client decodes responses (str); redis-py's types allow bytes as well.
        raw: list[str] = await self.redis.zrange(_traj(episode_id), 0, -1)  # type: ignore[assignment]
        return raw

    async def settled(self, episode_id: str, wait_s: float) -> int:
        """Wait (up to ``wait_s``) until no request of the episode is in flight; returns how
        many still are (their proxy died mid-request, or Redis lost their records)."""
        deadline, pause = time.monotonic() + wait_s, 0.002
        while True:
            inflight = int(await self.redis.hget(_ep(episode_id), "inflight") or 0)
            if inflight <= 0 or time.monotonic() >= deadline:
                return max(inflight, 0)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.1)

    async def claim_finish(self, episode_id: str) -> str:
        """Stop the episode taking steps; returns its status before the claim."""
        return str(await self._claim_finish(keys=[_ep(episode_id)]))

    async def reopen(self, episode_id: str) -> None:
        """A finish that failed on our side: the episode may be finished again."""
        await self.redis.hset(_ep(episode_id), "status", ACTIVE)

    async def mark_lost(self, episode_id: str, reason: str) -> None:
        """The episode's replica instance is gone: refuse its steps and finish (502
        ``episode_lost``, with ``reason``) from now on."""
        await self._mark_lost(keys=[_ep(episode_id)], args=[reason])

    async def store_report(self, episode_id: str, report: dict[str, Any], ttl_s: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), mapping={"status": FINISHED,
                                                "report": orjson.dumps(report)})
            pipe.expire(_ep(episode_id), ttl_s)
            pipe.expire(_traj(episode_id), ttl_s)
            await pipe.execute()

    async def delete(self, episode_id: str) -> None:
        """Drop the episode's trajectory and report; its record stays as a tombstone until
        it expires, so its token is told the episode was deleted (not that it was lost)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_ep(episode_id), "status", DELETED)
            pipe.hdel(_ep(episode_id), "report", "vars", "faults")
            pipe.delete(_traj(episode_id))
            await pipe.execute()


def step_index(grant: StepGrant) -> int:
    """A step's 0-based index: the order the proxy admitted it in."""
    return grant.step - 1
