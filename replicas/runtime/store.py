"""The episodes a replica instance holds: create (= reset), look up, reclaim.

Expired episodes are freed on time by a reaper task (started with the first episode, in
the event loop that serves the app), and new episodes are refused (503 with Retry-After)
while the process holds more memory than its ceiling (``memory_limit_mb``).

Written episodes keep their databases open ("hot") while they are among the ``hot_episodes``
last served; the least recently served past them are closed ("cold"), keeping only the pages
they changed (``pagediff.py``), and opened again from those on their next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import sqlite3
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ValidationError

from workgym_core import credentials
from workgym_core.errors import (
    Conflict,
    EpisodeNotFound,
    InvalidRequest,
    ServiceUnavailable,
    field_path,
)
from workgym_core.refs import Others
from workgym_core.settings import Settings

from . import memory
from .clock import WORLD_START
from .db import cap_size
from .episode import Episode
from .reads import ReadCopies
from .setup import schema
from .snapshots import Prepared, SnapshotCache, load
from .spec import ReplicaSpec
from .workers import Workers

REAP_EVERY_S = 1.0  # at most this late, an expired episode is freed


class EpisodeStore:
    def __init__(self, spec: ReplicaSpec, settings: Settings) -> None:
        self.spec = spec
        self.settings = settings
        self.snapshots = SnapshotCache(spec, settings.data_dir, settings.snapshot_cache_size)
        self.memory_limit_mb = settings.memory_limit_mb or memory.default_limit_mb()
        self._episodes: dict[str, Episode] = {}
        self._hot: OrderedDict[str, Episode] = OrderedDict()  # least recently served first
        self._expiry: list[tuple[float, str]] = []
        self._reaper: asyncio.Task[None] | None = None
        self._reads = ReadCopies()
        self.workers = Workers(spec.name, settings.request_budget_s,
                               settings.max_query_terms, settings.episode_cpu_share)

    def __len__(self) -> int:
        return len(self._episodes)

    @cached_property
    def _schema(self) -> dict[str, list[str]]:
        conn = load(self.snapshots.pristine(0))
        try:
            return schema(conn)
        finally:
            conn.close()

    def schema(self) -> dict[str, list[str]]:
        """The app's tables and their columns (the same in every seed's world)."""
        return self._schema

    def create(
        self, episode_id: str, *, seed: int, setup: list[Any], script: dict[str, Any],
        ttl_s: float, others: Others | None = None, apps: list[str] | None = None,
        prepared: Prepared | None = None, user: str | None = None,
    ) -> Episode:
        """A new episode of the world of ``seed`` with ``setup`` applied (``others``: rows
        other apps of the episode bound, which the setup may refer to) and ``script``, the
        task's scripted actors, validated by the app's model. ``prepared``: that world,
        built already (``snapshots.prepared``, in a worker thread while serving); ``user``:
        the model that words what the app's people say (:attr:`Episode.user`)."""
        self._room_for(episode_id)
        actors = self._actors(script)
        others = others or {}
        prepared = prepared or self.snapshots.prepared(seed, setup, others)
        expires_at = time.time() + ttl_s
        episode = Episode(
            id=episode_id, seed=seed, clock_start=WORLD_START,
            snapshot_key=prepared.key, initial=prepared.data, vars=prepared.vars,
            others=others, actors=actors, expires_at=expires_at,
            apps=tuple(apps or (self.spec.name, *others)),
            # The same for every episode of the world of ``seed``, in every app (one app's
            # scripted customer says the codes another app sends: runtime/codes.py), and not
            # computable without the deployment's internal secret.
            secret=credentials.mac(self.settings.internal_secret, "world", str(seed)),
            user=user,
        )
        self._hold(episode)
        return episode

    async def fork(self, source_id: str, episode_id: str, *, ttl_s: float) -> Episode:
        """A new episode ``episode_id`` in the state of ``source_id`` now (its world, clock,
        actors and memory), expiring ``ttl_s`` from now; the two then diverge. Taken under
        the source's lock: never in the middle of one of its requests."""
        self._room_for(episode_id)
        source = self.get(source_id)
        async with source.lock:
            episode = source.copy(episode_id, time.time() + ttl_s)
            # What the source wrote, shared (never changed once made): the fork's first
            # request opens its own database from it.
            episode.cold = source.written()
        self._hold(episode)
        return episode

    def _room_for(self, episode_id: str) -> None:
        """Refuse a new episode whose id is taken, or while the process is past its memory
        ceiling (once the expired ones are reclaimed)."""
        if episode_id in self._episodes:
            raise Conflict(f"episode {episode_id} already exists", code="episode_exists")
        self.reclaim_expired()
        if (used := memory.resident_mb()) > self.memory_limit_mb:
            raise ServiceUnavailable(
                f"this {self.spec.name} instance is at its memory ceiling ({used:.0f} of "
                f"{self.memory_limit_mb:.0f} MB): finish or delete episodes, or add instances",
                code="capacity_exhausted", retry_after_s=5)

    def _hold(self, episode: Episode) -> None:
        self._episodes[episode.id] = episode
        heapq.heappush(self._expiry, (episode.expires_at, episode.id))
        self._start_reaper()

    def _actors(self, script: dict[str, Any]) -> BaseModel | None:
        model = self.spec.actors
        if model is None:
            if script:
                raise InvalidRequest(f"{self.spec.name} has no scripted actors",
                                     code="validation_error", field="script",
                                     rule="app_actors")
            return None
        try:
            return model.model_validate(script)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(["script", *field_path(first["loc"])])
            raise InvalidRequest(f"{where}: {first['msg']}", code="validation_error",
                                 field=where, rule=first["type"]) from exc

    @contextlib.asynccontextmanager
    async def opened(self, episode: Episode, write: bool) -> AsyncIterator[Episode]:
        """The episode, alone (its lock held), with ``db`` set for one request: its own
        database (made from its snapshot on its first write, opened again if it was closed),
        else a leased read copy."""
        async with episode.lock:
            if episode.own is None and (write or episode.cold is not None):
                self._open(episode)
            if episode.own is not None:
                self._hot.move_to_end(episode.id)
                episode.conn = episode.own
                try:
                    yield episode
                finally:
                    episode.conn = None
                return
            episode.conn = self._reads.lease(episode.snapshot_key, episode.initial)
            try:
                yield episode
            finally:
                self._reads.give_back(episode.snapshot_key, episode.conn)
                episode.conn = None

    def _open(self, episode: Episode) -> None:
        """Give ``episode`` its database: its snapshot with what it wrote, if anything. The
        least recently served past ``hot_episodes`` (not one serving a request) are closed
        first, and the connection of the last one closed is given its database: ~10x cheaper
        than a new connection, whose memory and page cache are new to it."""
        spare = None
        for other in list(self._hot.values()):
            if len(self._hot) < self.settings.hot_episodes:
                break
            if not other.lock.locked():
                if spare is not None:
                    spare.close()
                spare = self._cool(other)
        data = episode.cold.apply(episode.initial) if episode.cold is not None else episode.initial
        if spare is None:
            episode.own = load(data)
        else:  # its settings (foreign keys, no attaching) are the connection's: they stay
            spare.deserialize(data)
            episode.own = spare
        episode.cold = None
        cap_size(episode.own, len(episode.initial) + self.settings.episode_storage_bytes)
        self._hot[episode.id] = episode

    def _cool(self, episode: Episode) -> sqlite3.Connection:
        """Keep only the pages ``episode`` changed; its connection, taken from it, is the
        caller's to reuse or close."""
        conn = episode.own
        assert conn is not None
        episode.cold, episode.own = episode.written(), None
        del self._hot[episode.id]
        return conn

    def peek(self, episode_id: str) -> Episode | None:
        """The episode if this instance holds it, without raising."""
        return self._episodes.get(episode_id)

    def get(self, episode_id: str) -> Episode:
        episode = self._episodes.get(episode_id)
        if episode is None or episode.expires_at <= time.time():
            raise EpisodeNotFound(f"episode {episode_id} is not held by this {self.spec.name} "
                                  "instance (finished, expired or lost)")
        return episode

    def delete(self, episode_id: str) -> bool:
        episode = self._episodes.pop(episode_id, None)
        if episode is None:
            return False
        if episode.own is not None:
            episode.own.close()
        self._hot.pop(episode_id, None)
        return True

    def reclaim_expired(self) -> int:
        """Drop every episode past its expiry; cheap when none are (a heap peek). One still
        serving a request is dropped on the next pass."""
        now, dropped, busy = time.time(), 0, []
        while self._expiry and self._expiry[0][0] <= now:
            entry = heapq.heappop(self._expiry)
            episode = self._episodes.get(entry[1])
            if episode is None or episode.expires_at > now:
                continue
            if episode.lock.locked():
                busy.append(entry)
            else:
                dropped += self.delete(entry[1])
        for entry in busy:
            heapq.heappush(self._expiry, (now + REAP_EVERY_S, entry[1]))
        return dropped

    def _start_reaper(self) -> None:
        if self._reaper is not None and not self._reaper.done():
            return
        with contextlib.suppress(RuntimeError):  # no running loop: reclaimed on create
            self._reaper = asyncio.get_running_loop().create_task(self._reap())

    async def aclose(self) -> None:
        """Stop the reaper and drop the read copies (the server is shutting down)."""
        self._reads.close()
        self.workers.close()
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None

    async def _reap(self) -> None:
        while self._expiry:
            wait = self._expiry[0][0] - time.time()
            await asyncio.sleep(min(max(wait, 0.0), REAP_EVERY_S))
            self.reclaim_expired()
