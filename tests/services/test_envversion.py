"""The environment version (workgym.envversion): a content address of the code, the apps'
data, the task files and the fault plans; a change to any part changes the id and is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym import envversion
from workgym.envversion import PARTS, current, differences, version_of


def test_the_version_is_stable_and_names_its_parts() -> None:
    version = current()
    assert version.id.startswith("wg-") and len(version.id) == 3 + 16
    assert set(version.parts) == set(PARTS)
    assert version_of(version.parts) == version
    assert differences(version.as_dict(), version.as_dict()) == []


def test_a_changed_task_file_changes_the_tasks_part_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = current()
    root = tmp_path / "tasks"
    (root / "mine").mkdir(parents=True)
    (root / "mine" / "a.yaml").write_text("id: a\n")
    monkeypatch.setattr("workgym.tasks.task_roots", lambda extra=None: (root,))
    first = envversion._tasks()
    (root / "mine" / "a.yaml").write_text("id: b\n")
    second = envversion._tasks()
    assert first != second
    changed = version_of({**before.parts, "tasks": second})
    assert changed.id != before.id
    assert differences(before.as_dict(), changed.as_dict()) == ["tasks differ"]


def test_a_missing_version_is_a_difference() -> None:
    assert differences(None, current().as_dict()) == [
        "no environment version recorded in the first"]
