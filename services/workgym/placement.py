"""Where an episode lives: replica instances register in Redis, the gym API places episodes.

A replica served alone with ``REDIS_URL`` and an instance URL (``WORKGYM_INSTANCE_URL``;
``workgym serve`` derives ``http://<hostname>:<port>`` from the container's hostname) keeps
itself in a sorted set with a :class:`Heartbeat`, which also reports how many episodes it
holds::

    wg:replicas:{app}       zset   instance URL -> the wall time its registration lapses
    wg:replicas:{app}:live  hash   instance URL -> the episodes it holds (its last heartbeat,
                                   plus those placed on it since)

:meth:`Placement.place` drops lapsed instances and picks the live one holding the fewest
episodes (ties to the first URL), counting the new episode on it at once so a burst of
creations spreads before the next heartbeat, in one Lua call. The choice is sticky: the gym
API stores it on the episode record (``apps``), which is where the proxy forwards for the
episode's lifetime. An app without any registered instance is placed at its configured URL
(``WORKGYM_REPLICA_URLS``); in-process replicas (all-in-one, ``workgym.make``, each worker of
``workgym serve --workers`` its own) never consult Redis. A dead instance lapses within
``ttl_s``; its episodes fail with ``episode_lost``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from workgym_core.errors import NotFound, ServiceUnavailable

log = logging.getLogger("workgym.placement")

HEARTBEAT_S = 2.0
TTL_S = 6.0

# KEYS: the app's zset, its live counts. ARGV: now. The live instance holding the fewest
# episodes (counted one more), or nil.
_PLACE = """
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #lapsed > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
  redis.call('HDEL', KEYS[2], unpack(lapsed))
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
if #live == 0 then return false end
table.sort(live)  -- a stable order: the scores (lapse times) move with every heartbeat
local best, fewest = nil, nil
for _, url in ipairs(live) do
  local n = tonumber(redis.call('HGET', KEYS[2], url) or '0')
  if fewest == nil or n < fewest then best, fewest = url, n end
end
redis.call('HINCRBY', KEYS[2], best, 1)
return best
"""


def instances_key(app: str) -> str:
    return f"wg:replicas:{app}"


def counts_key(app: str) -> str:
    return f"wg:replicas:{app}:live"


class Placement:
    """Chooses the instance for each new episode of an app."""

    def __init__(self, redis: aioredis.Redis | None, apps: Collection[str],
                 configured: dict[str, str], local: Collection[str] = ()) -> None:
        """``configured``: app -> its instance URL; ``local``: those of them in this process
        (placed on without asking Redis, never evicted)."""
        self.redis = redis
        self.apps = frozenset(apps)
        self.configured = configured
        self.local = frozenset(local)
        self._place = redis.register_script(_PLACE) if redis is not None else None

    async def place(self, app: str) -> str:
        """An instance of ``app``: in-process, else the next live registered one, else the
        configured URL; 404 for an app this deployment does not serve, 503 when none runs."""
        if app not in self.apps:
            raise NotFound(f"no app '{app}' (apps: {', '.join(sorted(self.apps))})",
                           code="app_not_found", field="app")
        url = self.configured.get(app)
        if url is not None and (self._place is None or url in self.local):
            return url
        if self._place is not None:
            key = instances_key(app)
            chosen = await self._place(keys=[key, counts_key(app)], args=[time.time()])
            if chosen:
                return str(chosen)
        if url is not None:
            return url
        raise ServiceUnavailable(f"no {app} instance is running: none has registered (and "
                                 "none is configured in WORKGYM_REPLICA_URLS)",
                                 code="replica_unavailable", field="app", retry_after_s=2)

    async def evict(self, app: str, url: str) -> None:
        """Drop an instance found unreachable before its registration lapses (a live one
        registers again on its next heartbeat)."""
        if self.redis is not None and url not in self.local:
            await self.redis.zrem(instances_key(app), url)
            await self.redis.hdel(counts_key(app), url)

    async def live(self, app: str) -> list[str]:
        """The registered instances of ``app`` whose registration has not lapsed."""
        if self.redis is None:
            return []
        found = await self.redis.zrangebyscore(instances_key(app), time.time(), "+inf")
        return [str(url) for url in found]


class Heartbeat:
    """Keeps one replica instance registered while its server runs, with the number of
    episodes it holds (``live``)."""

    def __init__(self, redis: aioredis.Redis, app: str, url: str,
                 live: Callable[[], int] = lambda: 0,
                 interval_s: float = HEARTBEAT_S, ttl_s: float = TTL_S) -> None:
        self.redis, self.app, self.url, self.live = redis, app, url, live
        self.interval_s, self.ttl_s = interval_s, ttl_s
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def beat(self) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(instances_key(self.app), {self.url: time.time() + self.ttl_s})
            pipe.hset(counts_key(self.app), self.url, self.live())
            await pipe.execute()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.interval_s)
                return
            try:
                await self.beat()
            except (RedisError, OSError) as exc:
                log.warning("heartbeat of %s failed: %r", self.url, exc)

    async def start(self) -> None:
        """Register now (so a healthy instance is a placed one), then keep it up."""
        try:
            await self.beat()
        except (RedisError, OSError) as exc:
            log.warning("could not register %s yet: %r", self.url, exc)
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop beating and deregister (a clean shutdown takes no new episodes at once)."""
        if self._task is not None:
            # Asked to stop, never cancelled: a cancellation delivered inside a Redis call can
            # be swallowed there, and the beats went on for ever (and the shutdown with them).
            self._stopping.set()
            await self._task
            self._task = None
        with contextlib.suppress(RedisError, OSError):
            await self.redis.zrem(instances_key(self.app), self.url)
            await self.redis.hdel(counts_key(self.app), self.url)
        await self.redis.aclose()
