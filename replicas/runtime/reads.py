"""Read copies of prepared snapshots, leased to the episodes that have not written.

An idle episode then costs no database: the copies are as many as the reads being served at
once (per snapshot), not as many as the episodes. A copy is read-only (``query_only``): a
route that wrote through one would fail loudly instead of changing every episode sharing it.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict

from .snapshots import load

KEEP_PER_SNAPSHOT = 4  # idle copies kept per snapshot, ready for the next read
KEEP_SNAPSHOTS = 64  # snapshots whose idle copies are kept (least recently used dropped)


class ReadCopies:
    def __init__(self) -> None:
        self._idle: OrderedDict[str, list[sqlite3.Connection]] = OrderedDict()

    def lease(self, key: str, data: bytes) -> sqlite3.Connection:
        """A read-only copy of the snapshot ``key`` (``data``), for one request."""
        idle = self._idle.get(key)
        if idle:
            self._idle.move_to_end(key)
            return idle.pop()
        conn = load(data)
        conn.execute("PRAGMA query_only = ON")
        return conn

    def give_back(self, key: str, conn: sqlite3.Connection) -> None:
        conn.set_trace_callback(None)
        idle = self._idle.setdefault(key, [])
        self._idle.move_to_end(key)
        if len(idle) < KEEP_PER_SNAPSHOT:
            idle.append(conn)
        else:
            conn.close()
        while len(self._idle) > KEEP_SNAPSHOTS:
            for dropped in self._idle.popitem(last=False)[1]:
                dropped.close()

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()
