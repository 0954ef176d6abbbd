"""Dependencies of replica routes: the calling episode and its database, and the app's
public base URL."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator, Callable
from typing import Annotated

from fastapi import Depends, Request

from workgym_core.asgi import READ_METHODS
from workgym_core.errors import InvalidRequest, ServiceUnavailable
from workgym_core.internal import (
    BASE_HEADER,
    EPISODE_HEADER,
    STEP_HEADER,
    VALIDATE_HEADER,
    require_internal,
)

from . import budget
from .db import storage_full
from .episode import Episode
from .store import EpisodeStore

log = logging.getLogger(__name__)


async def current_episode(request: Request) -> AsyncIterator[Episode]:
    """The episode the proxy named, opened for this request by ObserveRequests (which holds
    its lock); writes run in one transaction, rolled back on error (a request past its time
    budget is one: ``budget.py``), and always on a
    validate-only pass (``VALIDATE_HEADER``: the proxy asks whether the app would accept the
    request; the world's actors do not answer it)."""
    store: EpisodeStore = request.app.state.store
    require_internal(request.headers, request.app.state.settings.internal_secret)
    episode_id = request.headers.get(EPISODE_HEADER)
    if not episode_id:
        raise InvalidRequest("missing episode header", field=EPISODE_HEADER, rule="required")
    episode = store.get(episode_id)
    budget.admit()
    step = request.headers.get(STEP_HEADER)
    if step is not None and step.isdigit():
        episode.step = int(step)
    if request.method in READ_METHODS:
        try:
            yield episode
        except sqlite3.OperationalError as exc:
            if (spent := budget.translate(exc)) is not None:
                raise spent from exc
            raise
        return
    episode.db.execute("BEGIN IMMEDIATE")
    try:
        yield episode
        if request.headers.get(VALIDATE_HEADER) == "1":
            episode.db.execute("ROLLBACK")
            return
        if store.spec.after_write is not None:
            _actors_answer(episode, store.spec.after_write)
    except BaseException as exc:
        if episode.db.in_transaction:  # SQLITE_FULL rolled it back already
            episode.db.execute("ROLLBACK")
        if refusal := storage_full(exc, store.settings.episode_storage_bytes):
            raise refusal from exc
        if (spent := budget.translate(exc)) is not None:
            raise spent from exc
        raise
    episode.db.execute("COMMIT")


def _actors_answer(episode: Episode, after_write: Callable[[Episode], None]) -> None:
    """The app's actors answer the write (the scripted customer, the developers), outside the
    request's time budget (``budget.world_answers``); one that fails undoes only its own part
    and is logged: the agent's write, answered already, stands. One whose outside service
    is unavailable (the model wording the customer: ServiceUnavailable) refuses the write
    whole, 503: the world would otherwise go on without the answer it owes."""
    episode.db.execute("SAVEPOINT actors")
    try:
        with budget.world_answers():
            after_write(episode)
    except ServiceUnavailable:
        raise
    except Exception:
        if not episode.db.in_transaction:
            raise  # SQLITE_FULL undid the agent's write too: it is refused
        episode.db.execute("ROLLBACK TO actors")
        log.exception("the actors of episode %s failed to answer a write", episode.id)
    episode.db.execute("RELEASE actors")


EpisodeDep = Annotated[Episode, Depends(current_episode)]


async def public_base(request: Request) -> str:
    """The app's public base URL as the proxy passed it (workgym_core.internal.BASE_HEADER),
    for the absolute links a product's API answers with; '' when called directly. Async, as
    every dependency: FastAPI runs a sync one in a worker thread."""
    return request.headers.get(BASE_HEADER, "")


PublicBase = Annotated[str, Depends(public_base)]
