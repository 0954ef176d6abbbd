"""Pristine and prepared snapshots: reset is a deserialize, never a re-seed.

* pristine: the seeded world of (app, data version, seed), cached in memory and
  as a real SQLite file under ``data_dir/snapshots`` so a restart or another
  process reuses it. The file is written atomically (aside, then renamed) and read-only,
  with its SHA-256 beside it (``<key>.sqlite.sha256``); a file that does not match its hash
  when loaded is never used: the world is seeded again and the file replaced;
* prepared: a pristine snapshot with a task's setup applied (and the world's activity
  going on around it: ``setup.py``), cached in memory
  per (pristine, setup, the other apps' bound rows it may refer to). GRPO groups share
  task and seed, so they share it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workgym_core.refs import Others

from . import changes
from .clock import WORLD_START
from .db import connect_memory
from .setup import apply_ops, digest, parse_ops
from .spec import ReplicaSpec

log = logging.getLogger("workgym.snapshots")

# Bumped when the runtime changes what a snapshot holds (e.g. the change-log triggers).
RUNTIME_VERSION = 2


@dataclass(frozen=True)
class Prepared:
    key: str
    data: bytes
    vars: dict[str, Any]


class _Lru(OrderedDict[str, Any]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def remember(self, key: str, value: Any) -> Any:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)
        return value

    def recall(self, key: str) -> Any | None:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value


def load(data: bytes | bytearray) -> sqlite3.Connection:
    """A private in-memory database holding ``data`` (an episode's: it can attach no other
    database, so no statement on it could ever reach a file)."""
    conn = connect_memory()
    conn.deserialize(data)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    return conn


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomically(path: Path, data: bytes, mode: int = 0o444) -> None:
    """``data`` at ``path``, never seen half-written: written aside, then renamed."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.chmod(mode)
    tmp.replace(path)


def read_verified(path: Path) -> bytes | None:
    """The snapshot at ``path`` if it is there and matches its recorded hash."""
    try:
        data = path.read_bytes()
        recorded = path.with_name(path.name + ".sha256").read_text().strip()
    except FileNotFoundError:
        return None
    if _digest(data) != recorded:
        log.error("snapshot %s does not match its recorded SHA-256: not used; seeding again",
                  path)
        return None
    return data


class SnapshotCache:
    def __init__(self, spec: ReplicaSpec, data_dir: Path, size: int) -> None:
        self.spec = spec
        self.dir = data_dir / "snapshots"
        self._pristine = _Lru(size)
        self._prepared = _Lru(size)
        # Worlds are built in worker threads (runtime/internal.py): each once, while worlds
        # of other keys are built and cached ones handed out meanwhile.
        self._guard = threading.Lock()  # the caches and the building locks
        self._building: dict[str, threading.Lock] = {}

    def pristine_key(self, seed: int) -> str:
        return f"{self.spec.name}-v{self.spec.data_version}.{RUNTIME_VERSION}-seed{seed}"

    def _once(self, cache: _Lru, key: str, build: Callable[[], Any]) -> Any:
        """``cache``'s ``key``, built by ``build`` once however many threads ask for it."""
        with self._guard:
            found = cache.recall(key)
            if found is not None:
                return found
            lock = self._building.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                found = cache.recall(key)
            if found is None:
                found = build()
                with self._guard:
                    cache.remember(key, found)
                    self._building.pop(key, None)
            return found

    def pristine(self, seed: int) -> bytes:
        key = self.pristine_key(seed)
        image: bytes = self._once(self._pristine, key, lambda: self._read_or_seed(key, seed))
        return image

    def _read_or_seed(self, key: str, seed: int) -> bytes:
        path = self.dir / f"{key}.sqlite"
        data = read_verified(path)
        if data is not None:
            return data
        conn = connect_memory()
        self.spec.seed(conn, seed, WORLD_START)
        changes.install(conn)
        conn.execute("VACUUM")
        data = conn.serialize()
        conn.close()
        self.dir.mkdir(parents=True, exist_ok=True)
        # The hash first: a reader between the two renames sees a mismatch and seeds again.
        write_atomically(path.with_name(path.name + ".sha256"), _digest(data).encode())
        write_atomically(path, data)
        return data

    def _prepared_key(self, seed: int, setup: list[Any], others: Others) -> str:
        return f"{self.pristine_key(seed)}-{digest([setup, others])[:16]}"

    def built(self, seed: int, setup: list[Any], others: Others | None = None
              ) -> Prepared | None:
        """:meth:`prepared`'s world if it is built already (no wait, no thread), else None."""
        with self._guard:
            found: Prepared | None = self._prepared.recall(
                self._prepared_key(seed, setup, others or {}))
        return found

    def prepared(self, seed: int, setup: list[Any], others: Others | None = None) -> Prepared:
        """The world of ``seed`` with ``setup`` applied (``others``: the rows other apps of
        the episode bound, which it may refer to)."""
        others = others or {}
        key = self._prepared_key(seed, setup, others)

        def build() -> Prepared:
            conn = load(self.pristine(seed))
            bound = apply_ops(conn, parse_ops(setup), WORLD_START, seed=seed, others=others,
                              factories=self.spec.factories, field="setup",
                              activity=parse_ops(self.spec.activity))
            conn.execute("DELETE FROM _changes")  # the world as the agent finds it: nothing yet
            prepared = Prepared(key=key, data=conn.serialize(), vars=bound)
            conn.close()
            return prepared

        found: Prepared = self._once(self._prepared, key, build)
        return found
