"""The episodes a replica instance holds: create (= reset), look up, reclaim."""

from __future__ import annotations

import heapq
import time
from typing import Any

from workgym.runtime.errors import Conflict, NotFound
from workgym.runtime.settings import Settings

from .clock import WORLD_START
from .episode import Episode
from .snapshots import SnapshotCache, load
from .spec import ReplicaSpec


class EpisodeStore:
    def __init__(self, spec: ReplicaSpec, settings: Settings) -> None:
        self.spec = spec
        self.snapshots = SnapshotCache(spec, settings.data_dir, settings.snapshot_cache_size)
        self._episodes: dict[str, Episode] = {}
        self._expiry: list[tuple[float, str]] = []

    def __len__(self) -> int:
        return len(self._episodes)

    def create(
        self, episode_id: str, *, seed: int, setup: list[Any], script: dict[str, Any], ttl_s: float
    ) -> Episode:
        if episode_id in self._episodes:
            raise Conflict(f"episode {episode_id} already exists", code="episode_exists")
        self.reclaim_expired()
        prepared = self.snapshots.prepared(seed, setup)
        expires_at = time.time() + ttl_s
        episode = Episode(
            id=episode_id, db=load(prepared.data), seed=seed, clock_start=WORLD_START,
            snapshot_key=prepared.key, initial=prepared.data, vars=prepared.vars,
            script=script, expires_at=expires_at,
        )
        self._episodes[episode_id] = episode
        heapq.heappush(self._expiry, (expires_at, episode_id))
        return episode

    def peek(self, episode_id: str) -> Episode | None:
        """The episode if this instance holds it, without raising."""
        return self._episodes.get(episode_id)

    def get(self, episode_id: str) -> Episode:
        episode = self._episodes.get(episode_id)
        if episode is None or episode.expires_at <= time.time():
            raise NotFound(
                f"episode {episode_id} is not held by this {self.spec.name} instance "
                "(finished, expired or lost)", code="episode_not_found",
            )
        return episode

    def delete(self, episode_id: str) -> bool:
        episode = self._episodes.pop(episode_id, None)
        if episode is None:
            return False
        episode.db.close()
        return True

    def reclaim_expired(self) -> int:
        """Drop every episode past its expiry; cheap when none are (a heap peek)."""
        now, dropped = time.time(), 0
        while self._expiry and self._expiry[0][0] <= now:
            _, episode_id = heapq.heappop(self._expiry)
            episode = self._episodes.get(episode_id)
            if episode is not None and episode.expires_at <= now:
                dropped += self.delete(episode_id)
        return dropped
