"""The policy values tasks test, and a reader that finds them in text. The refund windows by
loyalty tier are stated in the helpdesk's article; the approval threshold and the managers'
limit are the checkout's (it enforces them). Read with the statement reader's entity finder,
so "14 days", "fourteen days", "two weeks", "$500" and "EUR 463" all count."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from replicas.catalog import lexicon
from replicas.checkout.rules.approvals import usd_cents
from replicas.checkout.world import data as checkout_data
from replicas.helpdesk.world import data as helpdesk_data
from workgym_core.speech.cues import guess

ARTICLE = next(a for a in helpdesk_data()["articles"] if "loyalty tier" in a["title"])
# "- Standard: 14 days" in the article
WINDOWS = {tier.lower(): int(days) for tier, days in
           re.findall(r"^- (\w+): (\d+) days", ARTICLE["body"], re.MULTILINE)}
THRESHOLDS = (checkout_data()["refund_policy"]["approval_above"],
              checkout_data()["refund_policy"]["manager_limit"])
# "standard 14, silver 30": a tier named with a number
_TIER_NUMBER = re.compile(rf"\b(?:{'|'.join(WINDOWS)})\b\W{{0,3}}\d+", re.IGNORECASE)


def policy_values(text: str) -> list[str]:
    """The policy values ``text`` states."""
    entities = lexicon().finder.find(text, language=guess(text))
    days = {low for e in entities if e.kind == "duration"
            for low, high, unit in [e.value] if low == high and unit in ("d", "bd")}
    found = [f"{n} days" for n in sorted(days & set(WINDOWS.values()))]
    found += [f"{currency} {amount}" for e in entities if e.kind == "money"
              for amount, currency in [e.value] for limit in THRESHOLDS
              if abs(usd_cents(amount, currency.lower()) - limit) <= limit // 100]
    return found + _TIER_NUMBER.findall(text)


def strings(node: Any) -> Iterator[str]:
    """Every string in a JSON document."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)
