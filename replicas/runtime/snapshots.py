"""Pristine and prepared snapshots: reset is a deserialize, never a re-seed.

* pristine: the seeded world of (app, data version, seed), cached in memory and
  as a real SQLite file under ``data_dir/snapshots`` so a restart or another
  process reuses it;
* prepared: a pristine snapshot with a task's setup applied, cached in memory
  per (pristine, setup). GRPO groups share task and seed, so they share it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from . import changes
from .clock import WORLD_START
from .db import connect_memory
from .setup import apply_setup, parse_setup
from .spec import ReplicaSpec

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


def load(data: bytes) -> sqlite3.Connection:
    """A private in-memory database holding ``data``."""
    conn = connect_memory()
    conn.deserialize(data)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


class SnapshotCache:
    def __init__(self, spec: ReplicaSpec, data_dir: Path, size: int) -> None:
        self.spec = spec
        self.dir = data_dir / "snapshots"
        self._pristine = _Lru(size)
        self._prepared = _Lru(size)

    def pristine_key(self, seed: int) -> str:
        return f"{self.spec.name}-v{self.spec.data_version}.{RUNTIME_VERSION}-seed{seed}"

    def pristine(self, seed: int) -> bytes:
        key = self.pristine_key(seed)
        data = self._pristine.recall(key)
        if data is None:
            data = self._read_or_seed(key, seed)
            self._pristine.remember(key, data)
        return data

    def _read_or_seed(self, key: str, seed: int) -> bytes:
        path = self.dir / f"{key}.sqlite"
        if path.exists():
            return path.read_bytes()
        conn = connect_memory()
        self.spec.seed(conn, seed, WORLD_START)
        changes.install(conn)
        conn.execute("VACUUM")
        data = conn.serialize()
        conn.close()
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)  # atomic: concurrent processes never read half a file
        return data

    def prepared(self, seed: int, setup: list[Any]) -> Prepared:
        digest = hashlib.sha256(orjson.dumps(setup, option=orjson.OPT_SORT_KEYS)).hexdigest()
        key = f"{self.pristine_key(seed)}-{digest[:16]}"
        found = self._prepared.recall(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        conn = load(self.pristine(seed))
        bound = apply_setup(conn, parse_setup(setup), WORLD_START)
        conn.execute("DELETE FROM _changes")  # the world as the agent finds it: nothing yet
        prepared = Prepared(key=key, data=conn.serialize(), vars=bound)
        conn.close()
        return self._prepared.remember(key, prepared)  # type: ignore[no-any-return]
