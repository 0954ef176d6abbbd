"""One run of the helpdesk world generator: its random stream, clock, static material, the
tables built so far and what each builder leaves for the next."""

from __future__ import annotations

import random
from datetime import datetime

from replicas.runtime.generation import Row, WorldGeneration

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

__all__ = ["Generation", "Row"]


class Generation(WorldGeneration):
    """Deterministic per seed: the only randomness is ``rng`` and the seed's identity (the
    people, companies and order numbers every app shares), the only time ``now``. The
    builders run in a fixed order; each fills its tables and the lookups after it need."""

    # Left by the team builder.
    group_ids: dict[str, int]
    group_agents: dict[int, list[int]]  # group id -> its active agents (not admins, not 1)
    # Left by the people builder: the end users.
    customers: list[Row]

    def __init__(self, seed: int, now: datetime) -> None:
        super().__init__(seed, now, random.Random(seed), data())
