"""The bootstrap over problems (workgym.bench.stats): deterministic, covering the mean,
narrowing as problems are added, degenerate where every problem agrees."""

from __future__ import annotations

import pytest

from workgym.bench.stats import bootstrap_ci, percentile


def test_the_interval_is_deterministic_and_holds_the_mean() -> None:
    values = [1.0] * 60 + [0.0] * 40
    one = bootstrap_ci(values)
    assert one == bootstrap_ci(values)
    assert one.low < one.mean == 0.6 < one.high
    # The normal approximation's 95% half width, sqrt(p(1-p)/n) * 1.96 = 0.096.
    assert one.half_width == pytest.approx(0.096, abs=0.015)
    wide, narrow = bootstrap_ci(values[::5]), bootstrap_ci(values * 4)
    assert wide.half_width > one.half_width > narrow.half_width


def test_agreeing_problems_have_no_spread_and_bad_input_is_refused() -> None:
    assert str(bootstrap_ci([1.0, 1.0, 1.0])) == "1.00 [1.00, 1.00]"
    assert bootstrap_ci([0.5]).half_width == 0
    with pytest.raises(ValueError, match="at least one problem"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1.0, 0.0], level=1.5)
    assert percentile([0.0, 1.0], 0.25) == 0.25
