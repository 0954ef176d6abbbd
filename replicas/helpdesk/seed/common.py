"""One run of the helpdesk world generator: its random stream, clock, static material, the
tables built so far and what each builder leaves for the next."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from replicas.runtime import identity
from replicas.runtime.identity import unique_email

from ..world import data

LEGACY_DATE_FORMATS = (
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%Y.%m.%d",
    "%d %b %Y",
    "%Y%m%d",
    "%b %d, %Y %I:%M %p",
    "%d.%m.%Y",
)

Row = dict[str, Any]


class Generation:
    """Deterministic per seed: the only randomness is ``rng`` and the seed's identity (the
    people, companies and order numbers every app shares), the only time ``now``. The
    builders run in a fixed order; each fills its tables and the lookups after it need."""

    # Left by the team builder.
    group_ids: dict[str, int]
    group_agents: dict[int, list[int]]  # group id -> its active agents (not admins, not 1)
    # Left by the people builder: the end users.
    customers: list[Row]

    def __init__(self, seed: int, now: datetime) -> None:
        self.rng = random.Random(seed)
        self.now = now
        self.w = data()
        self.identity = identity.identity(seed)
        self.identity_data = identity.data()
        self.emails: set[str] = set()
        self.tables: dict[str, list[Row]] = {}

    def ago(self, days: float = 0.0, hours: float = 0.0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def unique_email(self, local: str, domain: str) -> str:
        """An email no one in this world has yet (``local2@...`` if taken)."""
        return unique_email(self.emails, local, domain)
