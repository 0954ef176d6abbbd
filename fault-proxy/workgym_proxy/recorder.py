"""The trajectory, written off the response path in batches.

The proxy hands each finished step to :class:`Recorder` and answers the agent at once; one
writer task per process puts every step queued since its last write on the trajectories in
one Redis call, so steps cost one round trip between them however many episodes run (at
16 episodes a write carries several steps). Nothing is lost on the way: a step stays *in
flight* on its episode's record until it is written, and ``finish`` waits for in-flight
steps before it scores; a write that meets a Redis outage is retried for ``retry_s``, and a
step that still cannot be written is logged, loudly, with its episode and index.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from redis.exceptions import RedisError

from workgym_core.registry import Registry

log = logging.getLogger("workgym.proxy")
RETRY_PAUSE_S = 0.25


@dataclass(frozen=True)
class Pending:
    episode_id: str
    index: int
    step: bytes  # the TrajectoryStep's JSON
    expires_at: float
    deadline: float  # monotonic: given up after this while Redis stays unreachable


class Recorder:
    def __init__(self, registry: Registry, retry_s: float) -> None:
        self.registry = registry
        self.retry_s = retry_s
        self._queue: list[Pending] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False

    def put(self, episode_id: str, index: int, step: bytes, expires_at: float) -> None:
        """Queue one step; it is written within one Redis round trip of now."""
        self._queue.append(Pending(episode_id, index, step, expires_at,
                                   time.monotonic() + self.retry_s))
        self._wake.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()
            await self._drain()

    async def _drain(self) -> None:
        """Write everything queued, retrying through an outage until each step's deadline."""
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                await self.registry.record_steps(
                    [(p.episode_id, p.index, p.step, p.expires_at) for p in batch])
            except asyncio.CancelledError:  # the loop is going away: put back, for aclose
                self._queue = batch + self._queue
                raise
            except RedisError as exc:
                now = time.monotonic()
                for p in batch:
                    if p.deadline <= now:
                        log.error("step %d of %s NOT recorded: Redis unreachable for %.0f s "
                                  "(%r)", p.index, p.episode_id, self.retry_s, exc)
                self._queue = [p for p in batch if p.deadline > now] + self._queue
                if self._queue:
                    await asyncio.sleep(RETRY_PAUSE_S)

    async def aclose(self) -> None:
        """Write what is queued (a clean shutdown loses nothing), then stop. The writer is
        asked to stop, never cancelled: a cancellation delivered inside a Redis call can be
        swallowed there, which left it waiting for ever (and the shutdown with it)."""
        self._closing = True
        self._wake.set()
        if self._writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self._drain()
