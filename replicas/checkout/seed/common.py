"""One run of the checkout world generator: its random stream, clock (Unix seconds), the
seed's identity and the tables built so far."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from replicas.runtime import identity

from ..ids import stripe_id
from ..rules.common import unix

Row = dict[str, Any]
DAY = 86400


class Generation:
    """Deterministic per seed: the only randomness is ``rng`` and the seed's identity, the
    only time ``now``. Builders run in a fixed order, each filling its tables."""

    # Left by the payments builder: paid charges no refund touched (disputes are of these).
    disputable: list[Row]

    def __init__(self, seed: int, now: datetime) -> None:
        self.rng = random.Random(f"checkout:{seed}")
        self.now = unix(now)
        self.identity = identity.identity(seed)
        self.tables: dict[str, list[Row]] = {}

    def ago(self, days: float) -> int:
        return self.now - int(days * DAY)

    def new(self, table: str, values: Row) -> Row:
        """A new row of ``table``: the next id, a Stripe id, ``values``."""
        rows = self.tables.setdefault(table, [])
        row = {"id": len(rows) + 1, "stripe_id": stripe_id(table, self.rng), **values}
        rows.append(row)
        return row
