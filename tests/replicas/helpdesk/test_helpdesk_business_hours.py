"""Zendesk schedules' arithmetic: weekdays, nights, weekends, holidays, DST, two zones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from replicas.helpdesk.rules.business_hours import (
    add_business_minutes,
    add_minutes,
    business_minutes_between,
)

_DAY = 1440


def _weekdays(start_hour: int, end_hour: int) -> list[dict[str, int]]:
    """Monday to Friday, start_hour:00 to end_hour:00 local, in Zendesk's minutes-of-week."""
    return [
        {"start_time": day * _DAY + start_hour * 60, "end_time": day * _DAY + end_hour * 60}
        for day in range(1, 6)
    ]


NEW_YORK: dict[str, Any] = {
    "id": 1,
    "name": "Support US",
    "time_zone": "America/New_York",
    "intervals": _weekdays(9, 17),
    "holidays": [{"name": "Independence Day", "start_date": "2025-07-04",
                  "end_date": "2025-07-04"}],
}
BERLIN: dict[str, Any] = {
    "id": 2,
    "name": "Support EU",
    "time_zone": "Europe/Berlin",
    "intervals": _weekdays(8, 18),
    "holidays": [{"name": "Christmas", "start_date": "2025-12-24", "end_date": "2025-12-26"}],
}
# Monday 22:00 to Tuesday 06:00 Berlin: one interval across local midnight.
NIGHT_SHIFT: dict[str, Any] = {
    "id": 3, "name": "Nights", "time_zone": "Europe/Berlin", "holidays": [],
    "intervals": [{"start_time": _DAY + 22 * 60, "end_time": 2 * _DAY + 6 * 60}],
}
ALWAYS: dict[str, Any] = {
    "id": 4, "name": "24/7", "time_zone": "America/New_York", "holidays": [],
    "intervals": [{"start_time": 0, "end_time": 7 * _DAY}],
}


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# 2025-06-16 is a Monday; New York is UTC-4 and Berlin UTC+2 in June.
@pytest.mark.parametrize(
    ("schedule", "start", "minutes", "expected"),
    [
        pytest.param(NEW_YORK, "2025-06-16 14:00", 60, "2025-06-16 15:00", id="inside-a-day"),
        pytest.param(NEW_YORK, "2025-06-16 20:30", 60, "2025-06-17 13:30", id="overnight"),
        pytest.param(NEW_YORK, "2025-06-16 21:00", 0, "2025-06-17 13:00", id="zero-at-close"),
        pytest.param(NEW_YORK, "2025-06-16 20:00", 60, "2025-06-16 21:00", id="ends-at-close"),
        pytest.param(NEW_YORK, "2025-06-20 20:00", 120, "2025-06-23 14:00", id="weekend"),
        pytest.param(NEW_YORK, "2025-06-21 12:00", 30, "2025-06-23 13:30", id="start-saturday"),
        pytest.param(NEW_YORK, "2025-06-16 03:00", 30, "2025-06-16 13:30", id="before-opening"),
        pytest.param(NEW_YORK, "2025-07-03 20:00", 120, "2025-07-07 14:00", id="holiday"),
        pytest.param(NEW_YORK, "2025-06-16 14:00", 5 * 480, "2025-06-23 14:00", id="one-week"),
        pytest.param(BERLIN, "2025-06-16 07:00", 60, "2025-06-16 08:00", id="berlin"),
        pytest.param(BERLIN, "2025-06-16 15:30", 60, "2025-06-17 06:30", id="berlin-overnight"),
        pytest.param(BERLIN, "2025-12-23 16:00", 120, "2025-12-29 08:00", id="berlin-holidays"),
        pytest.param(NIGHT_SHIFT, "2025-06-16 21:00", 120, "2025-06-16 23:00",
                     id="across-local-midnight"),
        pytest.param(NIGHT_SHIFT, "2025-06-17 04:30", 60, "2025-06-23 21:00",
                     id="next-night-shift"),
    ],
)
def test_add_business_minutes(
    schedule: dict[str, Any], start: str, minutes: int, expected: str
) -> None:
    assert add_business_minutes(utc(start), minutes, schedule) == utc(expected)


@pytest.mark.parametrize(
    ("schedule", "start", "minutes", "expected"),
    [
        # US clocks spring forward on Sunday 2025-03-09: Friday 16:00 EST is 21:00Z, Monday
        # 10:00 EDT is 14:00Z, not 15:00Z.
        pytest.param(NEW_YORK, "2025-03-07 21:00", 120, "2025-03-10 14:00", id="us-spring"),
        # ... and fall back on Sunday 2025-11-02: Monday 10:00 EST is 15:00Z.
        pytest.param(NEW_YORK, "2025-10-31 20:00", 120, "2025-11-03 15:00", id="us-fall"),
        # Berlin springs forward on Sunday 2025-03-30: Monday 09:00 CEST is 07:00Z.
        pytest.param(BERLIN, "2025-03-28 16:00", 120, "2025-03-31 07:00", id="eu-spring"),
        # The week between the two zones' changes: New York is on EDT, Berlin still on CET.
        pytest.param(BERLIN, "2025-03-10 16:00", 120, "2025-03-11 08:00", id="eu-cet"),
    ],
)
def test_hours_are_local_wall_clock_across_dst(
    schedule: dict[str, Any], start: str, minutes: int, expected: str
) -> None:
    assert add_business_minutes(utc(start), minutes, schedule) == utc(expected)


def test_an_always_open_day_counts_real_minutes_across_dst() -> None:
    # Local midnight to midnight on the fall-back Sunday lasts 25 hours; spring-forward 23.
    assert business_minutes_between(utc("2025-11-02 04:00"), utc("2025-11-03 05:00"),
                                     ALWAYS) == 25 * 60
    assert business_minutes_between(utc("2025-03-09 05:00"), utc("2025-03-10 04:00"),
                                     ALWAYS) == 23 * 60


@pytest.mark.parametrize(
    ("schedule", "a", "b", "expected"),
    [
        (NEW_YORK, "2025-06-16 13:00", "2025-06-23 13:00", 5 * 480),
        (NEW_YORK, "2025-06-16 14:00", "2025-06-16 14:00", 0),
        (NEW_YORK, "2025-06-16 15:00", "2025-06-16 14:00", 0),
        (NEW_YORK, "2025-06-21 00:00", "2025-06-22 23:59", 0),
        (NEW_YORK, "2025-07-03 13:00", "2025-07-07 13:00", 480),
        (NEW_YORK, "2025-06-16 14:00:30", "2025-06-16 14:02", 1),
        (BERLIN, "2025-06-16 07:00", "2025-06-17 07:00", 600),
        (NIGHT_SHIFT, "2025-06-16 00:00", "2025-06-17 12:00", 480),
    ],
)
def test_business_minutes_between(
    schedule: dict[str, Any], a: str, b: str, expected: int
) -> None:
    assert business_minutes_between(utc(a), utc(b), schedule) == expected


@pytest.mark.parametrize("schedule", [NEW_YORK, BERLIN, NIGHT_SHIFT], ids=["ny", "berlin", "night"])
@pytest.mark.parametrize("minutes", [0, 1, 59, 480, 1000, 2400, 10_000])
def test_round_trip(schedule: dict[str, Any], minutes: int) -> None:
    # Starts inside hours, from before the March changes to past the holidays.
    start = add_business_minutes(utc("2025-02-24 12:00"), 17, schedule)
    while start < utc("2026-01-10 00:00"):
        end = add_business_minutes(start, minutes, schedule)
        assert business_minutes_between(start, end, schedule) == minutes
        start = add_business_minutes(start, 1337, schedule)


def test_aware_datetimes_in_any_zone_come_back_in_utc() -> None:
    berlin_noon = datetime.fromisoformat("2025-06-16T12:00:00+02:00")
    result = add_business_minutes(berlin_noon, 60, BERLIN)
    assert result == utc("2025-06-16 11:00") and result.tzinfo is UTC


def test_add_minutes_is_calendar_time_without_business_hours() -> None:
    friday_evening = utc("2025-06-20 20:00")
    assert add_minutes(friday_evening, 120, NEW_YORK, False) == utc("2025-06-20 22:00")
    assert add_minutes(friday_evening, 120, None, True) == utc("2025-06-20 22:00")
    assert add_minutes(friday_evening, 120, NEW_YORK, True) == utc("2025-06-23 14:00")


def test_invalid_input_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        add_business_minutes(datetime(2025, 6, 16, 12), 5, NEW_YORK)
    with pytest.raises(ValueError, match="negative"):
        add_business_minutes(utc("2025-06-16 12:00"), -5, NEW_YORK)
    with pytest.raises(ValueError, match="no business hours"):
        add_business_minutes(utc("2025-06-16 12:00"), 5, {**NEW_YORK, "intervals": []})
    with pytest.raises(ValueError, match="out of the week"):
        add_business_minutes(utc("2025-06-16 12:00"), 5,
                             {**NEW_YORK, "intervals": [{"start_time": 600, "end_time": 500}]})


def test_long_spans_step_by_window_not_by_minute() -> None:
    start = utc("2025-01-06 14:00")
    end = add_business_minutes(start, 250 * 480, NEW_YORK)  # about a working year
    assert end - start > timedelta(days=340)
    assert business_minutes_between(start, end, NEW_YORK) == 250 * 480
