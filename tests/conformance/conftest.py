"""The conformance tests' headline figures, shown at the end of every run (tests/conftest.py's
terminal summary), even under ``-n`` and without ``-s``."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def figure(record_property: Callable[[str, object], None]) -> Callable[[str], None]:
    """``figure(line)``: printed, and kept on the test's report for the run's summary."""
    def record(line: str) -> None:
        print(line)
        record_property("figure", line)
    return record
