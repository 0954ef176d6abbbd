"""What one replica request may cost: its time (``WORKGYM_REQUEST_BUDGET_S``) and the terms a
search query of it may have (``WORKGYM_MAX_QUERY_TERMS``).

A request is served in a worker thread (``workers.py``) under a :class:`Budget` set here, in the
request's context. At its deadline the serving loop interrupts the episode's connection
(``sqlite3.Connection.interrupt``, from the loop's timer: no Python runs inside SQLite's
statements to watch the clock, so a costly statement keeps the GIL released), which stops the
statement running; every read the replica makes through ``db.py`` checks the deadline first (a
Python loop issuing many small statements). The request then answers 503
``request_budget_exceeded`` in the product's error shape, and its transaction is rolled back
(``deps.current_episode``): nothing it did stays. Outside a request (building a world, a task's
setup, exporting state) there is no deadline, nor while the world answers an agent's write
(:func:`world_answers`: the actors' replies must not depend on how loaded the server is).
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from workgym_core.errors import ServiceUnavailable, TooManyRequests


@dataclass
class Budget:
    """One request's: ``seconds`` from its admission, search queries of ``max_query_terms``."""

    seconds: float
    max_query_terms: int
    debt_s: float = 0.0  # how long until the episode's CPU account is paid off (workers.py)
    deadline: float = 0.0  # monotonic; inf once the budget was found spent
    interrupted: bool = False  # the loop interrupted the episode's statements at the deadline
    cpu_s: float = 0.0  # the CPU time the request took (its worker thread's)
    paused: bool = False  # the world is answering: no interrupt (world_answers)

    def __post_init__(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def interrupt(self, conn: sqlite3.Connection) -> None:
        """Stop ``conn``'s running statement (what the loop calls at the deadline), unless the
        world, not the agent, is running it."""
        if self.paused:
            return
        self.interrupted = True
        conn.interrupt()


_budget: ContextVar[Budget | None] = ContextVar("replica_budget", default=None)


class RequestBudgetExceeded(ServiceUnavailable):
    """The request ran past its time budget; it was stopped and changed nothing."""

    code = "request_budget_exceeded"


@contextlib.contextmanager
def limited(budget: Budget) -> Iterator[None]:
    """Run the body as the request ``budget`` is of."""
    token = _budget.set(budget)
    try:
        yield
    finally:
        _budget.reset(token)


@contextlib.contextmanager
def world_answers() -> Iterator[None]:
    """Run the body (the world's actors answering the request's write) without the request's
    deadline, and add the time it took to it: the agent's request is what the budget bounds,
    and what the world answers must be the same on a loaded server as on an idle one. Its CPU
    time is still the episode's (workers.py)."""
    budget = _budget.get()
    if budget is None:
        yield
        return
    token = _budget.set(None)
    budget.paused, started = True, time.monotonic()
    try:
        yield
    finally:
        budget.paused = False
        budget.deadline += time.monotonic() - started
        _budget.reset(token)


class EpisodeRateLimited(TooManyRequests):
    """The episode's costly requests used more than its share of the CPU
    (``WORKGYM_EPISODE_CPU_SHARE``): refused until its account is paid off."""

    code = "rate_limited"


def admit() -> None:
    """Refuse the running request, before it does anything, if its episode is in CPU debt."""
    budget = _budget.get()
    if budget is not None and budget.debt_s > 0:
        raise EpisodeRateLimited(
            "this episode's requests used more than their share of the server's time; "
            f"retry after {math.ceil(budget.debt_s)} s", retry_after_s=math.ceil(budget.debt_s),
            code=EpisodeRateLimited.code, rule="episode_cpu_share")


def max_query_terms() -> int | None:
    """The most terms a search query of the running request may have (None: no request)."""
    budget = _budget.get()
    return budget.max_query_terms if budget is not None else None


def _spend() -> RequestBudgetExceeded | None:
    """The budget's error if it is spent; the rest of the request (rolling back, answering)
    then runs without a deadline."""
    budget = _budget.get()
    if budget is None or (time.monotonic() <= budget.deadline and not budget.interrupted):
        return None
    budget.deadline, budget.interrupted = math.inf, False
    return RequestBudgetExceeded(
        f"the request ran longer than its {budget.seconds:g} s budget and was stopped; "
        "nothing was changed: ask for less (a narrower query, fewer results per page)",
        code=RequestBudgetExceeded.code, rule="request_budget")


def check() -> None:
    """Raise RequestBudgetExceeded if the request's budget is spent."""
    if (error := _spend()) is not None:
        raise error


def translate(exc: BaseException) -> RequestBudgetExceeded | None:
    """The budget's error if ``exc`` is SQLite's answer to its interrupt."""
    if isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted":
        return _spend()
    return None
