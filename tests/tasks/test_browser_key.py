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


def test_a_step_may_run_when_a_saved_value_says_so_and_pick_among_matches() -> None:
    task = _with_steps(
        {"read": {"testid_prefix": "payment-status-"}, "save": "statuses", "all": True},
        {"read": {"role": "button", "name": "Add to cart", "nth": -1}, "save": "last"},
        {"read": {"testid_prefix": "payment-row-", "has_text": "A-1"}, "save": "row"},
        {"click": {"testid_prefix": "payment-link-", "nth": 0},
         "when": "length(saved('statuses')) > `0`"})

    assert task.browser is not None
    _, read_all, read_last, read_row, click = task.browser.steps
    assert read_all.all and read_all.target is not None
    assert read_all.target.locator == "testid_prefix"
    assert read_last.target is not None and read_last.target.nth == -1
    assert read_row.target is not None and read_row.target.has_text == "A-1"
    assert click.when == "length(saved('statuses')) > `0`" and click.target is not None
    assert click.target.described() == "testid_prefix 'payment-link-' (nth 0)"
    # a step that may not run is not on the shortest path the episode is measured against
    assert task.browser.steps_taken(1) == 1 + 1  # the start page and the goto


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
    ({"click": {"testid": "t"}, "when": "saved('x') =="}, "browser.steps.1.when",
     "not a JMESPath expression"),
    ({"click": {"testid": "t"}, "all": True}, "browser.steps.1", "click takes no 'all'"),
    ({"read": {"testid": "t", "nth": 1}, "save": "x", "all": True}, "browser.steps.1",
     "read takes 'all' or a target's 'nth', not both"),
    ({"click": {"testid": "t", "nth": "first"}}, "browser.steps.1.click.nth",
     "valid integer"),
    ({"click": {"testid": "t", "testid_prefix": "t-"}}, "browser.steps.1.click",
     "exactly one locator"),
    ({"click": {"testid_prefix": ""}}, "browser.steps.1.click.testid_prefix",
     "at least 1 character"),
    ({"click": {"testid_prefix": "row-", "has_text": ""}}, "browser.steps.1.click.has_text",
     "at least 1 character"),
])
def test_a_step_that_breaks_a_rule_is_refused_naming_it(
        step: dict[str, Any], where: str, rule: str) -> None:
    with pytest.raises(TaskFileError) as refused:
        _with_steps(step)

    assert f"{where}: " in str(refused.value) and rule in str(refused.value)
