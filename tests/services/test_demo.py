"""`make demo` prints a link to the page of every episode it runs, and where the pages' store
is kept."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from workgym import demo


def test_the_demo_prints_every_episodes_link(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    run: list[tuple[str, str]] = []
    monkeypatch.setenv("WORKGYM_TELEMETRY_DATA_DIR", str(tmp_path / "spans"))

    @contextmanager
    def serving(*_: Any, **__: Any) -> Iterator[str]:
        yield "http://127.0.0.1:1"

    def episode(url: str, task: str, agent: str, seed: int,
                show: str | None = None) -> dict[str, object]:
        run.append((task, agent))
        return {"task": task, "episode_id": f"ep{len(run)}",
                "episode_page": f"http://store/episodes/ep{len(run)}"}

    monkeypatch.setattr(demo, "serving", serving)
    monkeypatch.setattr(demo, "_episode", episode)
    monkeypatch.setattr(demo, "_wait_recorded", lambda *_: True)
    monkeypatch.setattr(sys, "argv", ["demo"])
    assert demo.main() == 0
    out = capsys.readouterr().out
    assert f"the store is kept in {tmp_path / 'spans'}; serve it again" in out
    links = [line for line in out.splitlines() if line.startswith("demo: episode page of")]
    assert len(run) == 4
    assert links == [f"demo: episode page of {task} ({agent}): http://store/episodes/ep{i}"
                     for i, (task, agent) in enumerate(run, 1)]
