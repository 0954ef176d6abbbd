"""Harbor (PyPI's `harbor`, unchanged, in a Python 3.13 venv of its own: `make harbor`) runs
its oracle agent on tasks `workgym export --format harbor` wrote, through docker compose: each
scores 1.0. Harbor's own models accept the exported task directories. A task's environment
brought up as Harbor merges it (its base compose file, then the task's): from the agent's
container, no task file and no API key can be read, Redis cannot be reached, and the gym
refuses the episode's token its operator's calls.

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


def run(*command: str, cwd: Path = ROOT, timeout: float = 1800,
        env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, env=env)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done.stdout


def containers() -> set[str]:
    return set(run("docker", "ps", "-a", "-q").split())


def volumes() -> set[str]:
    return set(run("docker", "volume", "ls", "-q").split())


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
    before, kept = containers(), volumes()
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
    assert containers() <= before and volumes() <= kept  # Harbor removed the trials'


# Run in the agent's container: what it finds of the task files, the key, Redis and the gym.
PROBE = """if True:
    import json, socket, subprocess, httpx
    from workgym.tasks import catalogue
    from workgym_core.credentials import find_api_key
    found = subprocess.run(
        ["find", "/", "(", "-path", "/proc", "-o", "-path", "/sys", "-o", "-path", "/dev", ")",
         "-prune", "-o", "(", "-path", "*/tasks/*/*.yaml", "-o", "-name", "catalogue.*.marshal",
         ")", "-print"], capture_output=True, text=True).stdout.split()
    episode = json.load(open("/workgym/episode/episode.json"))
    token = {"authorization": "Bearer " + episode["token"]}
    mine = "/v1/episodes/" + episode["episode_id"]
    calls = {name: httpx.request(method, episode["url"] + path, headers=token,
                                 json=body).status_code
             for name, method, path, body in [
                 ("tasks", "GET", "/v1/tasks", None),
                 ("create", "POST", "/v1/episodes", {"task": episode["task"], "seed": 0}),
                 ("trajectory", "GET", mine + "/trajectory", None),
                 ("status", "GET", mine, None)]}
    try:
        socket.create_connection(("redis", 6379), timeout=5).close()
        redis = "reached"
    except OSError as exc:
        redis = type(exc).__name__
    print(json.dumps({"task_files": found, "catalogue": len(catalogue()),
                      "api_key": find_api_key(), "calls": calls, "redis": redis}))
"""


def test_the_agents_container_reads_no_task_file_nor_key_and_is_refused_operator_calls(
        harbor: Path, dataset: Path) -> None:
    docker_dir = run(str(harbor.parent / "python"), "-c", "import harbor.environments.docker "
                     "as d, os; print(os.path.dirname(d.__file__))").strip()
    task = dataset / f"{TASKS[0].replace('/', '.')}.seed{SEED}"
    environment = task / "environment"
    project = f"workgym-harbor-probe-{os.getpid()}"
    compose = ["docker", "compose", "-p", project, "--project-directory", str(environment),
               "-f", f"{docker_dir}/docker-compose-build.yaml",  # Harbor's own, then the task's
               "-f", str(environment / "docker-compose.yaml")]
    env = {**os.environ, "CONTEXT_DIR": str(environment), "MAIN_IMAGE_NAME": f"{project}-main"}
    before, kept = containers(), volumes()
    try:
        run(*compose, "up", "--detach", "--wait", env=env, timeout=600)
        main, gym = (run(*compose, "ps", "-q", service, env=env).strip()
                     for service in ("main", "gym"))
        key = run("docker", "exec", gym, "cat", "/root/.config/workgym/api-key").strip()
        assert len(key) >= 32  # the gym's: generated in its container
        seen = json.loads(run("docker", "exec", main, "python", "-c", PROBE))
        grep = subprocess.run(  # every file but the kernel's (/proc, /sys) and devices
            ["docker", "exec", main, "sh", "-c", 'grep -rlsF "$0" $(ls -d /* | grep -vxE '
             '"/(proc|sys|dev)")', key], capture_output=True, text=True, timeout=600,
            check=False)
        environ = run("docker", "exec", main, "env")
    finally:
        run(*compose, "down", "--rmi", "local", "--volumes", "--remove-orphans", env=env)
    assert seen["task_files"] == [] and seen["catalogue"] == 0
    assert seen["api_key"] is None
    assert (grep.returncode, grep.stdout) == (1, "")  # 1: no file holds it
    assert key not in environ
    assert seen["redis"] == "gaierror"  # not on the agent's network
    # The token reaches its episode's status; the operator's calls are refused it.
    assert seen["calls"] == {"tasks": 403, "create": 403, "trajectory": 403, "status": 200}
    assert containers() <= before and volumes() <= kept
