"""Concurrent calls of one round trip sent together: one Redis call for many requests.

The first call goes at once, alone (a lone client waits for nothing); the calls made while a
batch is in flight wait for it to come back and then go together, in the order they were
made, as the next batch. Under load, N concurrent calls cost a few round trips, not N.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class Batches(Generic[Item, Result]):
    def __init__(self, send: Callable[[list[Item]], Awaitable[list[Result]]]) -> None:
        """``send``: one round trip for a batch of items; their results, in their order."""
        self._send = send
        self._queue: list[tuple[Item, asyncio.Future[Result]]] = []
        # The loop a batch is in flight on (None: none is). Another loop's was left behind
        # when its loop stopped (in-process servers run one per call): never waited for.
        self._busy: asyncio.AbstractEventLoop | None = None
        self._sender: asyncio.Task[None] | None = None

    async def __call__(self, item: Item) -> Result:
        loop = asyncio.get_running_loop()
        if self._busy is loop:
            future: asyncio.Future[Result] = loop.create_future()
            self._queue.append((item, future))
            return await future
        self._busy, self._queue = loop, []
        try:
            return (await self._send([item]))[0]
        finally:
            self._next()

    def _next(self) -> None:
        """Send what queued up meanwhile (in a task of its own: the caller answers now)."""
        if self._queue:
            self._sender = asyncio.get_running_loop().create_task(self._drain())
        else:
            self._busy = None

    async def _drain(self) -> None:
        batch: list[tuple[Item, asyncio.Future[Result]]] = []
        try:
            while self._queue:
                # Those whose callers left are never sent.
                batch = [(item, future) for item, future in self._queue if not future.done()]
                self._queue = []
                if not batch:
                    continue
                try:
                    results = await self._send([item for item, _ in batch])
                except Exception as exc:  # each caller gets the round trip's error
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), result in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self._busy = None
            for _, future in batch + self._queue:  # unanswered only if this task was cancelled
                if not future.done():
                    future.cancel()
            self._queue = []
