"""Job statuses of bulk requests (create_many, update_many, merge). Zendesk queues them;
here each runs within its request, item by item (one item's refusal is its result, the
others still apply), so the job a client polls is already completed."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from workgym_core.errors import NotFound, WorkGymError

Row = dict[str, Any]


def record(db: sqlite3.Connection, job_type: str, results: list[Row], now: datetime) -> Row:
    n = db.execute("SELECT count(*) FROM job_statuses").fetchone()
    count = n["count(*)"] if isinstance(n, dict) else n[0]
    job_id = "V3-" + hashlib.sha1(f"{count}:{iso(now)}:{job_type}".encode()).hexdigest()[:32]
    failed = [r for r in results if not r.get("success", True)]
    sql.insert(db, "job_statuses", {
        "id": job_id, "job_type": job_type, "status": "completed", "total": len(results),
        "progress": len(results), "results": orjson.dumps(results).decode(),
        "message": f"Completed at {iso(now)}" + (f" ({len(failed)} failed)" if failed else ""),
        "created_at": iso(now)})
    row: Row = db.execute("SELECT * FROM job_statuses WHERE id = ?", (job_id,)).fetchone()
    return row


def get(db: sqlite3.Connection, job_id: str) -> Row:
    """The job status ``job_id``, or NotFound naming it."""
    row: Row | None = db.execute("SELECT * FROM job_statuses WHERE id = ?", (job_id,)).fetchone()
    if row is None:
        raise NotFound(f"job status {job_id} does not exist", code="job_status_not_found")
    return row


def each(db: sqlite3.Connection, items: Iterable[int], run: Callable[[int], Row | None],
         action: str, done: str, key: str = "id") -> list[Row]:
    """``run`` on every item (an id, or with ``key="index"`` a position in the request)
    inside a savepoint: a refusal is that item's result; what ``run`` returns (a created
    record's ``id``) joins its result."""
    results: list[Row] = []
    for item in items:
        db.execute("SAVEPOINT job_item")
        try:
            extra = run(item)
        except WorkGymError as error:
            db.execute("ROLLBACK TO job_item")
            results.append({key: item, "action": action, "success": False,
                            "status": "Failed", "error": error.code,
                            "details": error.message})
        else:
            results.append({key: item, "action": action, "success": True, "status": done,
                            **(extra or {})})
        db.execute("RELEASE job_item")
    return results
