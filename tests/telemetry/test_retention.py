"""Retention: the store stays within its span count and age limits."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from workgym_telemetry.models import Span
from workgym_telemetry.records import Point
from workgym_telemetry.settings import TelemetrySettings
from workgym_telemetry.store import SpanStore


def _spans(start: int, count: int, *, per_episode: int = 10) -> list[Span]:
    return [
        Span(trace_id=f"{i:032x}", span_id=f"{i:016x}", parent_span_id=None, name="proxy.step",
             kind="SERVER", start_ns=i * 1_000, end_ns=i * 1_000 + 500, status="UNSET",
             status_message="", service_name="proxy", episode_id=f"ep-{i // per_episode}",
             attributes={"workgym.episode_id": f"ep-{i // per_episode}", "workgym.step": i})
        for i in range(start, start + count)
    ]


def test_span_count_is_bounded_and_the_newest_are_kept(tmp_path: Path) -> None:
    store = SpanStore(TelemetrySettings(data_dir=tmp_path, max_spans=50, prune_every=20))
    for batch in range(20):
        store.add_spans(_spans(batch * 15, 15))

    counts = store.counts()

    assert 50 <= counts["spans"] < 50 + 20 + 15
    assert store.episode_spans("ep-29")  # the newest episode
    assert store.episode_spans("ep-0") == []
    kept = {e.id for e in store.episodes(limit=1000)}
    assert "ep-0" not in kept and "ep-29" in kept
    assert counts["episodes"] == len(kept) <= 9
    store.close()


def test_old_spans_and_points_age_out(tmp_path: Path) -> None:
    store = SpanStore(TelemetrySettings(data_dir=tmp_path, max_age_s=0.3, prune_every=5))
    store.add_spans(_spans(0, 10))
    store.add_points([Point("m", "gauge", 1, None, 1.0, {})] * 10)
    time.sleep(0.4)

    store.add_spans(_spans(100, 10))

    assert store.counts() == {"spans": 10, "points": 0, "episodes": 1}
    assert [e.id for e in store.episodes()] == ["ep-10"]
    store.close()


def test_limits_apply_when_the_store_opens(tmp_path: Path) -> None:
    store = SpanStore(TelemetrySettings(data_dir=tmp_path))
    store.add_spans(_spans(0, 100))
    store.close()

    reopened = SpanStore(TelemetrySettings(data_dir=tmp_path, max_spans=30))

    assert reopened.counts()["spans"] == 30
    assert reopened.episode_spans("ep-9")
    reopened.close()


def test_a_batch_is_written_in_one_transaction_in_wal_mode(tmp_path: Path) -> None:
    store = SpanStore(TelemetrySettings(data_dir=tmp_path))
    broken = _spans(0, 5)
    broken[3] = replace(broken[3], name=None)  # type: ignore[arg-type]  # violates NOT NULL

    with pytest.raises(sqlite3.IntegrityError, match="NOT NULL"):
        store.add_spans(broken)

    assert store.counts()["spans"] == 0
    with sqlite3.connect(store.settings.db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
