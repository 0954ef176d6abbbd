"""What one replica request may cost: its time (``WORKGYM_REQUEST_BUDGET_S``) and the terms a
search query of it may have (``WORKGYM_MAX_QUERY_TERMS``).

A request is served in a worker thread (``workers.py``) under a deadline set here, in the
request's context. Past it, the request is stopped where it is: SQLite's progress handler
(installed on every episode connection by ``snapshots.load``) interrupts the statement
running, and every read the replica makes through ``db.py`` checks first (a Python loop
issuing many small statements). The request then answers 503 ``request_budget_exceeded`` in
the product's error shape, and its transaction is rolled back (``deps.current_episode``):
nothing it did stays. Outside a request (building a world, a task's setup, exporting state)
there is no deadline.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from workgym_core.errors import ServiceUnavailable

# SQLite virtual machine instructions between two looks at the clock (~0.1 ms of work).
PROGRESS_EVERY = 10_000


@dataclass
class _Budget:
    seconds: float
    max_query_terms: int
    deadline: float  # monotonic; inf once the budget was found spent


_budget: ContextVar[_Budget | None] = ContextVar("replica_budget", default=None)


class RequestBudgetExceeded(ServiceUnavailable):
    """The request ran past its time budget; it was stopped and changed nothing."""

    code = "request_budget_exceeded"


@contextlib.contextmanager
def limited(seconds: float, max_query_terms: int) -> Iterator[None]:
    """Run the body as one request: ``seconds`` from now, queries of ``max_query_terms``."""
    token = _budget.set(_Budget(seconds, max_query_terms, time.monotonic() + seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def max_query_terms() -> int | None:
    """The most terms a search query of the running request may have (None: no request)."""
    budget = _budget.get()
    return budget.max_query_terms if budget is not None else None


def _expired() -> bool:
    budget = _budget.get()
    return budget is not None and time.monotonic() > budget.deadline


def _spend() -> RequestBudgetExceeded | None:
    """The budget's error if it is spent; the rest of the request (rolling back, answering)
    then runs without a deadline."""
    budget = _budget.get()
    if budget is None or time.monotonic() <= budget.deadline:
        return None
    budget.deadline = math.inf
    return RequestBudgetExceeded(
        f"the request ran longer than its {budget.seconds:g} s budget and was stopped; "
        "nothing was changed: ask for less (a narrower query, fewer results per page)",
        code=RequestBudgetExceeded.code, rule="request_budget")


def check() -> None:
    """Raise RequestBudgetExceeded if the request's budget is spent."""
    if (error := _spend()) is not None:
        raise error


def install(conn: sqlite3.Connection) -> None:
    """Interrupt ``conn``'s statements once the running request's budget is spent."""
    conn.set_progress_handler(_expired, PROGRESS_EVERY)


def translate(exc: BaseException) -> RequestBudgetExceeded | None:
    """The budget's error if ``exc`` is SQLite's answer to its interrupt."""
    if isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted":
        return _spend()
    return None
