"""Read copies of prepared snapshots, leased to the episodes that have not written.

An idle episode then costs no database: the copies are as many as the reads being served at
once (per snapshot), not as many as the episodes. A copy is read-only (``query_only``): a
route that wrote through one would fail loudly instead of changing every episode sharing it.

A copy given back is kept for the next read of its snapshot, however many are being given
back: a snapshot keeps as many as it ever had in use at once, so the reads of a steady load
never deserialize one (a copy costs a deserialize, the schema's parse and its statements'
preparation). Reads arriving in bursts rebuilt them: with four kept per snapshot, each burst
past that many made its copies again (a quarter of the replica's CPU per read through the
proxy at 16 episodes: ``python -m workgym_perf.bench proxy``).
What bounds the memory is the count of idle copies over all snapshots: past it, the least
recently used snapshot's are dropped first.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict

from .snapshots import load

KEEP_COPIES = 256  # idle copies kept, over all snapshots (~1.6-4.4 MB each)


class ReadCopies:
    def __init__(self, keep: int = KEEP_COPIES) -> None:
        self.keep = keep
        self.built = 0  # copies made so far (one is made only when its snapshot has none idle)
        # Each snapshot's idle copies (never an empty list), least recently given back first.
        self._idle: OrderedDict[str, list[sqlite3.Connection]] = OrderedDict()
        self._held = 0  # idle copies, over all snapshots

    def __len__(self) -> int:
        """Idle copies held."""
        return self._held

    def lease(self, key: str, data: bytes) -> sqlite3.Connection:
        """A read-only copy of the snapshot ``key`` (``data``), for one request."""
        idle = self._idle.get(key)
        if idle:
            self._held -= 1
            conn = idle.pop()  # the one given back last: its pages are the warmest
            if not idle:
                del self._idle[key]
            return conn
        self.built += 1
        conn = load(data)
        conn.execute("PRAGMA query_only = ON")
        return conn

    def give_back(self, key: str, conn: sqlite3.Connection) -> None:
        conn.set_trace_callback(None)
        self._idle.setdefault(key, []).append(conn)
        self._idle.move_to_end(key)
        self._held += 1
        while self._held > self.keep:
            oldest, idle = next(iter(self._idle.items()))
            idle.pop(0).close()  # its least recently given back
            self._held -= 1
            if not idle:
                del self._idle[oldest]

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()
        self._held = 0
