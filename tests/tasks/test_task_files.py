"""The task files' cache (``workgym prebuild --catalogue``, run by the image build): read while
a file is unchanged, never in place of a file changed or added since, ignored when unreadable;
and the catalogue read through it is the one parsed from the files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from workgym import task_files
from workgym.cli import main
from workgym.tasks import TASKS_DIR, _catalogue, task_roots

TASK: dict[str, Any] = {"title": "A", "difficulty": "easy", "tags": ["t"], "instruction": "x"}


def _write(root: Path, name: str, **fields: Any) -> Path:
    path = root / "helpdesk" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({**TASK, **fields}))
    return path


def _contents(root: Path) -> dict[str, dict[str, Any]]:
    return {path.name: raw for path, raw in task_files.contents(root)}


def test_unchanged_files_are_read_from_the_cache(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "a", title="first")
    _write(tmp_path, "b", title="second")

    where, count = task_files.write_cache(tmp_path)

    assert (where, count) == (task_files.cache_path(tmp_path), 2)
    monkeypatch.setattr(task_files, "parse", lambda path: pytest.fail(f"parsed {path}"))
    assert {name: raw["title"] for name, raw in _contents(tmp_path).items()} == {
        "a.yaml": "first", "b.yaml": "second"}


def test_a_file_changed_or_added_since_is_parsed(tmp_path: Path) -> None:
    changed = _write(tmp_path, "a", title="first")
    task_files.write_cache(tmp_path)
    _write(tmp_path, "a", title="FIRST")  # same size: told apart by its modification time
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    _write(tmp_path, "c", title="new")

    assert {name: raw["title"] for name, raw in _contents(tmp_path).items()} == {
        "a.yaml": "FIRST", "c.yaml": "new"}


@pytest.mark.parametrize("cache", [b"", b"\x00garbage", b"N"])  # empty, not marshal, not a dict
def test_an_unreadable_cache_is_ignored(tmp_path: Path, cache: bytes) -> None:
    _write(tmp_path, "a", title="first")
    task_files.cache_path(tmp_path).parent.mkdir()
    task_files.cache_path(tmp_path).write_bytes(cache)

    assert _contents(tmp_path)["a.yaml"]["title"] == "first"


def test_a_cached_file_still_fails_as_the_file_would(tmp_path: Path) -> None:
    """What is cached is the file's data only: a task is checked at every start."""
    _write(tmp_path, "a", difficulty="impossible")
    task_files.write_cache(tmp_path)

    with pytest.raises(task_files.TaskFileError, match="a.yaml: difficulty"):
        _catalogue((tmp_path,))


def test_the_catalogue_through_the_cache_is_the_parsed_one(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    parsed = [task.model_dump() for task in _catalogue((root,))]
    task_files.write_cache(root)
    _catalogue.cache_clear()

    assert [task.model_dump() for task in _catalogue((root,))] == parsed


def test_prebuild_catalogue_caches_every_task_root(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "a")
    monkeypatch.setenv("WORKGYM_TASKS", str(tmp_path))
    written: list[Path] = []
    def write_cache(root: Path) -> tuple[Path, int]:
        written.append(root)
        return root / "cache", 1

    monkeypatch.setattr(task_files, "write_cache", write_cache)

    assert main(["prebuild", "--catalogue"]) == 0
    assert written == list(task_roots()) == [TASKS_DIR, tmp_path.resolve()]
    assert main(["prebuild", "helpdesk", "--catalogue"]) == 2
    assert "an app or --catalogue" in capsys.readouterr().err
