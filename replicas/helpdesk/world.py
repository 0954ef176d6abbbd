"""The helpdesk's static material (``world.yaml``) and the draws both the world generator
(``seed/``) and the row factories (``factories.py``) make, so that a row a task's setup makes
looks like the world's. Import-light: no SQLAlchemy."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from replicas.runtime.clock import iso
from replicas.runtime.world import load_yaml

# Hours to the SLA target of a ticket, by priority.
PRIORITY_HOURS = {"urgent": 4, "high": 8, "normal": 24, "low": 72}
# Shares of customers by loyalty tier, of tickets by priority and by channel.
TIER_WEIGHTS = {"standard": 55, "silver": 25, "gold": 14, "platinum": 6}
PRIORITY_WEIGHTS = {"low": 15, "normal": 60, "high": 20, "urgent": 5}
CHANNEL_WEIGHTS = {"email": 50, "chat": 20, "phone": 10, "web": 20}
FAILURE_REASONS = ("card_declined", "insufficient_funds", "expired_card")


@cache
def data() -> dict[str, Any]:
    """world.yaml, parsed once per process."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return found


def weighted(r: random.Random, weights: dict[str, int]) -> str:
    """One key of ``weights``, drawn in proportion to its weight."""
    return r.choices(list(weights), list(weights.values()))[0]


def placeholders(first_name: str, order: dict[str, Any] | None) -> dict[str, str]:
    """What world.yaml's texts may say: ``{name}`` (the requester's first name), ``{order}``
    (the order's number) and ``{item}`` (its first product)."""
    item = orjson.loads(order["items"])[0]["name"] if order else "order"
    return {"order": order["number"] if order else "", "item": item, "name": first_name}


def ticket_text(r: random.Random, topic: dict[str, Any], lang: str,
                fill: dict[str, str]) -> tuple[str, str]:
    """(subject, description) of a ticket on ``topic`` written in ``lang``."""
    subject = r.choice(topic["subjects"][lang]).format(**fill)
    return subject, r.choice(topic["descriptions"]).format(**fill)


def draw_items(r: random.Random, currency: str) -> tuple[str, int]:
    """An order's line items (JSON text: ``[{sku, name, quantity, unit_price}]``, beans and
    filters more often) and their total, in ``currency``."""
    products = data()["products"]
    skus = list(products)
    weights = [3 if sku.startswith(("BN", "FL", "PO")) else 1 for sku in skus]
    items = []
    for sku in dict.fromkeys(r.choices(skus, weights, k=r.choice([1, 1, 2, 3]))):
        name, prices = products[sku]
        items.append({"sku": sku, "name": name, "quantity": r.choice([1, 1, 1, 2]),
                      "unit_price": prices[currency]})
    total = sum(item["quantity"] * item["unit_price"] for item in items)
    return orjson.dumps(items, option=orjson.OPT_SORT_KEYS).decode(), total


def one_item(sku: str, quantity: int, currency: str) -> tuple[str, int]:
    """An order of ``quantity`` of one product (``sku``): its items and total, as draw_items."""
    products = data()["products"]
    if sku not in products:
        raise ValueError(f"no product {sku!r} (products: {', '.join(products)})")
    if quantity < 1:
        raise ValueError(f"quantity must be at least 1, not {quantity}")
    name, prices = products[sku]
    items = [{"sku": sku, "name": name, "quantity": quantity, "unit_price": prices[currency]}]
    return orjson.dumps(items, option=orjson.OPT_SORT_KEYS).decode(), quantity * prices[currency]


def order_dates(r: random.Random, status: str, placed: datetime,
                now: datetime) -> tuple[str | None, str | None]:
    """(fulfilled_at, cancelled_at) of an order in ``status`` placed at ``placed``."""
    fulfilled = cancelled = None
    if status in ("fulfilled", "returned"):
        fulfilled = placed + timedelta(days=r.randint(1, 4), hours=r.random() * 8)
        if fulfilled > now:
            fulfilled = now - timedelta(hours=1)
    if status == "cancelled":
        cancelled = placed + timedelta(hours=r.randint(1, 20))
    return (iso(fulfilled) if fulfilled else None), (iso(cancelled) if cancelled else None)


def charge(r: random.Random, order: dict[str, Any], at: datetime, status: str,
           reason: str | None = None) -> dict[str, Any]:
    """A charge of ``order``'s total at ``at`` (no id): ``captured``, or ``failed`` with a
    ``reason``."""
    return {
        "order_id": order["id"],
        "amount": order["total"],
        "currency": order["currency"],
        "status": status,
        "captured_at": None if status == "failed" else iso(at),
        "created_at": iso(at),
        "processor_reference": "ch_" + "".join(r.choice("0123456789abcdef") for _ in range(24)),
        "failure_reason": reason,
    }
