"""Each replica request's time budget (``WORKGYM_REQUEST_BUDGET_S``).

A request is served in a worker thread (``workers.py``) under a deadline set here, in the
request's context. Past it, the request is stopped where it is: SQLite's progress handler
(installed on every episode connection by ``snapshots.load``) interrupts the statement
running, and every statement the replica starts through ``db.py`` checks first (a Python loop
issuing many small statements). The request then answers 503 ``request_budget_exceeded`` in
the product's error shape, and its transaction is rolled back (``deps.current_episode``):
nothing it did stays. Outside a request (building a world, a task's setup, exporting
state) there is no deadline.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from contextvars import ContextVar

from workgym_core.errors import ServiceUnavailable

# SQLite virtual machine instructions between two looks at the clock (~0.1 ms of work).
PROGRESS_EVERY = 10_000

_deadline: ContextVar[tuple[float, float] | None] = ContextVar("replica_deadline",
                                                               default=None)


class RequestBudgetExceeded(ServiceUnavailable):
    """The request ran past its time budget; it was stopped and changed nothing."""

    code = "request_budget_exceeded"


@contextlib.contextmanager
def limited(seconds: float) -> Iterator[None]:
    """Run the body under a deadline ``seconds`` from now (in this context)."""
    token = _deadline.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def _expired() -> bool:
    deadline = _deadline.get()
    return deadline is not None and time.monotonic() > deadline[0]


def _spend() -> RequestBudgetExceeded | None:
    """The budget's error if it is spent; the rest of the request (rolling back, answering)
    then runs without a deadline."""
    deadline = _deadline.get()
    if deadline is None or time.monotonic() <= deadline[0]:
        return None
    _deadline.set(None)
    return RequestBudgetExceeded(
        f"the request ran longer than its {deadline[1]:g} s budget and was stopped; nothing "
        "was changed: ask for less (a narrower query, fewer results per page)",
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
