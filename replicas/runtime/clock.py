"""The virtual clock: where every episode's world time starts, and time expressions."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

# Every world is generated as of this instant; episodes advance from it per step.
WORLD_START = datetime(2025, 6, 16, 9, 0, tzinfo=UTC)

_EXPR = re.compile(r"^@now(?P<offset>([+-]\d+[dhm])*)$")
_PART = re.compile(r"([+-])(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def iso(moment: datetime) -> str:
    """The one timestamp format replicas store and return (UTC, seconds, 'Z')."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
