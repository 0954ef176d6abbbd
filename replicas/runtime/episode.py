"""One episode's private world inside a replica instance.

An episode that has not written has no database of its own: its reads run on a copy of its
prepared snapshot leased for the request (:class:`replicas.runtime.reads.ReadCopies`), shared
in turn by every unwritten episode of that snapshot. Its first write gives it its own copy
(``own``), open while it is among the instance's recently served written episodes; past them it
is closed and the episode keeps only the pages it changed (``cold``: ``pagediff.py``), opened
again on its next request. Either way, ``db`` is the connection of the request being served,
set by :meth:`replicas.runtime.store.EpisodeStore.opened` under the episode's lock.
"""

from __future__ import annotations

import asyncio
import copy
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from workgym_core.refs import Others

from .pagediff import PageDiff

# Virtual time advances by this much per agent request: the world's clock is a
# function of the step index, never of wall time.
STEP_DURATION = timedelta(minutes=1)


@dataclass
class Episode:
    id: str
    seed: int
    clock_start: datetime
    snapshot_key: str
    # The prepared snapshot this episode started from (shared, never copied).
    initial: bytes
    vars: dict[str, Any]
    # Rows other apps of the episode bound before this one (app -> name -> row).
    others: Others
    # The task's scripted actors, validated by the app's model (SPEC.actors), if any.
    actors: BaseModel | None
    expires_at: float
    # Every app of the episode (this one's and the others', in the task's order).
    apps: tuple[str, ...]
    # Where the world's secrets (verification codes) derive from; never shown to the agent.
    secret: str
    # The model that words what the app's people say ("openai:MODEL": the helpdesk's
    # customer), None: their scripts' own words. What they say stays the scripts' decision.
    user: str | None = None
    step: int = 0
    # Free-form per-episode memory of the app (e.g. which scripted replies were sent).
    memory: dict[str, Any] = field(default_factory=dict)
    # Serialises requests of this episode: a write's transaction spans awaits.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    # Its own database, from its first write on, while it is open ("hot").
    own: sqlite3.Connection | None = field(default=None, repr=False)
    # What it wrote, while its database is closed ("cold").
    cold: PageDiff | None = field(default=None, repr=False)
    # The connection of the request being served (own, or a leased read copy).
    conn: sqlite3.Connection | None = field(default=None, repr=False)

    @property
    def db(self) -> sqlite3.Connection:
        if self.conn is None:
            raise RuntimeError(f"episode {self.id}'s database is used outside a request "
                               "(EpisodeStore.opened)")
        return self.conn

    def state(self) -> bytes:
        """The world as it is now (its snapshot while it has not written)."""
        if self.own is not None:
            return self.own.serialize()
        return bytes(self.cold.apply(self.initial)) if self.cold is not None else self.initial

    def written(self) -> PageDiff | None:
        """What it wrote against its snapshot, open or not (None: nothing yet). Never changed
        once made: an episode given it (``cold``) has this one's state."""
        if self.own is not None:
            return PageDiff.between(self.initial, self.own.serialize())
        return self.cold

    def copy(self, episode_id: str, expires_at: float) -> Episode:
        """A new episode ``episode_id`` where this one is now: its clock, vars, actors and
        memory (copied: the two then diverge), its snapshot (shared, never changed); no
        database of its own yet (the store gives it what this one wrote: EpisodeStore.fork).
        Call it with this episode's lock held."""
        return Episode(
            id=episode_id, seed=self.seed, clock_start=self.clock_start,
            snapshot_key=self.snapshot_key, initial=self.initial, vars=copy.deepcopy(self.vars),
            others=copy.deepcopy(self.others), actors=self.actors, expires_at=expires_at,
            apps=self.apps, secret=self.secret, user=self.user, step=self.step,
            memory=copy.deepcopy(self.memory))

    def now(self) -> datetime:
        """The episode's virtual clock at the current step."""
        return self.clock_start + self.step * STEP_DURATION
