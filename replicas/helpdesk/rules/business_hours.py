"""Zendesk schedules: business-hours arithmetic for SLA targets and automations.

A schedule is a ``schedules`` row with its JSON already decoded: ``time_zone`` (IANA name),
``intervals`` (``{start_time, end_time}`` in minutes from Sunday 00:00 *local* time, as
Zendesk stores them: Monday 9:00-17:00 is ``{1980, 2460}``) and ``holidays`` (``{name,
start_date, end_date}``, inclusive local dates). Hours are wall-clock hours in the schedule's
zone, so a DST change shifts them in UTC; the arithmetic steps from one open window to the
next (one local day at a time), never minute by minute. Datetimes in and out are aware UTC.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

Schedule = Mapping[str, Any]

_DAY = 1440  # minutes
_WEEK = 7 * _DAY
_MINUTE = timedelta(minutes=1)


@dataclass(frozen=True)
class _Calendar:
    zone: ZoneInfo
    days: tuple[tuple[tuple[int, int], ...], ...]  # Sunday first: open (from, to) minutes of day
    holidays: tuple[tuple[date, date], ...]


def _day_pieces(intervals: list[Mapping[str, Any]]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The weekly intervals cut at local midnights and merged, per weekday (Sunday first)."""
    days: list[list[tuple[int, int]]] = [[] for _ in range(7)]
    for interval in intervals:
        start, end = int(interval["start_time"]), int(interval["end_time"])
        if not 0 <= start < end <= _WEEK:
            raise ValueError(f"schedule interval out of the week: {dict(interval)}")
        for day in range(start // _DAY, (end - 1) // _DAY + 1):
            base = day * _DAY
            days[day].append((max(start, base) - base, min(end, base + _DAY) - base))
    return tuple(_merged(pieces) for pieces in days)


def _merged(pieces: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(pieces):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


def _calendar(schedule: Schedule) -> _Calendar:
    days = _day_pieces(schedule["intervals"])
    if not any(days):
        raise ValueError(f"schedule {schedule.get('id')} has no business hours")
    holidays = tuple(
        (date.fromisoformat(h["start_date"]), date.fromisoformat(h["end_date"]))
        for h in schedule.get("holidays") or []
    )
    return _Calendar(ZoneInfo(schedule["time_zone"]), days, holidays)


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError(f"business-hours arithmetic needs an aware datetime, got {moment}")
    return moment.astimezone(UTC)


def _local_to_utc(day: date, minute: int, zone: ZoneInfo) -> datetime:
    """Wall-clock ``minute`` of local ``day`` (1440 = next midnight) as UTC; a time skipped
    by DST resolves as the zone does (fold=0)."""
    wall = datetime.combine(day, time()) + timedelta(minutes=minute)
    return wall.replace(tzinfo=zone).astimezone(UTC)


def _windows(after: datetime, calendar: _Calendar) -> Iterator[tuple[datetime, datetime]]:
    """The open windows (UTC start, end) that end after ``after``, in order, the first
    clipped to start at ``after``."""
    day = after.astimezone(calendar.zone).date()
    while True:
        if not any(first <= day <= last for first, last in calendar.holidays):
            for start, end in calendar.days[(day.weekday() + 1) % 7]:
                opens = _local_to_utc(day, start, calendar.zone)
                closes = _local_to_utc(day, end, calendar.zone)
                if closes > after and closes > opens:
                    yield max(opens, after), closes
        day += timedelta(days=1)


def add_business_minutes(start: datetime, minutes: int, schedule: Schedule) -> datetime:
    """The instant ``minutes`` business minutes after ``start`` (counted from the next
    opening when ``start`` is outside hours); a target that uses up a window exactly ends at
    its close."""
    if minutes < 0:
        raise ValueError(f"business minutes must not be negative: {minutes}")
    remaining = minutes * _MINUTE
    windows = _windows(_utc(start), _calendar(schedule))
    opens, closes = next(windows)
    while remaining > closes - opens:
        remaining -= closes - opens
        opens, closes = next(windows)
    return opens + remaining


def business_minutes_between(a: datetime, b: datetime, schedule: Schedule) -> int:
    """Whole business minutes from ``a`` to ``b``; 0 when ``b`` is not after ``a``."""
    a, b = _utc(a), _utc(b)
    if b <= a:
        return 0
    total = timedelta()
    for opens, closes in _windows(a, _calendar(schedule)):
        if opens >= b:
            break
        total += min(closes, b) - opens
    return total // _MINUTE


def add_minutes(
    start: datetime, minutes: int, schedule: Schedule | None, business: bool
) -> datetime:
    """``minutes`` after ``start``: business minutes of ``schedule`` when ``business`` and a
    schedule is given, calendar minutes otherwise (an SLA target's two kinds)."""
    if business and schedule is not None:
        return add_business_minutes(start, minutes, schedule)
    return _utc(start) + minutes * _MINUTE
