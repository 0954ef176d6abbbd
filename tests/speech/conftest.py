"""Print the corpus figures after a run that measured them."""

from __future__ import annotations

import pytest

from tests.speech import figures


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if figures.outcomes.cache_info().currsize:
        terminalreporter.section("statement reader on the labelled corpus")
        terminalreporter.write_line(figures.table())
