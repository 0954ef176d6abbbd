"""The task file format as JSON Schema (``workgym tasks schema``), derived from the Task
model: every task file validates against it, tasks/task.schema.json is current, and it
refuses what the catalogue refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from workgym.cli import main
from workgym.tasks import TASKS_DIR, Task

SCHEMA_FILE = TASKS_DIR / "task.schema.json"
FILES = sorted(TASKS_DIR.glob("*/*.yaml"))


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(Task.file_schema())


def test_every_task_file_validates_against_the_schema() -> None:
    validator = _validator()
    invalid = {path.relative_to(TASKS_DIR).as_posix(): [error.message for error in errors]
               for path in FILES
               if (errors := list(validator.iter_errors(yaml.safe_load(path.read_text()))))}
    assert not invalid, invalid


def test_the_committed_schema_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == Task.file_schema()
    assert json.loads(SCHEMA_FILE.read_text()) == printed, (
        "tasks/task.schema.json is stale: `workgym tasks schema > tasks/task.schema.json`")


def _task(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load((TASKS_DIR / "helpdesk/password-reset.yaml").read_text())
    return {**raw, **changes}


@pytest.mark.parametrize(("changes", "refused"), [
    ({"titel": "a typo"}, "'titel' was unexpected"),
    ({"id": "helpdesk/other"}, "'id' was unexpected"),  # the id is the file's path
    ({"difficulty": "trivial"}, "'trivial' is not one of"),
    ({"reference": {"steps": []}}, "should be non-empty"),
    ({"setup": "not rows"}, "is not valid under any of the given schemas"),
])
def test_the_schema_refuses_what_the_catalogue_refuses(
    changes: dict[str, Any], refused: str
) -> None:
    errors = [error.message for error in _validator().iter_errors(_task(**changes))]
    assert any(refused in message for message in errors), errors


def test_an_editor_finds_the_schema_from_a_task_file() -> None:
    """The line tasks/README.md tells authors to put first resolves to the schema file."""
    line = "# yaml-language-server: $schema=../task.schema.json"
    readme = (TASKS_DIR / "README.md").read_text()
    assert line in readme
    assert (TASKS_DIR / "helpdesk" / Path(line.split("=", 1)[1])).resolve() == SCHEMA_FILE
