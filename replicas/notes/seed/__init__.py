"""The seeded notes world: the seed's identity's people (the same people the helpdesk's
customers are) and notes about some of them.

Deterministic per seed (``random.Random`` seeded from it, time only ``now``). The mess: a
few people have several notes that say different things (a "Prefers email" and a "Call
after 5pm" about the same person), and some notes are pinned, which protects them.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from replicas.runtime.clock import iso
from replicas.runtime.identity import identity
from replicas.runtime.world import write_world

from ..world import data

N_PEOPLE = 120
N_NOTES = 180


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    from ..models import METADATA

    r, world = random.Random(f"notes:{seed}"), identity(seed)
    people: list[dict[str, Any]] = []
    for i, person in enumerate(world.people(N_PEOPLE), start=1):
        company = world.company(person.company).name if person.company is not None else None
        people.append({"id": i, "name": person.name, "email": person.email,
                       "locale": person.locale, "company": company,
                       "created_at": iso(now - timedelta(days=r.randint(30, 1500)))})
    notes: list[dict[str, Any]] = []
    for i in range(1, N_NOTES + 1):
        title, body = r.choice(data()["notes"])
        created = now - timedelta(days=r.randint(1, 700), hours=r.random() * 24)
        notes.append({"id": i, "person_id": r.randint(1, N_PEOPLE), "title": title,
                      "body": body, "pinned": int(r.random() < 0.15), "created_at": iso(created),
                      "updated_at": iso(created + timedelta(days=r.randint(0, 30)))})
    write_world(conn, METADATA, {"people": people, "notes": notes})
