"""The virtual clock: where every episode's world time starts, and time expressions. The one
timestamp format replicas store and return is the kernel's (workgym_core.timestamps), named
here too for the apps."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from workgym_core.timestamps import ISO_DESCRIPTION as ISO_DESCRIPTION
from workgym_core.timestamps import ISO_PATTERN as ISO_PATTERN
from workgym_core.timestamps import iso as iso
from workgym_core.timestamps import parse_iso as parse_iso

# Every world is generated as of this instant; episodes advance from it per step.
WORLD_START = datetime(2025, 6, 16, 9, 0, tzinfo=UTC)

_EXPR = re.compile(r"^@now(?P<offset>([+-]\d+[dhm])*)$")
_PART = re.compile(r"([+-])(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_time_expr(value: str, now: datetime) -> str | None:
    """'@now', '@now-3d', '@now+2h-30m' -> ISO timestamp; None if not an expression."""
    match = _EXPR.match(value)
    if match is None:
        return None
    moment = now
    for sign, amount, unit in _PART.findall(match.group("offset")):
        delta = timedelta(**{_UNITS[unit]: int(amount)})
        moment = moment + delta if sign == "+" else moment - delta
    return iso(moment)
