"""Property values between the wire and the table: HubSpot sends and answers every value as a
string; a table holds numbers as numbers, booleans as 0/1, timestamps in the one stored format
(``workgym_core.timestamps``) and dates as ``YYYY-MM-DD``. Datetimes are read as epoch
milliseconds or ISO 8601 and answered as ISO 8601 with milliseconds, as HubSpot does."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime
from typing import Any

from workgym_core.timestamps import ISO_PATTERN, iso

from .schema import Property

_STORED_ISO = re.compile(ISO_PATTERN)
_MILLIS = re.compile(r"^-?\d{1,15}$")
_TRUE, _FALSE = frozenset({"true"}), frozenset({"false"})


class BadValue(ValueError):
    """A value its property cannot hold: HubSpot's reason code and our words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def wire(prop: Property, value: Any) -> str | None:
    """A stored value as HubSpot answers it (None: no value)."""
    if value is None:
        return None
    if prop.type == "bool":
        return "true" if value else "false"
    if prop.type == "number" and isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if prop.type == "datetime":
        return instant(value)
    return str(value)


def instant(value: Any) -> str | None:
    """A stored timestamp as HubSpot answers one: ISO 8601 with milliseconds."""
    if isinstance(value, str) and _STORED_ISO.fullmatch(value):
        return f"{value[:-1]}.000Z"
    return None if value is None else str(value)


def text(value: Any) -> str:
    """A value as the request sent it, as text (HubSpot accepts JSON numbers and booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def stored(prop: Property, value: str) -> Any:
    """``value`` (non-empty text) as ``prop``'s column holds it; BadValue if it cannot be.
    Enumerations are checked against their options (references: by the caller)."""
    if prop.type == "number":
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise BadValue("INVALID_DECIMAL", f'"{value}" is not a valid number')
        return int(number) if number.is_integer() else number
    if prop.type == "bool":
        if value.lower() not in _TRUE | _FALSE:
            raise BadValue("INVALID_BOOLEAN", f'"{value}" is not a valid boolean: true or false')
        return int(value.lower() in _TRUE)
    if prop.type == "datetime":
        return iso(moment(value))
    if prop.type == "date":
        day = moment(value)
        if (day.hour, day.minute, day.second, day.microsecond) != (0, 0, 0, 0):
            raise BadValue("INVALID_DATE", f'"{value}" is not a date at midnight UTC')
        return day.date().isoformat()
    if prop.type == "enumeration" and prop.options and value not in prop.options:
        raise BadValue("INVALID_OPTION", f'"{value}" was not one of the allowed options: '
                                         f"[{', '.join(prop.options)}]")
    return value


def moment(value: str) -> datetime:
    """Epoch milliseconds or an ISO 8601 date or timestamp, as a UTC datetime."""
    try:
        if _MILLIS.fullmatch(value):
            return datetime.fromtimestamp(int(value) / 1000, UTC)
        if len(value) == 10:
            return datetime.combine(date.fromisoformat(value), datetime.min.time(), UTC)
        parsed = datetime.fromisoformat(value)
    except (ValueError, OverflowError, OSError):
        raise BadValue("INVALID_DATETIME", f'"{value}" is not a valid date-time: epoch '
                                           "milliseconds or ISO 8601") from None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
