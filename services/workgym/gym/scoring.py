"""Scoring finished episodes off the serving loop: in a pool of worker processes
(``WORKGYM_SCORING_WORKERS``, default the cores), or in a thread of the serving process (0).

What a worker is sent is cheap: each app's final state and the snapshot key naming its initial
state. A worker keeps the initial states it was given, by key (the least recently used dropped
past INITIALS_BYTES); for a key it does not hold it answers which apps' initial states it
lacks, and is sent the episode again with them (once per key and worker). The table digests of
an initial state are cached by the same key (``workgym_reward.hashing``).

Workers run at a lower CPU priority than the serving process (WORKER_NICENESS): where cores
are short, steps are served first. A worker that dies mid-score (killed, or crashed) breaks
the pool: it is replaced and the episode scored again on the new one; one that dies again on
it is the scorer's failure on this episode's state (:class:`ScoringFailed`), as an exception
the scorer raises is.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from replicas.catalog import lexicon
from workgym_core.trajectory import steps_of
from workgym_reward import Report

from ..tasks import Catalogue, catalogue

# How much lower a worker's CPU priority is than the serving process's: on a busy machine
# steps are served first and scores wait (os.nice).
WORKER_NICENESS = 10
# Initial states one worker keeps (bytes): a GRPO group's snapshots, several apps each.
INITIALS_BYTES = 512 * 2**20


@dataclass(frozen=True, slots=True)
class Scoring:
    """One episode to score: each app's final state and the snapshot key of its initial
    state (None: the replica names none, so the initial state is always sent), its steps as
    recorded (JSON), the ``finish`` answer and the rows its setup bound."""

    task: str
    finals: dict[str, bytes]
    keys: dict[str, str | None]
    recorded: list[str]
    answer: str | None
    vars: dict[str, Any]
    initials: dict[str, bytes] = field(default_factory=dict)

    def score(self, tasks: Catalogue, initials: dict[str, bytes]) -> Report:
        states = {app: (initials[app], final) for app, final in self.finals.items()}
        keys = {app: key for app, key in self.keys.items() if key is not None}
        return tasks.get(self.task).score(states, steps_of(self.recorded), self.answer,
                                          self.vars, keys)


class ScoringFailed(Exception):
    """The scorer failed on this episode's state (raised, or its worker died twice)."""


FetchInitials = Callable[[Sequence[str]], Awaitable[dict[str, bytes]]]
"""The initial states of these apps of the episode, from their replicas."""


class Scorer:
    def __init__(self, workers: int, tasks: Catalogue, roots: tuple[Path, ...]) -> None:
        self.workers = workers
        self.tasks = tasks
        self._roots = roots
        self._pool: ProcessPoolExecutor | None = None

    async def score(self, scoring: Scoring, fetch: FetchInitials) -> Report:
        """The episode's report; ScoringFailed when the scorer fails on it. What ``fetch``
        raises (a replica lost) is raised as it is."""
        if self.workers == 0:
            initials = await fetch(list(scoring.finals))
            try:
                return await anyio.to_thread.run_sync(scoring.score, self.tasks, initials)
            except Exception as error:
                raise ScoringFailed(_described(error)) from error
        scoring = replace(scoring, initials={} if all(scoring.keys.values())
                          else await fetch([a for a, k in scoring.keys.items() if k is None]))
        for attempt in range(2):
            pool = self._running()
            try:
                done = await asyncio.wrap_future(pool.submit(_score_in_worker, scoring))
                if isinstance(done, list):  # initial states it does not hold
                    more = await fetch(done)
                    done = await asyncio.wrap_future(pool.submit(
                        _score_in_worker, replace(scoring, initials={**scoring.initials,
                                                                     **more})))
                assert isinstance(done, Report)
                return done
            except BrokenProcessPool as error:
                self._replace(pool)
                if attempt == 1:
                    raise ScoringFailed("scoring failed: its worker process died twice "
                                        f"({error})") from error
            except Exception as error:
                raise ScoringFailed(_described(error)) from error
        raise AssertionError("unreachable")

    def warm(self) -> None:
        """Start the workers in the background, once: on the first episode created, so its
        finish finds them ready (they read the catalogue as they start), and never at boot."""
        if self.workers and self._pool is None:
            pool = self._running()
            for _ in range(self.workers):
                pool.submit(_ready)

    def _running(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker, initargs=(self._roots,))
        return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """A new pool for the next scores, once per broken one (its futures all fail)."""
        if self._pool is broken:
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def aclose(self) -> None:
        """Stop the workers (scores under way are dropped: their episodes stay open)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await anyio.to_thread.run_sync(lambda: pool.shutdown(cancel_futures=True))


def _described(error: Exception) -> str:
    return f"scoring failed: {type(error).__name__}: {error}"[:1000]


# A worker's own: its catalogue and the initial states it holds, by snapshot key.
_tasks: Catalogue | None = None
_initials: OrderedDict[str, bytes] = OrderedDict()


def _start_worker(roots: tuple[Path, ...]) -> None:
    """Serving first (a lower priority); the catalogue and the lexicon read once, before
    the first episode."""
    global _tasks
    os.nice(WORKER_NICENESS)
    _tasks = catalogue(roots)
    lexicon()


def _ready() -> None:
    """Nothing: a worker that ran it has started (Scorer.warm)."""


def _score_in_worker(scoring: Scoring) -> Report | list[str]:
    """The report, or the apps whose initial state this worker lacks."""
    assert _tasks is not None
    missing = [app for app, key in scoring.keys.items()
               if app not in scoring.initials and (key is None or key not in _initials)]
    if missing:
        return missing
    initials = {}
    for app, key in scoring.keys.items():
        given = scoring.initials.get(app)
        if given is None:
            assert key is not None
            _initials.move_to_end(key)
            initials[app] = _initials[key]
        else:
            initials[app] = given
            if key is not None:
                _keep(key, given)
    return scoring.score(_tasks, initials)


def _keep(key: str, data: bytes) -> None:
    _initials[key] = data
    while sum(map(len, _initials.values())) > INITIALS_BYTES and len(_initials) > 1:
        _initials.popitem(last=False)
