"""The seeded checkout world: the schema from models.py; rows from the seed's identity (the
people and order numbers every app shares), world.yaml and a ``Random`` of the seed.

Deterministic per seed: the only randomness is the generation's ``Random`` and the identity's,
the only time ``now``. One module per family of tables, run in this order on one
:class:`~.common.Generation`; the deliberate mess (README.md, "The mess") is made in them,
each defect marked where it is made.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from replicas.runtime.world import write_world

from ..models import METADATA
from . import (
    accounts,
    billing,
    catalog,
    coupons,
    customers,
    disputes,
    events,
    funds,
    orders,
    sessions,
    stock,
)
from .common import Generation


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    g = Generation(seed, now)
    for family in (customers, accounts, catalog, coupons, orders, sessions, stock, disputes,
                   billing, funds, events):
        family.build(g)
    write_world(conn, METADATA, g.tables)
