"""One run of the checkout world generator (replicas/runtime/generation.py), its clock also
in Unix seconds (Stripe's times), and what its builders leave each other."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from replicas.runtime.clock import iso
from replicas.runtime.generation import Row, WorldGeneration

from ..ids import stripe_id
from ..rules.common import unix
from ..world import data

__all__ = ["DAY", "Generation", "Row"]

DAY = 86400


class Generation(WorldGeneration):
    """Stripe's times are Unix seconds: ``unix`` is ``now`` in them, ``unix_ago`` a time
    before it."""

    # Left by the customers builder: each person's customer (the first, not a guest's), and
    # every customer's country.
    people: list[tuple[Any, Row]]
    country_of: dict[str, str]
    # Left by the catalogue builder: the current price of each (SKU, currency).
    price_of: dict[tuple[str, str], str]
    # Left by the accounts builder: a customer's account id.
    account_of: dict[str, int]
    # Left by the coupons builder: how much more often a code was used than others.
    code_weight: dict[str, int]
    # Left by the orders builder: paid charges of shipped orders no refund touched (disputes
    # are of these), the duplicate charges, the returns (with their refund and charge).
    disputable: list[Row]
    # Left by the orders builder: how payments are made (the billing builder pays with it).
    shop: Any
    duplicates: list[Row]
    returned: list[tuple[Row, Row, Row]]

    def __init__(self, seed: int, now: datetime) -> None:
        super().__init__(seed, now, random.Random(f"checkout:{seed}"), data())
        self.unix = unix(now)

    def unix_ago(self, days: float) -> int:
        return self.unix - int(days * DAY)

    def new(self, table: str, values: Row) -> Row:
        """A new Stripe object of ``table``: the next id, a Stripe id, ``values``."""
        return self.add(table, {"stripe_id": stripe_id(table, self.rng), **values})

    def add(self, table: str, values: Row) -> Row:
        """A new row of ``table`` (the store's: no Stripe id): the next id, ``values``."""
        rows = self.tables.setdefault(table, [])
        row = {"id": len(rows) + 1, **values}
        rows.append(row)
        return row

    @staticmethod
    def iso(moment: int) -> str:
        """A Unix time in the store's format (ISO 8601)."""
        return iso(datetime.fromtimestamp(moment, UTC))
