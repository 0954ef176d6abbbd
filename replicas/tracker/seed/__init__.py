"""The seeded tracker world: the schema from models.py; rows from world.yaml, the seed's
identity's name lists and ``Random(seed)``. Builders run in order on one
:class:`~.common.Generation`: ``team`` (users), ``projects`` (projects, roles, components,
versions, boards, sprints), ``issues`` (issues, comments, links, watchers, histories);
the mess they make is README.md's "The mess"."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from replicas.runtime.world import write_world

from ..models import METADATA
from . import issues, projects, team
from .common import Generation


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    g = Generation(seed, now)
    for family in (team, projects, issues):
        family.build(g)
    write_world(conn, METADATA, g.tables)
