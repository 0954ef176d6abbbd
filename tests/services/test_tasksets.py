"""Task sets (workgym.tasksets): what a file holds survives a round trip; every bad instance
is refused naming the file, the instance and the field; rows repeat an instance by weight."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym.tasksets import FORMAT, Instance, TaskSet, TaskSetError, load, parse

TASK = "helpdesk/refund-standard"


def test_a_set_round_trips_and_its_rows_follow_the_weights(tmp_path: Path) -> None:
    made = TaskSet([Instance(TASK, 3, weight=2, info={"rate": 0.6}),
                    Instance("tracker/start-work-on-bug", 0, faults="hard")],
                   name="calibrated", env_version={"id": "wg-0", "parts": {}},
                   made_by={"command": "workgym tasks calibrate"})
    path = tmp_path / "set.json"
    made.save(path)
    again = load(path)
    assert again == made
    assert again.rows() == [{"task": TASK, "seed": 3, "faults": "task"}] * 2 + [
        {"task": "tracker/start-work-on-bug", "seed": 0, "faults": "hard"}]
    path.write_bytes(path.read_bytes())  # the same set, the same bytes
    made.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


@pytest.mark.parametrize(("instance", "error"), [
    ({"seed": 1}, "instances[0].task: a task id is required"),
    ({"task": "helpdesk/nope", "seed": 1}, "instances[0].task: no task 'helpdesk/nope'"),
    ({"task": TASK, "seed": -1}, "instances[0].seed: a whole number 0 or more"),
    ({"task": TASK, "seed": "3"}, "instances[0].seed: a whole number 0 or more"),
    ({"task": TASK, "seed": 1, "faults": "stormy"}, "instances[0].faults: no fault preset"),
    ({"task": TASK, "seed": 1, "weight": 0}, "instances[0].weight: a whole number 1 or more"),
    ({"task": TASK, "seed": 1, "colour": "red"}, "instances[0]: unknown field 'colour'"),
])
def test_a_bad_instance_is_refused_naming_where(instance: dict[str, object],
                                                error: str) -> None:
    with pytest.raises(TaskSetError, match=r"^mine\.json: " + error.replace("[", r"\[")
                       .replace("]", r"\]").replace(".", r"\.").replace("(", r"\(")):
        parse({"format": FORMAT, "instances": [instance]}, "mine.json")


def test_a_file_that_is_no_set_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    with pytest.raises(TaskSetError, match="cannot read task set"):
        load(path)
    path.write_text("{")
    with pytest.raises(TaskSetError, match="is not JSON"):
        load(path)
    path.write_text('{"format": "workgym-bench/1"}')
    with pytest.raises(TaskSetError, match="is not a task set"):
        load(path)
    twice = {"task": TASK, "seed": 1}
    with pytest.raises(TaskSetError, match=r"instances\[1\]: .* listed twice"):
        parse({"format": FORMAT, "instances": [twice, twice]})
