"""Episode requests served off the event loop: each in a worker thread with an event loop of
its own, under the request's time budget (``budget.py``).

The serving loop only reads the request's body, takes the episode's lock (one request of an
episode at a time, in the order they came) and passes the response on; the app's work (the
route, its SQLite statements, the actors' answers) runs in a worker. SQLite releases the GIL
while a statement runs, so a costly query of one episode leaves the loop free to serve every
other one. The response is gathered in the worker and sent from the loop once it is done.
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from workgym_core.asgi import ASGIApp, Message, Receive, Scope, Send

from . import budget

# Threads per replica app: requests of different episodes served at once (an episode's own
# wait for its lock, so one episode holds at most one).
WORKERS = 16
# An episode's CPU account (settings.episode_cpu_share): it banks at most BANK_S (costly
# requests pass at once until it is spent; an agent's ordinary steps cost a few ms, and the
# world catching up with days passed in one step about a second).
BANK_S = 5.0
# Accounts kept before the paid-up ones are forgotten (an account at BANK_S is no account).
ACCOUNTS = 4096


@dataclass
class _Account:
    credit: float  # CPU seconds the episode may still spend (negative: in debt)
    at: float  # monotonic time it was counted


class Workers:
    def __init__(self, name: str, budget_s: float, max_query_terms: int,
                 cpu_share: float) -> None:
        self.budget_s, self.max_query_terms, self.cpu_share = budget_s, max_query_terms, cpu_share
        self._accounts: dict[str, _Account] = {}
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix=f"{name}-requests")
        self._loops: list[asyncio.AbstractEventLoop] = []  # one per worker thread
        # Closed with the app (or when it is dropped without closing).
        self.close = weakref.finalize(self, _close, self._pool, self._loops)

    async def serve(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send,
                    episode: str, db: sqlite3.Connection) -> None:
        """``app`` on this request of ``episode`` in a worker; back when its response is sent.
        ``db`` (the episode's connection) is interrupted at the request's deadline; an
        episode in CPU debt is refused (``budget.admit``). Cancelled (the client left), it
        still waits for the worker: the episode's connection is the worker's until then."""
        body = await _body(receive)
        context = contextvars.copy_context()
        sent: list[Message] = []
        credit = self._credit(episode)
        limit = budget.Budget(self.budget_s, self.max_query_terms,
                              debt_s=-credit / self.cpu_share if credit < 0 else 0.0)
        loop = asyncio.get_running_loop()
        deadline = loop.call_later(self.budget_s, limit.interrupt, db)
        done = loop.run_in_executor(self._pool, context.run, self._run, app, scope, body, sent,
                                    limit)
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            await asyncio.wait([done])
            raise
        finally:
            deadline.cancel()
            self._charge(episode, credit - limit.cpu_s)
        for message in sent:
            await send(message)

    def _credit(self, episode: str) -> float:
        """What ``episode`` may spend now: its credit, earned back at ``cpu_share``."""
        account = self._accounts.get(episode)
        if account is None:
            return BANK_S
        return min(BANK_S, account.credit + (time.monotonic() - account.at) * self.cpu_share)

    def _charge(self, episode: str, credit: float) -> None:
        if credit >= BANK_S:
            self._accounts.pop(episode, None)
            return
        self._accounts[episode] = _Account(credit, time.monotonic())
        if len(self._accounts) > ACCOUNTS:
            for other in [e for e in self._accounts if self._credit(e) >= BANK_S]:
                del self._accounts[other]

    def _run(self, app: ASGIApp, scope: Scope, body: list[Message], sent: list[Message],
             limit: budget.Budget) -> None:
        loop = getattr(self._local, "loop", None)
        if loop is None:
            loop = self._local.loop = asyncio.new_event_loop()
            self._loops.append(loop)

        async def receive() -> Message:
            if body:
                return body.pop(0)
            waiting: asyncio.Future[Message] = asyncio.Future()
            return await waiting  # no disconnect to report: the body was read whole

        async def send(message: Message) -> None:
            sent.append(message)

        started = time.thread_time()
        try:
            with budget.limited(limit):
                loop.run_until_complete(app(scope, receive, send))
        finally:
            limit.cpu_s = time.thread_time() - started


def _close(pool: ThreadPoolExecutor, loops: list[asyncio.AbstractEventLoop]) -> None:
    pool.shutdown(wait=True, cancel_futures=True)
    for loop in loops:
        loop.close()


async def _body(receive: Receive) -> list[Message]:
    """The request's body messages, read whole (the proxy bounds it: MAX_BODY_BYTES)."""
    messages = [await receive()]
    while messages[-1]["type"] == "http.request" and messages[-1].get("more_body"):
        messages.append(await receive())
    return messages
