"""One run of the tracker's world generator: its random stream, clock, static material and
the tables built so far."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from replicas.runtime import identity
from replicas.runtime.identity import unique_email

from ..world import data

Row = dict[str, Any]


class Generation:
    """Deterministic per seed: the only randomness is ``rng`` and the seed's identity, the
    only time ``now``. Builders run in a fixed order; each fills its tables."""

    # Left by the team builder: team name -> its active members' user ids.
    teams: dict[str, list[int]]

    def __init__(self, seed: int, now: datetime) -> None:
        self.seed = seed
        self.rng = random.Random(f"tracker:{seed}")
        self.now = now
        self.w = data()
        self.identity = identity.identity(seed)
        self.names = identity.data()
        self.emails: set[str] = set()
        self.tables: dict[str, list[Row]] = {}

    def ago(self, days: float = 0.0, hours: float = 0.0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def unique_email(self, local: str, domain: str) -> str:
        return unique_email(self.emails, local, domain)
