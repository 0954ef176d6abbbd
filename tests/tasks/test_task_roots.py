"""Task roots beside the packaged tasks/ (WORKGYM_TASKS): a user's task is listed, served,
run and gated like ours; a root that is not there, or a task id two roots define, is one
clear error."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from workgym.agents.reference import reference
from workgym.cli import main
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import TASKS_DIR, catalogue
from workgym_core.errors import ConfigError
from workgym_core.settings import Settings

PACKAGED = "checkout/refund-returned-order"  # a short one, copied as a user's task
MINE = "checkout/my-refund-returned-order"


def _root(at: Path, task_id: str = MINE) -> Path:
    """A task root holding a copy of a packaged task as ``task_id``."""
    target = at / f"{task_id}.yaml"
    target.parent.mkdir(parents=True)
    shutil.copy(TASKS_DIR / f"{PACKAGED}.yaml", target)
    return at


def test_a_user_task_is_listed_served_run_and_gated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _root(tmp_path / "mine")
    monkeypatch.setenv("WORKGYM_TASKS", str(root))
    assert main(["tasks", "list", "--json"]) == 0
    listed = [task["id"] for task in json.loads(capsys.readouterr().out)]
    assert MINE in listed and PACKAGED in listed  # ours first, always

    server = LocalServer(Settings(data_dir=tmp_path / "data", internal_secret="test-secret"))
    try:
        served = server.client().get(
            "/v1/tasks", headers={"authorization": f"Bearer {server.server.settings.api_key}"})
        assert MINE in {task["id"] for task in served.json()}, served.text
        with Env.inprocess(server, MINE, seed=0) as env:
            env.reset()
            report = env.finish(answer=reference(env, catalogue().get(MINE)))
        assert report["success"], report["assertions"]
    finally:
        server.close()

    assert main(["tasks", "check", "--task", MINE, "--seeds", "1"]) == 0


def test_a_root_that_is_not_there_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WORKGYM_TASKS", str(tmp_path / "nowhere"))
    assert main(["tasks"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert f"task root {tmp_path / 'nowhere'} is no folder: check WORKGYM_TASKS" in error


@pytest.mark.parametrize(("text", "why"), [
    ("instruction: [unclosed\n", "not YAML"),
    ("- a list\n", "a task file must hold a mapping"),
    ("instruction: 3\n", "instruction: Input should be a valid string; "),
])
def test_a_broken_user_task_file_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    text: str, why: str
) -> None:
    broken = tmp_path / "mine" / "oops.yaml"
    broken.parent.mkdir()
    broken.write_text(text)
    monkeypatch.setenv("WORKGYM_TASKS", str(tmp_path))
    assert main(["tasks"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"workgym: error: {broken}: ") and why in error
    assert error.count("\n") == 1


def test_two_roots_defining_one_task_id_name_both_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _root(tmp_path / "a"), _root(tmp_path / "b")
    monkeypatch.setenv("WORKGYM_TASKS", os.pathsep.join([str(first), str(second)]))
    with pytest.raises(ConfigError, match=f"task '{MINE}' is defined twice: "
                       f"{first / MINE}.yaml and {second / MINE}.yaml"):
        catalogue()


def test_a_user_task_may_not_redefine_a_packaged_one(tmp_path: Path) -> None:
    root = _root(tmp_path / "mine", PACKAGED)
    with pytest.raises(ConfigError, match=f"task '{PACKAGED}' is defined twice: "
                       f"{TASKS_DIR / PACKAGED}.yaml and {root / PACKAGED}.yaml"):
        catalogue([root])
