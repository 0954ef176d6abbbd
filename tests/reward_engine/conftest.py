"""Factories for the reward engine tests: small real SQLite databases and trajectory steps."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from workgym_core.trajectory import TrajectoryStep

SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, role TEXT, tier TEXT);
CREATE TABLE tickets (
    id INTEGER PRIMARY KEY, requester_id INTEGER, subject TEXT, status TEXT, priority TEXT,
    closed_at TEXT, updated_at TEXT
);
CREATE TABLE audits (id INTEGER PRIMARY KEY, ticket_id INTEGER, author_id INTEGER, events TEXT);
CREATE TABLE charges (id INTEGER PRIMARY KEY, customer_id INTEGER, amount_cents INTEGER);
CREATE TABLE refunds (id INTEGER PRIMARY KEY, charge_id INTEGER, amount_cents INTEGER, reason TEXT);
CREATE TABLE _episode (id INTEGER PRIMARY KEY, note TEXT);
CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT);
"""

SEED = """
INSERT INTO users VALUES (1, 'AI Agent', 'ai.agent@helpdesk.example', 'agent', NULL),
    (2, 'Ada Lovelace', 'ada@example.com', 'end-user', 'gold'),
    (3, 'Alan Turing', 'alan@example.com', 'end-user', 'silver'),
    (4, 'Grace Hopper', NULL, 'end-user', 'gold');
INSERT INTO tickets VALUES
    (10, 2, 'Refund for order 77', 'open', 'high', NULL, '2024-05-01'),
    (11, 3, 'Cannot log in', 'open', 'low', NULL, '2024-05-01'),
    (12, 4, 'Invoice copy', 'solved', 'low', '2024-04-02', '2024-04-02');
INSERT INTO charges VALUES (40, 1, 5000), (41, 1, 2500), (42, 2, 990);
INSERT INTO _episode VALUES (1, 'seeded');
INSERT INTO audit (event) VALUES ('seeded');
"""

MakeDb = Callable[..., bytes]


@pytest.fixture
def make_db() -> MakeDb:
    """``make_db(*scripts, base=None)``: run SQL scripts on an empty database (or a copy of
    ``base``) and return it serialized."""

    def make(*scripts: str, base: bytes | None = None) -> bytes:
        conn = sqlite3.connect(":memory:")
        try:
            if base is not None:
                conn.deserialize(base)
            for script in scripts:
                conn.executescript(script)
            return conn.serialize()
        finally:
            conn.close()

    return make


@pytest.fixture
def world(make_db: MakeDb) -> bytes:
    """The seeded helpdesk-like world every scoring test starts from (user 1 is the AI agent,
    as in the helpdesk; charges and refunds stand in for another app's records)."""
    return make_db(SCHEMA, SEED)


@pytest.fixture
def act(make_db: MakeDb, world: bytes) -> Callable[..., bytes]:
    """``act(*scripts)``: the world after running ``scripts`` on it."""
    return lambda *scripts: make_db(*scripts, base=world)


@pytest.fixture
def make_step() -> Callable[..., TrajectoryStep]:
    """``make_step(method, path, status=200, body=None, fault=None)``, indexed in call order."""
    made: list[TrajectoryStep] = []

    def make(
        method: str, path: str, status: int = 200, body: Any = None, fault: str | None = None
    ) -> TrajectoryStep:
        step = TrajectoryStep(
            index=len(made), app="helpdesk", method=method, path=path, status=status,
            request_body=body, fault=fault,
        )
        made.append(step)
        return step

    return make


def scored_reference(local: Any, task_id: str, seed: int = 0) -> dict[str, Any]:
    """What scoring saw of the task's reference run as an episode (its keyword arguments),
    captured from the one scoring call (``workgym.tasks.score``)."""
    from unittest.mock import patch

    from workgym import tasks
    from workgym.agents.reference import run_script
    from workgym.sdk import Env
    from workgym_reward import score as original

    captured: dict[str, Any] = {}

    def capture(**kwargs: Any) -> Any:
        captured.update(kwargs)
        return original(**kwargs)

    with patch.object(tasks, "score", capture):
        env = Env.inprocess(local, task_id, seed)
        env.reset()
        env.finish(answer=run_script(env, tasks.catalogue().get(task_id).reference))
    return captured
