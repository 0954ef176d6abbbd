"""Stripe ids: a prefix naming the object's kind and a random-looking token (``cus_`` and 14
characters, ``pi_`` and 24, ...), drawn from a deterministic stream: the world's generator
and factories draw from their seeded ``Random``; an object the API creates draws from (the
episode's seed, its table, its row id), so the same seed and the same requests give the same
ids, byte for byte."""

from __future__ import annotations

import random
import sqlite3
import string

PREFIXES = {
    "customers": "cus", "products": "prod", "prices": "price", "payment_methods": "pm",
    "payment_intents": "pi", "charges": "ch", "refunds": "re", "disputes": "dp",
    "events": "evt",
}
TABLES = {prefix: table for table, prefix in PREFIXES.items()}
_SHORT = frozenset({"cus", "prod"})  # Stripe's 14-character tokens
_ALPHABET = string.digits + string.ascii_letters


def token(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(length))


def stripe_id(table: str, rng: random.Random) -> str:
    """A new Stripe id for a row of ``table``, drawn from ``rng``."""
    prefix = PREFIXES[table]
    return f"{prefix}_{token(rng, 14 if prefix in _SHORT else 24)}"


def table_of(object_id: str) -> str | None:
    """The table whose objects have ids like ``object_id`` (None: no kind of ours)."""
    return TABLES.get(object_id.partition("_")[0])


def next_row(db: sqlite3.Connection, table: str, seed: int) -> tuple[int, random.Random]:
    """The row id the API's next ``table`` object gets, and its id stream."""
    last = db.execute(f"SELECT coalesce(max(id), 0) AS n FROM {table}").fetchone()["n"]
    return last + 1, random.Random(f"checkout:{seed}:{table}:{last + 1}")
