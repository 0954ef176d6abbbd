"""The span store: one SQLite file in WAL mode, bounded by count and age.

Spans get dense, increasing ids in arrival order and retention only ever deletes the
oldest ids, so both limits are prefix deletes on the primary key: every
``prune_every`` rows written, rows past ``max_spans`` (``max_points``) and rows that
arrived more than ``max_age_s`` ago go. Each episode keeps a summary row, merged on
every write, that lives as long as its newest span.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from .models import EpisodeSummary, Outcome, Span
from .records import Point
from .settings import TelemetrySettings
from .summaries import episode_rows

_SCHEMA = """
CREATE TABLE IF NOT EXISTS spans (
    id INTEGER PRIMARY KEY,
    trace_id TEXT NOT NULL,
    span_id TEXT NOT NULL,
    parent_span_id TEXT,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT NOT NULL,
    service_name TEXT,
    episode_id TEXT,
    attributes TEXT NOT NULL,
    events TEXT NOT NULL,
    received_ns INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS spans_episode ON spans (episode_id, start_ns)
    WHERE episode_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS spans_trace ON spans (trace_id);
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    time_ns INTEGER NOT NULL,
    service_name TEXT,
    value TEXT NOT NULL,
    attributes TEXT NOT NULL,
    received_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    episode_id TEXT PRIMARY KEY,
    task TEXT,
    started_ns INTEGER NOT NULL,
    ended_ns INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    reward REAL,
    success INTEGER,
    last_span_id INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_started ON episodes (started_ns);
"""

_SPAN_COLUMNS = ("trace_id, span_id, parent_span_id, name, kind, start_ns, end_ns, status, "
                 "status_message, service_name, episode_id, attributes, events")

_MERGE_EPISODE = """
INSERT INTO episodes (episode_id, task, started_ns, ended_ns, steps, reward, success,
                      last_span_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (episode_id) DO UPDATE SET
    task = coalesce(excluded.task, task),
    started_ns = min(started_ns, excluded.started_ns),
    ended_ns = max(ended_ns, excluded.ended_ns),
    steps = max(steps, excluded.steps),
    reward = coalesce(excluded.reward, reward),
    success = coalesce(excluded.success, success),
    last_span_id = max(last_span_id, excluded.last_span_id)
"""


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


class SpanStore:
    """Thread-safe: one connection, one lock; FastAPI calls it from its thread pool."""

    def __init__(self, settings: TelemetrySettings) -> None:
        self.settings = settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(settings.db_path, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()
        self._written = 0
        with self._transaction():
            self._prune()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def add_spans(self, spans: Sequence[Span]) -> None:
        """Store one request's spans and merge their episodes' summaries, in one transaction."""
        if not spans:
            return
        now = time.time_ns()
        with self._transaction() as db:
            first: int = db.execute("SELECT coalesce(max(id), 0) + 1 FROM spans").fetchone()[0]
            db.executemany(
                f"INSERT INTO spans (id, {_SPAN_COLUMNS}, received_ns) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(first + i, s.trace_id, s.span_id, s.parent_span_id, s.name, s.kind,
                  s.start_ns, s.end_ns, s.status, s.status_message, s.service_name,
                  s.episode_id, _json(s.attributes), _json(s.events), now)
                 for i, s in enumerate(spans)],
            )
            db.executemany(
                _MERGE_EPISODE,
                [(e.episode_id, e.task, e.started_ns, e.ended_ns, e.steps, e.reward, e.success,
                  first + e.last_index) for e in episode_rows(spans)],
            )
            self._written += len(spans)
            if self._written >= self.settings.prune_every:
                self._prune()

    def add_points(self, points: Sequence[Point]) -> None:
        if not points:
            return
        now = time.time_ns()
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO points (name, kind, time_ns, service_name, value, attributes, "
                "received_ns) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(p.name, p.kind, p.time_ns, p.service_name, _json(p.value),
                  _json(p.attributes), now) for p in points],
            )
            self._written += len(points)
            if self._written >= self.settings.prune_every:
                self._prune()

    def _prune(self) -> None:
        """Drop the oldest rows past the count and age limits (inside a transaction)."""
        cutoff = time.time_ns() - int(self.settings.max_age_s * 1e9)
        limits = (("spans", self.settings.max_spans), ("points", self.settings.max_points))
        for table, keep in limits:
            self._db.execute(
                f"DELETE FROM {table} WHERE id <= (SELECT max(id) FROM {table}) - ?", (keep,)
            )
            self._db.execute(
                f"DELETE FROM {table} WHERE id < coalesce("
                f"(SELECT id FROM {table} WHERE received_ns >= ? ORDER BY id LIMIT 1), "
                f"(SELECT max(id) + 1 FROM {table}))",
                (cutoff,),
            )
        self._db.execute(
            "DELETE FROM episodes WHERE last_span_id < coalesce((SELECT min(id) FROM spans), "
            "last_span_id + 1)"
        )
        self._written = 0

    def counts(self) -> dict[str, int]:
        """Rows kept per table."""
        with self._lock:
            return {table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    for table in ("spans", "points", "episodes")}

    def episodes(self, *, task: str | None = None, outcome: Outcome | None = None,
                 limit: int = 50) -> list[EpisodeSummary]:
        """The most recently started episodes, newest first."""
        where: list[str] = ["1"]
        params: list[str | int] = []
        if task is not None:
            where.append("task = ?")
            params.append(task)
        if outcome is not None:
            where.append("success = ?")
            params.append(int(outcome == "success"))
        with self._lock:
            rows = self._db.execute(
                "SELECT episode_id, task, reward, success, started_ns, ended_ns, steps "
                f"FROM episodes WHERE {' AND '.join(where)} ORDER BY started_ns DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [
            EpisodeSummary(id=r[0], task=r[1], reward=r[2],
                           success=None if r[3] is None else bool(r[3]),
                           started=r[4] / 1e9, duration_ms=(r[5] - r[4]) / 1e6, steps=r[6])
            for r in rows
        ]

    def tasks(self) -> list[str]:
        """The tasks of the episodes kept."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT task FROM episodes WHERE task IS NOT NULL ORDER BY task"
            ).fetchall()
        return [r[0] for r in rows]

    def episode_spans(self, episode_id: str, *, with_trace: bool = False) -> list[Span]:
        """The episode's spans by start time; ``with_trace`` adds the spans without an
        episode id (e.g. ``db.query``) of the traces the episode's spans belong to."""
        query = f"SELECT {_SPAN_COLUMNS} FROM spans WHERE episode_id = ?"
        params: tuple[str, ...] = (episode_id,)
        if with_trace:
            query += (" UNION ALL SELECT " + _SPAN_COLUMNS + " FROM spans WHERE episode_id IS NULL"
                      " AND trace_id IN (SELECT trace_id FROM spans WHERE episode_id = ?)")
            params = (episode_id, episode_id)
        with self._lock:
            rows = self._db.execute(f"{query} ORDER BY start_ns, span_id", params).fetchall()
        return [
            Span(trace_id=r[0], span_id=r[1], parent_span_id=r[2], name=r[3], kind=r[4],
                 start_ns=r[5], end_ns=r[6], status=r[7], status_message=r[8],
                 service_name=r[9], episode_id=r[10], attributes=orjson.loads(r[11]),
                 events=orjson.loads(r[12]))
            for r in rows
        ]
