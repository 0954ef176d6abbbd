"""`make bench` always ends: a section past its bound is stopped with one line saying where
it waited, the next sections still run, and the exit code says so."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from workgym_perf.bench import __main__ as bench


def test_a_section_that_hangs_is_stopped_and_named(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[str] = []

    def hangs() -> None:
        threading.Event().wait()  # as LocalServer.close waited on its server's shutdown

    def sections(tmp: Path) -> dict[str, object]:
        return {"stuck": hangs, "next": lambda: ran.append("next")}

    monkeypatch.setattr(bench, "sections", sections)
    monkeypatch.setattr(sys, "argv", ["bench", "--section-timeout", "1", "--no-baseline"])
    assert bench.main() == 1
    assert ran == ["next"]
    errors = capsys.readouterr().err.splitlines()
    assert errors[0].startswith("bench: the stuck section ran past 1 s, waiting in ")
    # Where it waited, and the bench's own code that waited there.
    assert "wait (threading.py:" in errors[0]
    line = hangs.__code__.co_firstlineno + 1
    assert errors[0].endswith(f" from {hangs.__qualname__} (test_sections.py:{line})")
    assert errors[1:] == ["bench: sections stopped past their bound: stuck"]
