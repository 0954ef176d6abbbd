"""``workgym factory compile``: the CRM's spec reproduces the committed replica byte for byte,
a check names what differs, stale generated files go (hand-written ones stay), and a rules
file that names what is not there fails with its YAML path."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workgym.cli import main
from workgym.factory.compile import COMMENT, HEADER, MARK, compile_to, generated, render
from workgym.factory.source import Source, SourceError
from workgym.factory.task_rules import load_task_rules

ROOT = Path(__file__).resolve().parents[2]
CRM = ROOT / "replicas" / "crm"
SPEC = CRM / "source"


# Written from the compiled app by other generators: `make coverage` and `make graphs`.
OTHERS = frozenset({"COVERAGE.md", "GRAPH.md"})


def _committed() -> dict[str, bytes]:
    """The CRM's files but its source, compiled bytecode and other generators' documents."""
    return {p.relative_to(CRM).as_posix(): p.read_bytes() for p in sorted(CRM.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and "source" not in
            p.relative_to(CRM).parts[:1] and p.relative_to(CRM).as_posix() not in OTHERS}


def test_the_crm_compiles_to_the_committed_files_byte_for_byte(tmp_path: Path) -> None:
    outcome = compile_to(Source.load(SPEC), tmp_path)
    written = {p.relative_to(tmp_path).as_posix(): p.read_bytes()
               for p in sorted(tmp_path.rglob("*")) if p.is_file()}
    assert sorted(outcome.written) == sorted(written)
    assert written == _committed()
    again = compile_to(Source.load(SPEC), tmp_path)
    assert (again.written, again.removed) == ([], [])


def test_every_generated_file_carries_the_header() -> None:
    files = render(Source.load(SPEC))
    assert {"models.py", "seed/__init__.py", "routes/deals.py", "README.md"} <= set(files)
    for path, text in files.items():
        if Path(path).suffix in COMMENT:
            assert text.startswith(COMMENT[Path(path).suffix](HEADER)), path


def test_the_generated_code_passes_the_linter(tmp_path: Path) -> None:
    """The templates write tidy code themselves (nothing formats it at compile time)."""
    compile_to(Source.load(SPEC), tmp_path / "crm")
    linted = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
         str(ROOT / "pyproject.toml"), str(tmp_path / "crm")],
        capture_output=True, text=True, check=False)
    assert linted.returncode == 0, linted.stdout


def test_check_names_the_files_that_differ(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "crm"
    shutil.copytree(CRM, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert main(["factory", "compile", str(copy / "source"), "--check"]) == 0
    (copy / "models.py").write_text("# edited by hand\n", encoding="utf-8")
    (copy / "seed" / "team.py").unlink()
    assert main(["factory", "compile", str(copy / "source"), "--check"]) == 1
    err = capsys.readouterr().err
    assert "models.py" in err and "seed/team.py" in err and "world.py" not in err
    assert (copy / "models.py").read_text(encoding="utf-8") == "# edited by hand\n"
    assert main(["factory", "compile", str(copy / "source")]) == 0
    assert (copy / "models.py").read_bytes() == (CRM / "models.py").read_bytes()


def test_a_stale_generated_file_goes_and_a_hand_written_one_stays(tmp_path: Path) -> None:
    stale = tmp_path / "routes" / "gone" / "old.py"
    stale.parent.mkdir(parents=True)
    stale.write_text(f"# {MARK} —\n# ...\n", encoding="utf-8")
    mine = tmp_path / "notes.txt"
    mine.write_text("hand-written\n", encoding="utf-8")
    outcome = compile_to(Source.load(SPEC), tmp_path)
    assert outcome.removed == ["routes/gone/old.py"]
    assert not stale.parent.exists() and mine.is_file() and not generated(mine)


def _rules() -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((SPEC / "rules.yaml").read_text(encoding="utf-8"))
    return loaded


def _break(rules: dict[str, object], path: str, value: object) -> None:
    *parents, last = path.split(".")
    node: object = rules
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        assert isinstance(node, dict)
        node[last] = value


@pytest.mark.parametrize(("path", "value", "message"), [
    ("state_machines.deal_stage.column", "stage",
     "rules.yaml: state_machines.deal_stage.column: no column 'stage' in table deals"),
    ("state_machines.deal_stage.transitions.contractsent", ["closedwon", "won"],
     "rules.yaml: state_machines.deal_stage.transitions.contractsent.1: no state 'won'"),
    ("objects.deals.properties.amount.type", "money",
     "rules.yaml: objects.deals.properties.amount.type: Input should be"),
    ("objects.contacts.nickname", "x",
     "rules.yaml: objects.contacts.nickname: Extra inputs are not permitted"),
    ("lookups.deals", ["dealname", "value"],
     "rules.yaml: lookups.deals.1: no column 'value' in table deals"),
    ("world.draws.deals.properties.dealstage.stage", [1, 2],
     "rules.yaml: world.draws.deals.properties.dealstage.stage: one weight per stage (7)"),
    ("world.draws.deals.properties.amount", {"number": [1, 9], "owner": True},
     "rules.yaml: world.draws.deals.properties.amount: Value error, exactly one of"),
    ("association_types.0.to", "people",
     "rules.yaml: association_types.0.to: no object type 'people'"),
    ("world.sizes.companies", 21,
     "rules.yaml: world.sizes.companies: at most 20: the identity's share"),
    # the task-facing sections are the synthesis' models (factory/task_rules.py)
    ("state_machines.deal_stage.act.method", "PATCH",
     "rules.yaml: state_machines.deal_stage.act.method: Extra inputs are not permitted"),
    ("records.contacts.nickname", "x",
     "rules.yaml: records.contacts.nickname: Extra inputs are not permitted"),
    ("policies.won_deal_complete.rule", None,
     "rules.yaml: policies.won_deal_complete.rule: a compiled app's policy states its rule"),
])
def test_a_bad_rules_file_fails_naming_the_yaml_path(tmp_path: Path, path: str, value: object,
                                                      message: str) -> None:
    rules = _rules()
    _break(rules, path, value)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        Source.load(tmp_path)
    assert str(caught.value).startswith(message)


def test_the_compiler_and_the_synthesis_read_one_model_of_the_machines() -> None:
    compiled = Source.load(SPEC).rules
    tasks = load_task_rules(SPEC)
    assert compiled.state_machines == tasks.state_machines
    assert compiled.policies == tasks.policies and compiled.records == tasks.records
    deal = compiled.state_machines["deal_stage"]
    assert deal.act_into("closedwon") is not None and deal.allowed("contractsent", "closedwon")
    assert not deal.allowed("closedwon", "closedlost") and deal.guard("closedwon", "policy")


def test_the_cli_refuses_a_bad_spec_and_writes_nothing(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rules = _rules()
    _break(rules, "policies.won_deal_complete.table", "opportunities")
    spec = tmp_path / "source"
    spec.mkdir()
    (spec / "rules.yaml").write_text(yaml.safe_dump(rules), encoding="utf-8")
    assert main(["factory", "compile", str(spec)]) == 2
    assert "policies.won_deal_complete.table: no table 'opportunities'" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["source"]
