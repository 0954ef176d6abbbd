"""The checkout's static material (``world.yaml``) and the draws the world generator and the
factories share. Import-light: no SQLAlchemy."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime import identity
from replicas.runtime.world import load_yaml


@cache
def data() -> dict[str, Any]:
    """world.yaml, parsed once per process, with the company's catalogue as ``products``."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return {**found, "products": identity.data()["catalogue"]}


def basket(r: random.Random) -> list[tuple[str, int]]:
    """What an order buys: one to three products (beans and filters more often), one or two
    of each, as (SKU, quantity); the Bean Club subscriptions are not sold one-off."""
    products = data()["products"]
    skus = [sku for sku, spec in products.items() if "interval" not in spec]
    weights = [3 if sku.startswith(("BN", "FL", "PO")) else 1 for sku in skus]
    chosen = dict.fromkeys(r.choices(skus, weights, k=r.choice([1, 1, 2, 3])))
    return [(sku, r.choice([1, 1, 1, 2])) for sku in chosen]


def unit_price(sku: str, currency: str) -> int:
    found: int = data()["products"][sku]["prices"][currency]
    return found


def subtotal(lines: list[tuple[str, int]], currency: str) -> int:
    return sum(unit_price(sku, currency) * quantity for sku, quantity in lines)


def shipping(currency: str, amount: int) -> int:
    """The shipping fee of an order of ``amount`` (free from a threshold)."""
    rule = data()["shipping"][currency]
    return 0 if amount >= rule["free_from"] else int(rule["fee"])


def address(r: random.Random, country: str) -> dict[str, str | None]:
    """A postal address in ``country``, as an order's shipping_address columns."""
    where = data()["addresses"][country]
    postal = "".join(str(r.randint(0, 9)) if c == "#" else r.choice("ABCDEFGHJKLMNPRSTW")
                     if c == "A" else c for c in where["postal"])
    return {"ship_line1": f"{r.randint(1, 240)} {r.choice(where['streets'])}",
            "ship_city": r.choice(where["cities"]), "ship_postal_code": postal,
            "ship_country": country}


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
            "preferred_locales": f'["{person.locale}"]', "deleted": 0, "balance": 0,
            "metadata": "{}", "created": created}


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
