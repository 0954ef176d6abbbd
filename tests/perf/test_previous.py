"""The previous release, exported from this clone to be measured beside this checkout; a clone
without its commit is told why in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workgym_perf import previous


def test_a_commit_of_this_repository_is_exported_once(tmp_path: Path) -> None:
    head = subprocess.run(["git", "-C", str(previous.ROOT), "rev-parse", "HEAD~1"],
                          capture_output=True, text=True, check=True).stdout.strip()
    root = previous.export(head, cache=tmp_path)
    assert root == tmp_path / head
    assert (root / "services/workgym_perf/bench/__main__.py").is_file()
    assert [p.name for p in tmp_path.iterdir()] == [head]  # no partial tree left
    (root / "marker").touch()
    assert previous.export(head, cache=tmp_path) == root and (root / "marker").exists()
    path = previous.environment(root, {})["PYTHONPATH"].split(":")
    assert path[:2] == [str(root), str(root / "services")]


def test_a_missing_commit_is_explained(tmp_path: Path) -> None:
    with pytest.raises(previous.PreviousMissing, match=r"the previous release 000000000000 "
                       r"\(workgym_perf/baseline\) is not in the clone .*no ratios"):
        previous.export("0" * 40, cache=tmp_path)
    assert not list(tmp_path.iterdir())


def test_the_previous_release_is_named_by_a_full_commit() -> None:
    assert len(previous.commit()) == 40
