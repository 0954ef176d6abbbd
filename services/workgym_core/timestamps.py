"""The one timestamp format WorkGym stores and returns (the replicas' rows, the gym API's
episodes): UTC, to the second, 'Z'; as documented and as a JSON Schema pattern."""

from __future__ import annotations

import re
from datetime import UTC, datetime

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
ISO_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
ISO_DESCRIPTION = "ISO 8601 UTC timestamp 'YYYY-MM-DDTHH:MM:SSZ'"
_ISO = re.compile(ISO_PATTERN)


def iso(moment: datetime) -> str:
    """``moment`` in the one timestamp format."""
    return moment.astimezone(UTC).strftime(ISO_FORMAT)


def parse_iso(value: str) -> datetime:
    """A timestamp in the one format -> an aware UTC datetime; ValueError for any other
    spelling (legacy text is never parsed as if it were canonical)."""
    if not _ISO.fullmatch(value):
        raise ValueError(f"not a timestamp in the format {ISO_DESCRIPTION}: {value!r}")
    return datetime.fromisoformat(value)
