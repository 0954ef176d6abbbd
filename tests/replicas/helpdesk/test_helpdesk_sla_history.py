"""The SLA's clock reads what it steps on (public comments, status changes), never every note
and audit of a ticket: a write costs the same whatever the ticket's history (counted in
SQLite's virtual-machine steps, not timed), and derives the same metric events."""

from __future__ import annotations

import sqlite3
import tempfile
from datetime import timedelta
from pathlib import Path

from replicas.helpdesk.rules import sla
from replicas.helpdesk.rules.tickets import Change, update
from replicas.helpdesk.spec import SPEC
from replicas.runtime.clock import WORLD_START
from replicas.runtime.snapshots import SnapshotCache, load

NOTE = {"body": "Checked the order again.", "public": False}


def _world() -> sqlite3.Connection:
    return load(SnapshotCache(SPEC, Path(tempfile.mkdtemp()), 1).pristine(7))


def _steps(db: sqlite3.Connection, ticket_id: int) -> int:
    """SQLite VM steps (in thousands) of one SLA sync of the ticket."""
    counted = [0]

    def count() -> int:
        counted[0] += 1
        return 0

    db.set_progress_handler(count, 1000)
    try:
        sla.sync(db, ticket_id, WORLD_START)
    finally:
        db.set_progress_handler(None, 0)
    return counted[0]


def test_a_ticket_notes_do_not_grow_its_sla_sync() -> None:
    db = _world()
    long, short = (r["id"] for r in db.execute(
        "SELECT id FROM tickets WHERE status IN ('open', 'new') ORDER BY id LIMIT 2"))
    events = db.execute("SELECT * FROM ticket_metric_events WHERE ticket_id = ? ORDER BY id",
                        (long,)).fetchall()
    before = _steps(db, long)
    for i in range(400):
        update(db, long, Change(comment=NOTE), WORLD_START + timedelta(seconds=i))
    assert _steps(db, long) <= before + 5  # each audit and note read: ~8,000 steps more
    assert _steps(db, long) <= _steps(db, short) + 5
    # Private notes stop no clock: the same events as before them.
    assert db.execute("SELECT * FROM ticket_metric_events WHERE ticket_id = ? ORDER BY id",
                      (long,)).fetchall() == events
