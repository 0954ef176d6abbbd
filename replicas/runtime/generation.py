"""What every app's world generator run has (``replicas/<app>/seed/``): its random stream,
its clock, the app's static material, the seed's identity (the people, companies and orders
every app shares) and the tables built so far. An app's run subclasses it with what its
builders leave each other."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from . import identity
from .identity import unique_email

Row = dict[str, Any]


class WorldGeneration:
    """Deterministic per seed: the only randomness is ``rng`` and the seed's identity, the
    only time ``now``. Builders run in a fixed order; each fills its tables."""

    def __init__(self, seed: int, now: datetime, rng: random.Random,
                 static: dict[str, Any]) -> None:
        self.seed = seed
        self.rng = rng
        self.now = now
        self.w = static
        self.identity = identity.identity(seed)
        self.identity_data = identity.data()
        self.emails: set[str] = set()
        self.tables: dict[str, list[Row]] = {}

    def ago(self, days: float = 0.0, hours: float = 0.0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def unique_email(self, local: str, domain: str) -> str:
        """An email no one in this world has yet (``local2@...`` if taken)."""
        return unique_email(self.emails, local, domain)
