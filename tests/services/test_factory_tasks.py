"""``workgym factory tasks``: the synthesis engine's families and its gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym.factory.families import FAMILIES, named
from workgym.factory.synthesis import HEADER, Candidate, gate, load_app, render, write
from workgym.tasks import TASKS_DIR
from workgym_core.errors import ConfigError

APP = "helpdesk"


@pytest.fixture(scope="module")
def candidates() -> dict[str, Candidate]:
    app = load_app(APP)
    return {c.task_id: c for family in FAMILIES for c in family.candidates(app)}


def generated() -> list[Path]:
    """The committed task files `workgym factory tasks helpdesk` wrote."""
    return [path for path in sorted((TASKS_DIR / APP).glob("*.yaml"))
            if path.read_text().startswith(HEADER.split("{app}")[0] + f"{APP} ")]


def test_the_helpdesk_rules_give_candidates_of_five_family_kinds(
        candidates: dict[str, Candidate]) -> None:
    assert {c.family for c in candidates.values()} == {
        "lookup-act-tell", "lookup-act", "decision", "question", "sweep"}


def test_a_familys_candidates_are_deterministic(candidates: dict[str, Candidate]) -> None:
    again = {c.task_id: render(c, APP) for family in FAMILIES
             for c in family.candidates(load_app(APP))}
    assert again == {task_id: render(c, APP) for task_id, c in candidates.items()}


def test_each_committed_generated_task_re_derives_byte_for_byte(
        candidates: dict[str, Candidate]) -> None:
    files = generated()
    assert len(files) >= 26
    for path in files:
        candidate = candidates[f"{APP}/{path.stem}"]
        assert path.read_text() == render(candidate, APP), path.name
        assert "factory" in candidate.body["tags"] and candidate.family in candidate.body["tags"]


def test_a_candidate_failing_the_gate_is_not_written(candidates: dict[str, Candidate],
                                                     tmp_path: Path) -> None:
    good = candidates[f"{APP}/lookup-act-tell-ticket-status-pending-by-subject"]
    # The near miss "says nothing" made to say what the reference says: it scores 1.0.
    broken_body = {**good.body, "near_misses": [{"name": "says-nothing", "append": []}]}
    broken = Candidate(f"{APP}/lookup-act-tell-broken", good.family, broken_body)
    invalid = Candidate(f"{APP}/lookup-act-tell-invalid", good.family,
                        {**good.body, "verifier": []})
    results = gate([good, broken, invalid], 2, APP)
    assert [(g.candidate.task_id, g.ok) for g in results] == [
        (good.task_id, True), (broken.task_id, False), (invalid.task_id, False)]
    assert "near_miss:says-nothing: reward 1.0" in results[1].line
    assert "not a valid task" in results[2].line
    written = write([g.candidate for g in results if g.ok], tmp_path, APP)
    assert [p.name for p in written] == [f"{good.name}.yaml"]
    assert sorted(p.name for p in (tmp_path / APP).iterdir()) == [f"{good.name}.yaml"]


def test_an_unknown_family_is_named() -> None:
    with pytest.raises(ConfigError, match="no family nope"):
        named(["nope"])


def test_writing_removes_what_an_earlier_run_of_the_family_wrote(
        candidates: dict[str, Candidate], tmp_path: Path) -> None:
    first, second = sorted(c for c in candidates if "/question-" in c)[:2]
    write([candidates[first], candidates[second]], tmp_path, APP, ["question"])
    (tmp_path / APP / "hand-written.yaml").write_text("title: mine\n")
    write([candidates[first]], tmp_path, APP, ["question"])
    assert sorted(p.name for p in (tmp_path / APP).iterdir()) == [
        "hand-written.yaml", f"{first.split('/')[1]}.yaml"]
