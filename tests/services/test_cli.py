"""The command line, in fresh processes: determinism across processes, JSON output,
and the all-in-one server over a real socket."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from replicas.catalog import spec
from replicas.runtime import openapi_cache
from tests.imports import imported_after
from tests.serving import dead_url
from workgym.cli import main, parser
from workgym.cli.arguments import seed_list
from workgym.processes import serving, workgym
from workgym.sdk import connect

TASK = "helpdesk/refund-standard"  # a cross-app task: the checkout's refund, the helpdesk's ticket


def _workgym(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        workgym(*args), capture_output=True, text=True, timeout=120,
        env={**os.environ, "WORKGYM_DATA_DIR": str(data_dir)}, check=False,
    )


@pytest.mark.parametrize(("task", "agent", "faults"), [
    (TASK, "reference", "task"),
    (TASK, "random", "task"),
    (TASK, "reference", "hard"),
    ("helpdesk/fault-ticket-update-state-drift", "reference", "task"),
    ("checkout/refund-under-timeouts", "naive", "task"),
])
def test_same_task_seed_and_actions_same_state_faults_and_reward_in_fresh_processes(
    tmp_path: Path, task: str, agent: str, faults: str
) -> None:
    runs = [_workgym("run", "--task", task, "--seed", "3", "--agent", agent, "--faults", faults,
                     "--json", data_dir=tmp_path / str(i)) for i in range(2)]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    first, second = (json.loads(run.stdout) for run in runs)  # stdout is the JSON alone
    assert first["final_state_hash"] == second["final_state_hash"]
    assert first["reward"] == second["reward"]
    assert first["steps"] == second["steps"]
    assert first["faults"] == second["faults"]
    assert first["episode_id"] != second["episode_id"]
    if faults == "task" and task != TASK:
        assert first["faults"], "the task's plan injected no fault"


def test_tasks_lists_the_catalogue(tmp_path: Path) -> None:
    listing = json.loads(_workgym("tasks", "--json", data_dir=tmp_path).stdout)
    assert TASK in {task["id"] for task in listing}
    assert not any("verifier" in task for task in listing)


def test_unknown_task_is_a_clear_error(tmp_path: Path) -> None:
    run = _workgym("run", "--task", "helpdesk/nope", data_dir=tmp_path)
    assert run.returncode == 2
    assert "no task 'helpdesk/nope'" in run.stderr


def test_serve_speaks_http(tmp_path: Path) -> None:
    with serving(env={**os.environ, "WORKGYM_DATA_DIR": str(tmp_path)}) as url:
        with connect(url, TASK, seed=2) as env:
            obs = env.reset()
            assert obs.apps["helpdesk"] == f"{url}/apps/helpdesk"
            listed = env.call_tool("helpdesk_search", {"query": "type:ticket status:open",
                                                       "per_page": 3})
            assert listed["status"] == 200 and len(listed["body"]["results"]) == 3
            report = env.finish()
        assert report["steps"] == 1 and report["success"] is False


def test_prebuild_writes_each_seeds_pristine_snapshot_and_the_openapi_document(
        tmp_path: Path) -> None:
    run = _workgym("prebuild", "helpdesk", "--seeds", "0,2-3", data_dir=tmp_path)
    assert run.returncode == 0, run.stderr
    built = sorted(p.name for p in (tmp_path / "snapshots").glob("helpdesk-*.sqlite"))
    assert [name.rsplit("-seed", 1)[1] for name in built] == ["0.sqlite", "2.sqlite", "3.sqlite"]
    document = openapi_cache.read(tmp_path, "helpdesk")
    assert document is not None and document["info"]["title"] == spec("helpdesk").title


def test_prebuild_names_the_apps_when_one_is_unknown(tmp_path: Path) -> None:
    run = _workgym("prebuild", "nope", "--seeds", "0", data_dir=tmp_path)
    assert run.returncode == 2
    assert "no replica app 'nope'" in run.stderr and "helpdesk" in run.stderr


def test_the_cli_parses_a_serve_command_without_reading_the_catalogue_or_fault_presets() -> None:
    assert imported_after("from workgym.cli import parser; "
                          "parser().parse_args(['serve', '--role', 'proxy'])",
                          "workgym_proxy", "replicas", "workgym.presets", "pydantic", "yaml") == []


def test_the_telemetry_server_loads_no_redis_or_http_client() -> None:
    assert imported_after("import workgym.cli, workgym.http_server, workgym_telemetry.app",
                          "redis", "httpx", "requests") == []


def test_seeds_are_ranges_and_lists() -> None:
    assert seed_list("0-3") == [0, 1, 2, 3]
    assert seed_list("0,3,7-9") == [0, 3, 7, 8, 9]


def test_ray_up_takes_replica_counts_per_app(capsys: pytest.CaptureFixture[str]) -> None:
    args = parser().parse_args(["ray", "up", "--replicas", "helpdesk=4", "--replicas", "notes=0"])
    assert args.replicas == [("helpdesk", 4), ("notes", 0)] and args.address == "auto"
    with pytest.raises(SystemExit):
        parser().parse_args(["ray", "up", "--replicas", "helpdesk"])
    assert "expected APP=COUNT" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--role", "telemetry", "--role", "gym"],
                                  ["--role", "telemetry", "--app", "helpdesk"]])
def test_the_telemetry_role_runs_alone(tmp_path: Path, args: list[str]) -> None:
    run = _workgym("serve", *args, data_dir=tmp_path)
    assert run.returncode == 2
    assert "--role telemetry runs alone" in run.stderr


def test_run_against_a_dead_server_is_one_line_and_exit_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKGYM_API_KEY", "any")
    url = dead_url()
    assert main(["run", "--task", TASK, "--url", url]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"workgym: error: cannot reach the WorkGym server at {url} (")
    assert "`workgym serve`" in said and said.count("\n") == 1


@pytest.mark.parametrize("args", [["tasks"], ["tasks", "--json"]])
def test_a_reader_that_stops_early_gets_no_traceback(args: list[str]) -> None:
    """`workgym tasks | head -1`: the reader is gone before the command writes."""
    with subprocess.Popen(workgym(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        said = process.stderr.read()
    assert (process.returncode, said) == (141, ""), said


def test_tasks_columns_line_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    columns = {tuple(m.end(gap) for gap in (2, 4))
               for m in (re.match(r"(\S+)( +)(\S+)( +)", line) for line in lines) if m}
    assert len(columns) == 1 and len(lines) > 10, columns  # every row: the same two offsets
    ids = [line.split()[0] for line in lines]
    assert min(columns)[0] == max(map(len, ids)) + 2  # as wide as the longest id, no wider
