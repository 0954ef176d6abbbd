"""Train/test splits by template (tasks/splits.yaml): every task in exactly one split, the
file what the rule gives, variants of a task in one split; `workgym tasks list --split` and
`workgym bench --split` run a split."""

from __future__ import annotations

import json

import pytest
import yaml

from workgym.bench.command import _command, select
from workgym.cli import main
from workgym.splits import SPLITS, SPLITS_FILE, in_split, render, split_of
from workgym.tasks import catalogue


def _recorded() -> dict[str, list[str]]:
    recorded: dict[str, list[str]] = yaml.safe_load(SPLITS_FILE.read_text())
    return recorded


def test_the_splits_file_is_what_the_rule_gives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "splits"]) == 0
    printed = capsys.readouterr().out
    assert printed == render(catalogue([]))
    assert SPLITS_FILE.read_text() == printed, (
        "tasks/splits.yaml is stale: `workgym tasks splits > tasks/splits.yaml`")


def test_every_task_is_in_exactly_one_split() -> None:
    recorded = _recorded()
    assert set(recorded) == set(SPLITS)
    train, test = set(recorded["train"]), set(recorded["test"])
    assert not train & test
    framework = {t.template for t in catalogue([]) if t.suite == "framework"}
    assert framework and not framework & (train | test)  # no training on the framework's apps
    assert {task.template for task in catalogue([])} - framework == train | test
    assert test and train


def test_a_split_is_the_templates_alone() -> None:
    """A task's split is its template's: never its position among the others, so adding
    tasks moves none; a variant naming another task's template goes where that task goes."""
    tasks = list(catalogue([]))
    assert in_split(tasks[1:], "test") == [t for t in in_split(tasks, "test") if t != tasks[0]]
    jpy = catalogue().get("helpdesk/duplicate-charge-jpy")
    assert jpy.template == "helpdesk/duplicate-charge"
    assert split_of(jpy.template) == split_of(catalogue().get("helpdesk/duplicate-charge").id)


def test_tasks_list_and_bench_run_a_split(capsys: pytest.CaptureFixture[str]) -> None:
    test = {t.id for t in catalogue() if t.template in _recorded()["test"]}
    assert main(["tasks", "list", "--split", "test", "--json"]) == 0
    assert {task["id"] for task in json.loads(capsys.readouterr().out)} == test
    assert {t.id for t in select(None, [], "test")} == test
    header = {"suite": None, "split": "test", "selection": [], "seeds": [0], "url": None,
              "trials": 1, "faults": "task", "agent": "reference"}
    assert "--split test" in _command(header)
