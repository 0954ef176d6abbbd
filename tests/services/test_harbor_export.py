"""`workgym export --format harbor` (no Docker: the files, their determinism and the refusals;
a task set's instances) and `workgym episode open/report/play/finish`, the commands a Harbor
task's containers run, against a server: the reference played on the opened episode with its
token alone scores 1.0, the report published by the operator's side. Harbor's own run of the
exported tasks, and what the agent's container cannot read, is tests/compose/test_harbor.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import workgym
from workgym.envversion import current
from workgym.errors import Refused
from workgym.processes import serving
from workgym.processes import workgym as workgym_command
from workgym.sdk import Observation, attach
from workgym.tasks import TASKS_DIR, catalogue
from workgym.tasksets import Instance, TaskSet

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
            "environment/Dockerfile", "environment/docker-compose.yaml", "instruction.md",
            "solution/solve.sh", f"solution/tasks/{task}.yaml", "task.toml", "tests/test.sh"]
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
        # The agent's container: the image without its task files; the gym's opens the episode.
        dockerfile = (directory / "environment/Dockerfile").read_text()
        assert "FROM workgym-gym:latest\n" in dockerfile
        assert "RUN rm -rf /app/tasks " in dockerfile
        compose = (directory / "environment/docker-compose.yaml").read_text()
        assert 'image: "workgym-gym:latest"' in compose
        assert f"episode open --task {task} --seed {SEED} --faults task" in compose
        # The oracle's alone: the task's own file, which its reference is read from.
        assert (directory / f"solution/tasks/{task}.yaml").read_bytes() == \
            (TASKS_DIR / f"{task}.yaml").read_bytes()
        for script in ("solution/solve.sh", "tests/test.sh"):
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
    assert all(b'image: "registry.example/workgym:1"\n' in text
               for name, text in tree(first).items() if name.endswith("docker-compose.yaml"))


def test_a_task_sets_instances_are_its_tasks_at_their_seeds_under_their_plans(
        tmp_path: Path, env: dict[str, str]) -> None:
    taskset = tmp_path / "set.json"
    TaskSet([Instance(TASKS[1], 2, weight=3), Instance(TASKS[1], 4, faults="none"),
             Instance(TASKS[0], 2)], name="mine").save(taskset)
    done = run("export", "--format", "harbor", "--set", str(taskset), "--out",
               str(tmp_path / "out"), env=env)
    assert done.returncode == 0, done.stderr
    written = {path.name: tomllib.loads((path / "task.toml").read_text())["metadata"]
               for path in (tmp_path / "out").iterdir()}
    assert {name: (meta["workgym_task"], meta["seed"], meta["faults"])
            for name, meta in written.items()} == {  # a weight is a trainer's: one each
        "tracker.start-work-on-bug.seed2": (TASKS[1], 2, "task"),
        "tracker.start-work-on-bug.seed4.none": (TASKS[1], 4, "none"),
        "helpdesk.refund-standard.seed2": (TASKS[0], 2, "task")}

    refused = run("export", "--format", "harbor", "--set", str(taskset), "--seeds", "1",
                  "--out", str(tmp_path / "again"), env=env)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        f"workgym: error: --set {taskset} names each instance's seed and fault plan: drop "
        "--seeds")


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


@pytest.fixture(scope="module")
def agent_env(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The agent's side: no API key given, none stored where it looks."""
    home = tmp_path_factory.mktemp("agent")
    given = {key: value for key, value in env.items() if key != "WORKGYM_API_KEY"}
    return {**given, "WORKGYM_CONFIG_DIR": str(home / "config")}


def open_episode(task: str, out: Path, server: str, env: dict[str, str]) -> dict[str, Any]:
    opened = run("episode", "open", "--task", task, "--seed", str(SEED), "--url", server,
                 "--wait", "30", "--out", str(out), env=env)
    assert opened.returncode == 0, opened.stderr
    saved: dict[str, Any] = json.loads(out.read_text())
    return saved


@pytest.mark.parametrize("task", TASKS)
def test_an_episode_played_and_finished_with_its_token_alone_scores_the_reference_one(
        tmp_path: Path, env: dict[str, str], agent_env: dict[str, str], server: str,
        task: str) -> None:
    episode, answer, report, published = (tmp_path / name for name in (
        "episode.json", "answer.txt", "report.json", "published.json"))
    saved = open_episode(task, episode, server, env)
    assert saved["task"] == task and saved["seed"] == SEED and saved["token"]
    assert set(saved["apps"]) == set(catalogue().get(task).apps)
    # The operator's side waits for the episode to end, then publishes its report.
    with subprocess.Popen(workgym_command("episode", "report", str(episode), "--out",
                                          str(published)), env=env, stderr=subprocess.PIPE,
                          text=True) as publisher:
        played = run("episode", "play", str(episode), "--answer", str(answer), env=agent_env)
        assert played.returncode == 0, played.stderr
        assert not published.exists()  # played, not finished
        finished = run("episode", "finish", str(episode), "--answer", str(answer),
                       "--published", str(published), "--report", str(report), env=agent_env)
        assert publisher.wait(timeout=60) == 0, publisher.stderr.read() if publisher.stderr \
            else ""
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout == "1.0\n"
    full = json.loads(report.read_text())
    assert full == json.loads(published.read_text())
    assert full["reward"] == 1.0 and full["episode_id"] == saved["episode_id"]
    assert full["steps"] > 0 and all(a["passed"] for a in full["assertions"])


def test_the_episodes_agent_is_refused_the_operators_calls_and_never_gets_the_report(
        tmp_path: Path, env: dict[str, str], agent_env: dict[str, str], server: str) -> None:
    saved = open_episode(TASKS[1], tmp_path / "episode.json", server, env)
    del saved["url"], saved["faults"]
    agent = attach(server, Observation(**saved), as_agent=True)
    try:
        assert set(agent.state()) >= {"status", "steps"} and "task" not in agent.state()
        with pytest.raises(Refused) as refused:
            agent.trajectory()
        assert refused.value.status_code == 403
        assert refused.value.error["code"] == "operator_only"
        assert agent.finish(answer="done") == {"episode_id": saved["episode_id"],
                                               "status": "finished", "steps": 0}
    finally:
        agent.detach()
    # Without a key, only --published finishes: a plain finish needs the operator's.
    done = run("episode", "finish", str(tmp_path / "episode.json"), env=agent_env)
    assert done.returncode == 2 and "no operator API key" in done.stderr


def test_finishing_without_an_episode_file_is_one_line_and_exit_2(
        tmp_path: Path, env: dict[str, str]) -> None:
    done = run("episode", "finish", str(tmp_path / "none.json"), env=env)
    assert done.returncode == 2
    assert done.stderr.startswith(f"workgym: error: no episode file at {tmp_path / 'none.json'}")
