"""Waits that end: a shutdown step given a bound, and named in one line when it runs past it
(rather than a process that hangs at 0% CPU, saying nothing)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

log = logging.getLogger("workgym")


async def within(step: Awaitable[object], timeout_s: float, what: str) -> None:
    """Await ``step`` for up to ``timeout_s`` (its error raised). Past the bound it is
    cancelled, without waiting for the cancellation to be honoured (one swallowed inside a
    Redis call would hang this wait too), and one error line names ``what`` it was waiting
    on."""
    task = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if done:
        task.result()
        return
    task.cancel()
    log.error("gave up after %.0f s waiting on %s", timeout_s, what)
