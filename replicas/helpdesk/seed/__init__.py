"""The seeded helpdesk world: the schema from models.py; rows from the seed's identity (the
people, companies and order numbers every app shares), world.yaml and ``Random(seed)``.

Deterministic per seed: the only randomness is ``random.Random(seed)`` and the identity's,
the only time is ``now``. One module per family of tables (``team``, ``people``,
``tickets``, ``knowledge``, ``config``; the orders tickets are about are the identity's,
which the checkout has), run in this order on one :class:`~.common.Generation`. The
deliberate mess (README.md, "The mess") is generated in them; each defect is marked where
it is made. Then the rules bring the written world up to ``now`` as the live helpdesk would
have: each ticket's SLA metric events, and the automations' hourly runs (rules/clock.py).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from replicas.runtime.world import write_world

from ..models import METADATA
from ..rules.clock import settle
from . import config, knowledge, people, team, tickets
from .common import Generation


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    g = Generation(seed, now)
    for family in (team, people, config, tickets, knowledge):
        family.build(g)
    write_world(conn, METADATA, g.tables)
    settle(conn, now)
