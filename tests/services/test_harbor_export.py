"""`workgym export --format harbor` (no Docker: the files, their determinism and the refusals)
and `workgym episode open/play/finish`, the commands a Harbor task's container runs, against
a server: the reference played on the opened episode scores 1.0. Harbor's own run of the
exported tasks is tests/compose/test_harbor.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import workgym
from workgym.envversion import current
from workgym.processes import serving
from workgym.processes import workgym as workgym_command
from workgym.tasks import catalogue

pytestmark = pytest.mark.slow  # each export seeds its tasks' worlds in a server of its own

TASKS = ("helpdesk/refund-standard", "tracker/start-work-on-bug")  # two suites, three apps
SEED = 3
ORG_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$")  # Harbor's


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(workgym_command(*args), capture_output=True, text=True, timeout=300,
                          env=env, check=False)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("home")
    return {**os.environ, "WORKGYM_DATA_DIR": str(home / "data"),
            "WORKGYM_CONFIG_DIR": str(home / "config")}


def export(out: Path, env: dict[str, str], *more: str) -> subprocess.CompletedProcess[str]:
    return run("export", "--format", "harbor", "--suite", "tracker", "--seeds", "0", "--out",
               str(out), *more, env=env)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    out = tmp_path_factory.mktemp("harbor")
    for task in TASKS:
        done = run("export", "--format", "harbor", "--task", task, "--seeds", str(SEED),
                   "--out", str(out / task.split("/")[0]), env=env)
        assert done.returncode == 0, done.stderr
    return out


def tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_task_at_a_seed_is_a_harbor_task_directory(exported: Path) -> None:
    for task in TASKS:
        directory = exported / task.split("/")[0] / f"{task.replace('/', '.')}.seed{SEED}"
        assert sorted(tree(directory)) == [
            "environment/Dockerfile", "environment/docker-compose.yaml",
            "environment/start.sh", "instruction.md",
            "solution/solve.sh", "task.toml", "tests/test.sh"]
        config = tomllib.loads((directory / "task.toml").read_text())
        assert ORG_NAME.match(config["task"]["name"])
        meta = catalogue().get(task)
        version = current()
        assert config["metadata"].pop("env_version") == {"id": version.id, **version.parts}
        assert config["metadata"] == {
            "workgym_task": task, "seed": SEED, "faults": "task", "suite": meta.suite,
            "apps": meta.apps, "difficulty": meta.difficulty, "tags": meta.tags,
            "max_steps": meta.max_steps}
        assert config["agent"]["timeout_sec"] > 0 and config["verifier"]["timeout_sec"] > 0
        with workgym.make(task, seed=SEED) as env:
            instruction = env.reset().instruction
        assert (directory / "instruction.md").read_text().startswith(instruction.strip())
        dockerfile = (directory / "environment/Dockerfile").read_text()
        assert "FROM workgym-gym:latest" in dockerfile
        assert f'WORKGYM_TASK="{task}" WORKGYM_SEED={SEED}' in dockerfile
        for script in ("environment/start.sh", "solution/solve.sh", "tests/test.sh"):
            assert os.access(directory / script, os.X_OK), script


def test_the_same_selection_is_the_same_bytes_and_out_is_never_overwritten_unasked(
        tmp_path: Path, env: dict[str, str]) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert export(first, env).returncode == 0
    assert export(second, env).returncode == 0
    assert tree(first) and tree(first) == tree(second)
    assert len({path.parts[0] for path in map(Path, tree(first))}) > 1  # the suite's tasks

    refused = export(first, env)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        f"workgym: error: --out {first} is not empty (--force replaces what it holds)")
    (first / "stray").write_text("x")
    assert export(first, env, "--force", "--image", "registry.example/workgym:1").returncode == 0
    assert not (first / "stray").exists()
    assert all(b"FROM registry.example/workgym:1\n" in text
               for name, text in tree(first).items() if name.endswith("Dockerfile"))


@pytest.mark.parametrize(("args", "error"), [
    (["--task", "helpdesk/nope"], "no task 'helpdesk/nope'"),
    (["--task", "helpdesk/refund-standard", "--seeds", "x"], "--seeds: invalid seed_list"),
])
def test_a_bad_selection_is_one_line_and_exit_2(tmp_path: Path, env: dict[str, str],
                                                args: list[str], error: str) -> None:
    done = run("export", "--format", "harbor", "--out", str(tmp_path / "out"), *args, env=env)
    assert done.returncode == 2
    assert error in done.stderr.strip().splitlines()[-1]  # after argparse's usage, if its
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[str]:
    with serving(env=env) as url:
        yield url


@pytest.mark.parametrize("task", TASKS)
def test_an_episode_opened_played_and_finished_a_command_each_scores_the_reference_one(
        tmp_path: Path, env: dict[str, str], server: str, task: str) -> None:
    episode, answer, report = tmp_path / "episode.json", tmp_path / "answer.txt", \
        tmp_path / "report.json"
    opened = run("episode", "open", "--task", task, "--seed", str(SEED), "--url", server,
                 "--wait", "30", "--out", str(episode), env=env)
    assert opened.returncode == 0, opened.stderr
    saved = json.loads(episode.read_text())
    assert saved["task"] == task and saved["seed"] == SEED and saved["token"]
    assert set(saved["apps"]) == set(catalogue().get(task).apps)
    played = run("episode", "play", str(episode), "--answer", str(answer), env=env)
    assert played.returncode == 0, played.stderr
    finished = run("episode", "finish", str(episode), "--answer", str(answer), "--report",
                   str(report), env=env)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout == "1.0\n"
    full = json.loads(report.read_text())
    assert full["reward"] == 1.0 and full["episode_id"] == saved["episode_id"]
    assert full["steps"] > 0 and all(a["passed"] for a in full["assertions"])


def test_finishing_without_an_episode_file_is_one_line_and_exit_2(
        tmp_path: Path, env: dict[str, str]) -> None:
    done = run("episode", "finish", str(tmp_path / "none.json"), env=env)
    assert done.returncode == 2
    assert done.stderr.startswith(f"workgym: error: no episode file at {tmp_path / 'none.json'}")
