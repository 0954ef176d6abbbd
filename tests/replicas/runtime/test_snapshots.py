"""Prepared snapshots: a pristine world with a task's setup applied, cached per (pristine,
setup, the other apps' rows it may refer to)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replicas.runtime.snapshots import SnapshotCache, load
from tests.replicas.runtime.toy_app import SPEC
from workgym_core.refs import BadReference

SETUP = [{"bind": "p", "insert": "people", "values": {"name": "$checkout.order.number"}}]


def name_of(data: bytes, person_id: int) -> str:
    conn = load(data)
    try:
        return str(conn.execute("SELECT name FROM people WHERE id = ?", (person_id,))
                   .fetchone()["name"])
    finally:
        conn.close()


def test_the_cache_key_covers_the_other_apps_rows(tmp_path: Path) -> None:
    cache = SnapshotCache(SPEC, tmp_path, size=4)
    first = cache.prepared(1, SETUP, {"checkout": {"order": {"number": "A-1"}}})
    again = cache.prepared(1, SETUP, {"checkout": {"order": {"number": "A-1"}}})
    other = cache.prepared(1, SETUP, {"checkout": {"order": {"number": "A-2"}}})
    assert again is first  # the same world: shared, never rebuilt
    assert other.key != first.key
    assert (first.vars["p"]["name"], other.vars["p"]["name"]) == ("A-1", "A-2")
    assert name_of(other.data, other.vars["p"]["id"]) == "A-2"


def test_a_setup_without_others_is_prepared_as_before(tmp_path: Path) -> None:
    cache = SnapshotCache(SPEC, tmp_path, size=4)
    plain = cache.prepared(3, [{"bind": "p", "factory": "person"}])
    assert plain.key.startswith(cache.pristine_key(3))
    assert plain.vars["p"]["email"]
    with pytest.raises(BadReference, match="no app 'checkout'"):
        cache.prepared(3, SETUP)
