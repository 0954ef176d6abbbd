"""One run of the tracker's world generator (replicas/runtime/generation.py) and what its
builders leave each other."""

from __future__ import annotations

import random
from datetime import datetime

from replicas.runtime.generation import Row, WorldGeneration

from ..world import data

__all__ = ["Generation", "Row"]


class Generation(WorldGeneration):
    # Left by the team builder: team name -> its active members' user ids.
    teams: dict[str, list[int]]

    def __init__(self, seed: int, now: datetime) -> None:
        super().__init__(seed, now, random.Random(f"tracker:{seed}"), data())
