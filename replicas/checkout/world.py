"""The checkout's static material (``world.yaml``) and the draws the world generator and the
factories share. Import-light: no SQLAlchemy."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime.world import load_yaml


@cache
def data() -> dict[str, Any]:
    """world.yaml, parsed once per process."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return found


def basket(r: random.Random, currency: str) -> tuple[int, list[str]]:
    """What an order costs in ``currency`` and its SKUs: one to three products, beans and
    filters more often."""
    products = data()["products"]
    skus = list(products)
    weights = [3 if sku.startswith(("BN", "FL", "PO")) else 1 for sku in skus]
    chosen = list(dict.fromkeys(r.choices(skus, weights, k=r.choice([1, 1, 2, 3]))))
    total = sum(products[sku]["prices"][currency] * r.choice([1, 1, 1, 2]) for sku in chosen)
    return total, chosen


def card_name(r: random.Random, country: str) -> str:
    """The test card a customer of ``country`` pays with."""
    if country == "JP" and r.random() < 0.5:
        return "jcb"
    cards: dict[str, int] = data()["cards"]
    return r.choices(list(cards), list(cards.values()))[0]


def customer_values(person: Any, created: int) -> dict[str, Any]:
    """A customer row's values for a person of the seed's identity."""
    return {"email": person.email, "name": person.name, "phone": person.phone,
            "description": None, "currency": person.currency.lower(),
            "preferred_locales": f'["{person.locale}"]', "deleted": 0, "metadata": "{}",
            "created": created}


def card_values(r: random.Random, test: Any, customer: str | None, created: int,
                name: str | None) -> dict[str, Any]:
    """A card PaymentMethod row's values for a test card (cards.TestCard)."""
    return {"type": "card", "customer": customer, "brand": test.brand,
            "last4": test.number[-4:], "exp_month": r.randint(1, 12),
            "exp_year": 2026 + r.randint(0, 4), "funding": test.funding,
            "country": test.country, "fingerprint": "".join(
                r.choice("0123456789abcdef") for _ in range(16)),
            "test_card": test.name, "billing_name": name, "billing_email": None,
            "metadata": "{}", "created": created}
