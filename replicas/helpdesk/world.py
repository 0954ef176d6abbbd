"""The helpdesk's static material (``world.yaml``) and the draws both the world generator
(``seed/``) and the row factories (``factories.py``) make, so that a row a task's setup makes
looks like the world's. Import-light: no SQLAlchemy."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime import identity
from replicas.runtime.world import load_yaml

# Shares of customers by loyalty tier, of tickets by priority and by channel.
TIER_WEIGHTS = {"standard": 55, "silver": 25, "gold": 14, "platinum": 6}
# Priorities from the most pressing (the order of the SLA policies' targets in world.yaml).
PRIORITIES = ("urgent", "high", "normal", "low")
PRIORITY_WEIGHTS = {"low": 15, "normal": 60, "high": 20, "urgent": 5}
CHANNEL_WEIGHTS = {"email": 50, "chat": 20, "phone": 10, "web": 20}


@cache
def data() -> dict[str, Any]:
    """world.yaml, parsed once per process."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return found


def weighted(r: random.Random, weights: dict[str, int]) -> str:
    """One key of ``weights``, drawn in proportion to its weight."""
    return r.choices(list(weights), list(weights.values()))[0]


def catalogue_name(sku: str) -> str:
    """A product's name in the company's catalogue (runtime/identity.yaml)."""
    name: str = identity.data()["catalogue"][sku]["name"]
    return name


def placeholders(first_name: str, number: str | None, sku: str | None) -> dict[str, str]:
    """What world.yaml's texts may say: ``{name}`` (the requester's first name), ``{order}``
    (the checkout order's number) and ``{item}`` (its first product; "item" when there is
    none)."""
    return {"order": number or "", "item": catalogue_name(sku) if sku else "item",
            "name": first_name}


def ticket_text(r: random.Random, topic: dict[str, Any], lang: str,
                fill: dict[str, str]) -> tuple[str, str]:
    """(subject, description) of a ticket on ``topic`` written in ``lang`` (en, de, fr, es,
    ja): one of the topic's pairs, so the two agree."""
    subject, description = r.choice(topic["texts"][lang])
    return subject.format(**fill), description.format(**fill)


@cache
def custom_fields() -> tuple[tuple[int, str, str, tuple[str, ...]], ...]:
    """The custom ticket fields (world.yaml ``ticket_fields``): (id, the tickets column that
    holds its values, its title, the options of a drop-down)."""
    return tuple((f[0], f[1], f[2], tuple(f[4])) for f in data()["ticket_fields"])
