"""Text rendered from bound rows: task instructions, setup texts, scripted replies.

``{{ order.number }}`` is a field of a row bound by the task's setup (``{{ app.name.field }}``:
another app's), and ``{{ charge.amount | money: charge.currency }}`` passes it through a
filter (the argument is another reference, or a literal). Filters:

* ``money: <currency>``: an amount in minor units as the apps write it (``USD 129.00``);
  ``money_symbol: <currency>``: as people write it (``$129.00``, ``¥1,200``);
  ``money_words: <currency>``: with the currency in words (``129.00 US dollars``);
* ``date``: an ISO timestamp's day (``16 June 2025``); ``unix``: an ISO timestamp as Unix
  time (``1750064400``), as APIs taking a ``start_time`` want it;
* ``upper``, ``lower``, ``first`` (the first word: a first name).

Deterministic: the same rows give the same text. An unknown reference or filter is a
``BadReference`` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .money import format_money, format_symbol, format_words
from .refs import BadReference, Others, Vars, lookup
from .timestamps import parse_iso

_PLACEHOLDER = re.compile(r"\{\{\s*([^{}|]+?)\s*(?:\|\s*(\w+)\s*(?::\s*([^{}]+?))?\s*)?\}\}")


def _date(value: Any, _: Any) -> str:
    """An ISO date or timestamp, or Unix seconds (as Stripe writes times), as "5 June 2025"."""
    moment = (datetime.fromtimestamp(value, UTC) if isinstance(value, int | float)
              else datetime.strptime(str(value)[:10], "%Y-%m-%d"))
    return f"{moment.day} {moment:%B %Y}"


FILTERS: dict[str, Callable[[Any, Any], str]] = {
    "money": lambda value, currency: format_money(int(value), str(currency)),
    "money_symbol": lambda value, currency: format_symbol(int(value), str(currency)),
    "money_words": lambda value, currency: format_words(int(value), str(currency)),
    "date": _date,
    "unix": lambda value, _: str(int(parse_iso(str(value)).timestamp())),
    "upper": lambda value, _: str(value).upper(),
    "lower": lambda value, _: str(value).lower(),
    "first": lambda value, _: str(value).split(" ")[0],
}


def _value(text: str, vars: Vars, others: Others) -> Any:
    text = text.strip()
    if re.fullmatch(r"-?\d+(\.\d+)?|'[^']*'|\"[^\"]*\"", text):
        return text.strip("'\"")
    return lookup(text if text.startswith("$") else "$" + text, vars, others)


def render(text: str, vars: Vars, others: Others | None = None) -> str:
    """``text`` with every ``{{ ... }}`` placeholder filled from the bound rows."""
    others = others or {}

    def fill(match: re.Match[str]) -> str:
        value = _value(match.group(1), vars, others)
        name = match.group(2)
        if name is None:
            return str(value)
        if name not in FILTERS:
            raise BadReference(f"unknown filter {name!r} in {match.group(0)!r} (filters: "
                               f"{', '.join(sorted(FILTERS))})")
        argument = _value(match.group(3), vars, others) if match.group(3) else None
        return FILTERS[name](value, argument)

    return _PLACEHOLDER.sub(fill, text) if "{{" in text else text


def render_value(text: str, vars: Vars, others: Others | None = None) -> Any:
    """Like :func:`render`, but a text that is one placeholder without a filter is its
    value itself (an integer stays an integer)."""
    whole = _PLACEHOLDER.fullmatch(text.strip())
    if whole is not None and whole.group(2) is None:
        return _value(whole.group(1), vars, others or {})
    return render(text, vars, others)
