"""No SQL anywhere an HTTP client can supply it, and snapshots nobody can poison.

Before: a custom fault plan's ``state_drift`` ops carried raw SQL that the replica ran
(ATTACH and VACUUM INTO wrote files anywhere, read other SQLite files, and overwrote the
cached pristine snapshots later episodes load). Now custom plans are the operator's, and
every change another actor makes is a row operation checked against the app's own tables."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replicas.catalog import spec
from replicas.runtime.snapshots import SnapshotCache
from tests.conftest import replica_post
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

from .conftest import TASK, operator, ticket_of

MakeEnv = Callable[..., Env]

ATTACKS: list[tuple[list[dict[str, Any]], str]] = [
    ([{"sql": "VACUUM INTO '/tmp/poisoned.sqlite'"}], "faults.0.ops.0.op"),
    ([{"op": "sql", "sql": "ATTACH DATABASE '/etc/passwd' AS x"}], "faults.0.ops.0.op"),
    ([{"select": "SELECT * FROM users", "bind": "x"}], "faults.0.ops.0.select"),
    ([{"update": "tickets; DROP TABLE tickets", "id": 1, "values": {"status": "open"}}],
     "faults.0.ops.0.update"),
    ([{"update": "tickets", "id": 1, "values": {"status = 'x' --": "open"}}],
     "faults.0.ops.0.values.status = 'x' --.[key]"),
    ([{"insert": "_changes", "values": {"tbl": "x"}}], "faults.0.ops.0.insert"),
    ([{"insert": "sqlite_master", "values": {"name": "x"}}], "faults.0.ops.0.insert"),
    ([{"update": "tickets", "id": 1, "values": {"no_such_column": 1}}],
     "faults.0.ops.0.values.no_such_column"),
]


@pytest.mark.parametrize(("ops", "field"), ATTACKS, ids=[str(a[0][0])[:40] for a in ATTACKS])
def test_a_state_drift_is_row_operations_on_the_apps_own_tables(
    local: LocalServer, make_env: MakeEnv, ops: list[dict[str, Any]], field: str
) -> None:
    plan = [{"kind": "state_drift", "ops": ops}]
    created = local.request("POST", "/v1/episodes", headers=operator(local),
                            json={"task": TASK, "seed": 1, "faults": plan})
    assert created.status_code == 422, created.text
    assert created.json()["error"]["field"] == field
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    added = local.request("POST", f"/v1/control/episodes/{obs.episode_id}/faults",
                          headers=operator(local), json=plan[0])
    assert added.status_code == 422 and added.json()["error"]["field"] == field
    assert not Path("/tmp/poisoned.sqlite").exists()


def test_the_replica_refuses_sql_even_with_the_internal_credential(
    local: LocalServer, make_env: MakeEnv, settings: Settings
) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    url = f"http://helpdesk.replica/_env/episodes/{obs.episode_id}/apply"
    for ops in ([{"sql": "VACUUM INTO '/tmp/poisoned.sqlite'"}],
                [{"op": "sql", "sql": "ATTACH DATABASE ':memory:' AS x"}],
                [{"insert": "_changes", "values": {"tbl": "x", "op": "x"}}]):
        status, body = replica_post(local, url, {"ops": ops})
        assert status == 422, body
    assert not Path("/tmp/poisoned.sqlite").exists()
    # And were a statement ever to get through, an episode's database reaches no other file.
    store = local.server.replicas["helpdesk"].state.store
    episode = store.get(obs.episode_id)

    async def attach(write: bool) -> None:
        async with store.opened(episode, write=write) as opened:
            opened.db.execute("ATTACH DATABASE ':memory:' AS other")

    for write in (False, True):  # a read copy, and the episode's own database
        with pytest.raises(sqlite3.OperationalError, match="too many attached"):
            local.run(attach(write))


def test_a_drift_the_operator_adds_applies_as_rows(local: LocalServer,
                                                   make_env: MakeEnv) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    drift = {"kind": "state_drift", "window": {"start": 1, "end": 1},
             "ops": [{"update": "tickets", "id": "$ticket.id", "values": {"priority": "urgent"}}]}
    added = local.request("POST", f"/v1/control/episodes/{obs.episode_id}/faults",
                          headers=operator(local), json=drift)
    assert added.status_code == 201, added.text
    # It lands right after the first request (whose answer is from before it).
    assert env.call("GET", "/api/v2/groups").status_code == 200
    urgent = env.call("GET", "/api/v2/search", params={"query": "type:ticket priority:urgent"})
    assert urgent.status_code == 200
    assert ticket_of(local, env) in [t["id"] for t in urgent.json()["results"]]


def test_snapshots_are_read_only_and_refused_when_they_do_not_match_their_hash(
    tmp_path: Path
) -> None:
    cache = SnapshotCache(spec("helpdesk"), tmp_path, size=2)
    pristine = cache.pristine(11)
    path = cache.dir / f"{cache.pristine_key(11)}.sqlite"
    assert path.read_bytes() == pristine
    assert oct(path.stat().st_mode & 0o777) == "0o444"  # no process writes it in place
    assert sorted(p.name for p in cache.dir.iterdir()) == [path.name, path.name + ".sha256"]
    # Tampered with on disk (say, by a process that could write there): never loaded.
    os.chmod(path, 0o644)
    path.write_bytes(pristine.replace(b"Billing", b"Pwned!!"))
    fresh = SnapshotCache(spec("helpdesk"), tmp_path, size=2)
    assert fresh.pristine(11) == pristine  # seeded again, and the file put right
    assert path.read_bytes() == pristine
