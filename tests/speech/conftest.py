"""Print the corpus figures, and the realiser's read-back rates, after a run that measured
them."""

from __future__ import annotations

import sys

import pytest

from tests.speech import figures


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if figures.outcomes.cache_info().currsize:
        terminalreporter.section("statement reader on the labelled corpus")
        terminalreporter.write_line(figures.table())
    realise = sys.modules.get("tests.speech.test_realise")
    if realise is not None and realise.cases.cache_info().currsize:
        terminalreporter.section("realiser templates read back")
        terminalreporter.write_line(realise.summary())
