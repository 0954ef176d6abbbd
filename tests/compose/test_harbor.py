"""Harbor (PyPI's `harbor`, unchanged, in a Python 3.13 venv of its own: `make harbor`) runs
its oracle agent on tasks `workgym export --format harbor` wrote, through docker compose: each
scores 1.0. Harbor's own models accept the exported task directories.

Needs a Docker engine with `docker compose`: runs only with WORKGYM_COMPOSE_TESTS=1 (set by
.ci/run, which also installs what `make harbor` builds Python from). Leaves no container."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from workgym.processes import workgym

pytestmark = [
    pytest.mark.compose,
    pytest.mark.slow,
    pytest.mark.xdist_group("compose"),  # builds this checkout's gym image, as the stack's tests
    pytest.mark.skipif(os.environ.get("WORKGYM_COMPOSE_TESTS") != "1",
                       reason="needs Docker: set WORKGYM_COMPOSE_TESTS=1 (.ci/run does)"),
]

ROOT = Path(__file__).resolve().parents[2]
TASKS = ("helpdesk/refund-standard", "tracker/start-work-on-bug")  # two suites, three apps
SEED = 5


def run(*command: str, cwd: Path = ROOT, timeout: float = 1800) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


def containers() -> set[str]:
    return set(run("docker", "ps", "-a", "-q").split())


@pytest.fixture(scope="module")
def harbor() -> Path:
    """Harbor's command (`make harbor`: idempotent), with this checkout's gym image tagged."""
    return Path(run("make", "-s", "harbor").strip().splitlines()[-1])


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two tasks at one seed, exported, in one directory (a Harbor dataset)."""
    out, staging = tmp_path_factory.mktemp("dataset"), tmp_path_factory.mktemp("staging")
    for task in TASKS:
        run(*workgym("export", "--format", "harbor", "--task", task, "--seeds", str(SEED),
                     "--out", str(staging / task)))
        for directory in (staging / task).iterdir():
            shutil.move(directory, out / directory.name)
    return out


def test_harbor_reads_the_exported_tasks_with_its_own_models(harbor: Path,
                                                              dataset: Path) -> None:
    checked = run(str(harbor.parent / "python"), "-c", """if True:
        import json, sys
        from harbor.models.task.task import Task
        print(json.dumps({Task(path).name: Task(path).config.metadata for path in sys.argv[1:]}))
        """, *map(str, sorted(dataset.iterdir())))
    names = json.loads(checked)
    assert {meta["workgym_task"] for meta in names.values()} == set(TASKS)
    assert all(name.startswith("workgym/") for name in names)


def test_harbors_oracle_scores_each_exported_task_one_through_docker(
        harbor: Path, dataset: Path, tmp_path: Path) -> None:
    before = containers()
    run(str(harbor), "run", "-p", str(dataset), "-a", "oracle", "-e", "docker",
        "-o", str(tmp_path), "--job-name", "oracle", "-n", "2", "-q", "-y", cwd=tmp_path)
    results = {}
    for trial in (tmp_path / "oracle").iterdir():
        if (trial / "result.json").exists() and trial.is_dir():
            result = json.loads((trial / "result.json").read_text())
            results[result["task_name"]] = result
            report = json.loads((trial / "verifier/report.json").read_text())
            assert report["seed"] == SEED and report["success"] is True, report
    assert sorted(results) == sorted(f"workgym/{task.replace('/', '.')}.seed{SEED}"
                                     for task in TASKS)
    for name, result in results.items():
        assert result["exception_info"] is None, (name, result["exception_info"])
        assert result["verifier_result"]["rewards"]["reward"] == 1.0, name
    assert containers() <= before  # Harbor removed the trials' containers
