"""The JMESPath functions reference scripts have beyond JMESPath's own: saved values, a regex
match, and whole-number arithmetic for amounts (a prorated refund, a percentage off)."""

from __future__ import annotations

import pytest

from workgym.agents.reference import ReferenceFailed, _search


def test_arithmetic_stays_in_whole_minor_units() -> None:
    saved = {"paid": 18000, "used": 40}
    assert _search("div(mul(saved('paid'), sub(`365`, saved('used'))), `365`)", {},
                   saved) == 16027
    assert _search("add(price, `5`)", {"price": 10}, {}) == 15
    assert _search("div(`-7`, `2`)", {}, {}) == -4  # floor, as the policy's formula
    with pytest.raises(ReferenceFailed, match="division by zero"):
        _search("div(`1`, `0`)", {}, {})


def test_days_between_two_moments_in_either_of_the_apps_formats() -> None:
    shipped, asked = "2025-05-01T10:00:00Z", "2025-06-16T09:00:00Z"
    assert _search("days(a, b)", {"a": shipped, "b": asked}, {}) == 45  # not a whole 46
    assert _search("days(a, b)", {"a": 1746093600, "b": asked}, {}) == 45  # Unix seconds
    with pytest.raises(ReferenceFailed, match="no timestamp"):
        _search("days(a, b)", {"a": "last week", "b": asked}, {})


def test_match_takes_the_first_group() -> None:
    assert _search("match(body, 'code is (\\d{6})')", {"body": "my code is 123456"}, {}) == (
        "123456")
    assert _search("match(body, '\\d{6}')", {"body": "none"}, {}) is None


def test_an_expression_the_data_does_not_fit_fails_the_script_not_the_gate() -> None:
    with pytest.raises(ReferenceFailed, match="length"):
        _search("length(count)", {"count": 3}, {})  # a number has no length
    with pytest.raises(ReferenceFailed, match="unknown"):
        _search("unknown(`1`)", {}, {})
