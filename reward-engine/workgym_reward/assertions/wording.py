"""How assertions word what they found."""

from __future__ import annotations

from collections.abc import Sequence


def plural(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"


def some(items: Sequence[str], limit: int = 3) -> str:
    """Up to ``limit`` items, then how many more there are."""
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more
