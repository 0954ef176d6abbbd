"""The tracker's workflows as data: world.yaml's load and are checked; transitions offered
by status and role, refused off the screen or by validators, and post-functions."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from replicas.tracker.rules.workflows import (
    Facts,
    TransitionRefused,
    available,
    editable,
    find,
    post_functions,
    screen_check,
    validate,
    workflows,
)

WORLD = yaml.safe_load((Path(__file__).parents[3] / "replicas/tracker/world.yaml").read_text())
FLOWS = workflows(WORLD)
DEV, ADMIN = frozenset({"Developers"}), frozenset({"Developers", "Administrators"})


def test_every_workflow_loads_and_its_ids_differ_between_projects() -> None:
    assert set(FLOWS) == {"software", "bug", "ops"}
    ids = {name: {t.id for t in flow.transitions} for name, flow in FLOWS.items()}
    assert not ids["software"] & ids["bug"]


def test_a_broken_workflow_is_refused_when_it_loads() -> None:
    broken = {**WORLD, "workflows": {"x": {"initial": "Open", "transitions": [
        {"id": 1, "name": "Go", "from": ["Nowhere"], "to": "Open"}]}}}
    with pytest.raises(ValueError, match="unknown status 'Nowhere'"):
        workflows(broken)
    unknown = {**WORLD, "workflows": {"x": {"initial": "Open", "transitions": [
        {"id": 1, "name": "Go", "from": "*", "to": "Open", "validators": [{"magic": 1}]}]}}}
    with pytest.raises(ValueError, match="a validator is one of"):
        workflows(unknown)
    locked = {**WORLD, "workflows": {"x": {"initial": "Open", "finished": "Open",
                                           "locked": ["Shut"], "transitions": []}}}
    with pytest.raises(ValueError, match="unknown locked statuses \\['Shut'\\]"):
        workflows(locked)


def test_a_closed_bug_is_not_editable() -> None:
    """Jira's classic workflow marks Closed jira.issue.editable = false."""
    assert FLOWS["bug"].locked == {"Closed"}
    assert not editable(FLOWS["bug"], "Closed") and editable(FLOWS["bug"], "Resolved")
    assert editable(FLOWS["software"], "Done")


def test_transitions_by_status_and_the_conditions_that_hide_them() -> None:
    software = FLOWS["software"]
    assert [t.name for t in available(software, "Backlog", DEV)] == [
        "Select for development", "Start progress"]
    assert "Won't do" in [t.name for t in available(software, "Backlog", ADMIN)]
    with pytest.raises(TransitionRefused, match="Transition id '81' is not valid"):
        find(software, "Backlog", 81, DEV)
    with pytest.raises(TransitionRefused, match="Transition id '71' is not valid"):
        find(software, "Backlog", 71, ADMIN)  # Done is only from QA


def test_fields_off_the_screen_are_refused_one_error_each() -> None:
    done = find(FLOWS["software"], "QA", 71, DEV)
    screen_check(done, {"resolution", "comment", "fixVersions"})
    with pytest.raises(TransitionRefused) as refused:
        screen_check(done, {"resolution", "assignee", "labels"})
    assert set(refused.value.errors) == {"assignee", "labels"}
    assert refused.value.errors["labels"].startswith("Field 'labels' cannot be set.")


def test_validators_refuse_with_jiras_errors() -> None:
    done = find(FLOWS["software"], "QA", 71, DEV)
    with pytest.raises(TransitionRefused) as refused:
        validate(done, Facts(open_subtasks=2))
    assert refused.value.errors == {"resolution": "Resolution is required."}
    assert refused.value.messages == ["All sub-tasks must be done before this transition."]
    validate(done, Facts(resolution="Done"))
    block = find(FLOWS["software"], "In Progress", 61, DEV)
    with pytest.raises(TransitionRefused, match="Comment is required"):
        validate(block, Facts())
    duplicate = find(FLOWS["bug"], "Open", 711, DEV)
    with pytest.raises(TransitionRefused, match="'Duplicate' link"):
        validate(duplicate, Facts(links=(("Duplicate", "inward", "done"),)))
    validate(duplicate, Facts(links=(("Duplicate", "outward", "new"),)))
    blocked = find(FLOWS["ops"], "In Progress", 102, DEV)
    with pytest.raises(TransitionRefused):  # its blocker is already done
        validate(blocked, Facts(links=(("Blocks", "inward", "done"),)))
    validate(blocked, Facts(links=(("Blocks", "inward", "indeterminate"),)))


def test_post_functions_set_and_clear_the_resolution_and_assign() -> None:
    software = FLOWS["software"]
    start = find(software, "Backlog", 21, DEV)
    assert post_functions(start, resolution=None, assignee_id=None, caller_id=7) == {
        "status": "In Progress", "assignee_id": 7}
    assert post_functions(start, resolution=None, assignee_id=3, caller_id=7) == {
        "status": "In Progress"}
    done = find(software, "QA", 71, DEV)
    assert post_functions(done, resolution=None, assignee_id=3, caller_id=7)[
        "resolution"] == "Done"
    assert "resolution" not in post_functions(done, resolution="Won't Do", assignee_id=3,
                                              caller_id=7)
    reopen = find(software, "Done", 91, DEV)
    assert post_functions(reopen, resolution="Done", assignee_id=3, caller_id=7) == {
        "status": "Backlog", "resolution": None}
