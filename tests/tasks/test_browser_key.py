"""The ``browser:`` key of a task file: each step exactly one action with what it needs, each
element named by exactly one locator, its pages in the task's apps; a file that breaks a rule
is refused naming the step and the field."""

from __future__ import annotations

from typing import Any

import pytest

from workgym import task_files
from workgym.task_files import TaskFileError
from workgym.tasks import TASKS_DIR, Task, task_from

PATH = TASKS_DIR / "checkout" / "test-order-3ds.yaml"


def _with_steps(*steps: dict[str, Any]) -> Task:
    raw = task_files.parse(PATH)
    return task_from(PATH, TASKS_DIR, {**raw, "browser": {"steps": [
        {"goto": "checkout:/shop"}, *steps]}})


def test_the_steps_of_the_format_are_read() -> None:
    task = _with_steps(
        {"click": {"role": "link", "name": "JPY"}},
        {"fill": {"label": "Quantity of {gear}", "within": "product-list"}, "value": "2"},
        {"select_option": {"testid": "country"}, "value": "Japan"},
        {"press": {"text": "CVC"}, "key": "Enter"},
        {"read": {"testid": "order-total"}, "save": "total", "pattern": r"([0-9.,]+)"},
        {"expect": "is confirmed"}, {"new_tab": "checkout:/shop/cart"}, {"tab_focus": 0},
        {"scroll": [0, 400]}, {"send_msg_to_user": "{total}"})

    assert task.browser is not None
    assert [step.action for step in task.browser.steps] == [
        "goto", "click", "fill", "select_option", "press", "read", "expect", "new_tab",
        "tab_focus", "scroll", "send_msg_to_user"]
    assert task.browser.steps[2].target is not None
    assert task.browser.steps[2].target.within == "product-list"


@pytest.mark.parametrize(("step", "where", "rule"), [
    ({"click": {"role": "link", "name": "JPY"}, "goto": "checkout:/shop"}, "browser.steps.1",
     "exactly one action"),
    ({}, "browser.steps.1", "exactly one action"),
    ({"fill": {"label": "Card number"}}, "browser.steps.1", "fill needs 'value'"),
    ({"read": {"testid": "total"}}, "browser.steps.1", "read needs 'save'"),
    ({"press": {"label": "CVC"}, "key": "Enter", "value": "x"}, "browser.steps.1",
     "press takes no 'value'"),
    ({"click": {"role": "button"}}, "browser.steps.1.click", "role and name go together"),
    ({"click": {"label": "A", "testid": "b"}}, "browser.steps.1.click", "exactly one locator"),
    ({"click": {"css": ".x"}}, "browser.steps.1.click.css", "Extra inputs"),
    ({"goto": "/shop"}, "browser.steps.1.goto", "String should match pattern"),
    ({"goto": "tracker:/boards"}, "browser.steps.1", "names no app of the task's"),
    ({"read": {"testid": "t"}, "save": "x", "pattern": "("}, "browser.steps.1.pattern",
     "not a regular expression"),
])
def test_a_step_that_breaks_a_rule_is_refused_naming_it(
        step: dict[str, Any], where: str, rule: str) -> None:
    with pytest.raises(TaskFileError) as refused:
        _with_steps(step)

    assert f"{where}: " in str(refused.value) and rule in str(refused.value)
