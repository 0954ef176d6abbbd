"""The virtual clock: where every episode's world time starts, the one timestamp format
replicas store and return, and time expressions."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

# Every world is generated as of this instant; episodes advance from it per step.
WORLD_START = datetime(2025, 6, 16, 9, 0, tzinfo=UTC)

# The one timestamp format: UTC, seconds, 'Z' (as documented and as a JSON Schema pattern).
ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
ISO_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
ISO_DESCRIPTION = "ISO 8601 UTC timestamp 'YYYY-MM-DDTHH:MM:SSZ'"
_ISO = re.compile(ISO_PATTERN)

_EXPR = re.compile(r"^@now(?P<offset>([+-]\d+[dhm])*)$")
_PART = re.compile(r"([+-])(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def iso(moment: datetime) -> str:
    """``moment`` in the one timestamp format."""
    return moment.astimezone(UTC).strftime(ISO_FORMAT)


def parse_iso(value: str) -> datetime:
    """A timestamp in the one format -> an aware UTC datetime; ValueError for any other
    spelling (legacy text is never parsed as if it were canonical)."""
    if not _ISO.fullmatch(value):
        raise ValueError(f"not a timestamp in the format {ISO_DESCRIPTION}: {value!r}")
    return datetime.fromisoformat(value)


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
