"""Trajectories for training: real episodes traced into a real telemetry store, exported
as SFT, DPO and JSONL, and read back into the requests they came from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replicas.catalog import specs
from replicas.runtime.app import create_replica_app
from tests.conftest import TRACED_FAULT_TASK as FAULT_TASK
from tests.conftest import TRACED_SEED as SEED
from tests.conftest import TRACED_TASK as TASK
from tests.conftest import Recorded, workgym_cli
from tests.serving import dead_url
from workgym.cli import main
from workgym.export import TRACING, Exporter
from workgym.tasks import catalogue
from workgym.tasksets import Instance, TaskSet
from workgym.tools import ToolCatalogue
from workgym_core.settings import Settings


def _export(recorded: Recorded, fmt: str, out: Path) -> list[dict]:
    url, env = recorded.url, recorded.env
    workgym_cli("export", "--format", fmt, "--task", TASK, "--telemetry", url,
                "--out", str(out), env=env)
    return [json.loads(line) for line in out.read_text().splitlines()]


def _tools(app: str) -> ToolCatalogue:
    replica = create_replica_app(specs()[app], Settings(data_dir=Path("/tmp/unused")))
    return ToolCatalogue.from_openapi(app, replica.openapi())


def test_sft_round_trips_to_the_reference_requests(
    recorded: Recorded, tmp_path: Path
) -> None:
    records = _export(recorded, "sft", tmp_path / "sft.jsonl")
    assert len(records) == 1  # the successful episode only
    record = records[0]
    assert record["metadata"]["success"] is True and record["metadata"]["reward"] == 1.0
    messages = record["messages"]
    assert [m["role"] for m in messages[:2]] == ["system", "user"]
    instruction = messages[1]["content"]  # the episode's own, rendered
    assert "{{" not in instruction
    calls = [m["tool_calls"][0] for m in messages if m.get("tool_calls")]
    results = [m for m in messages if m["role"] == "tool"]
    assert len(calls) == len(results) == 6
    assert all(r["tool_call_id"] == c["id"] for c, r in zip(calls, results, strict=True))
    # The task's two apps: each call is a tool of the app it went to (its name's prefix).
    tools = {app: _tools(app) for app in ("checkout", "helpdesk")}
    apps = [c["function"]["name"].split("_", 1)[0] for c in calls]
    requests = [tools[app].get(c["function"]["name"]).request(
        json.loads(c["function"]["arguments"])) for app, c in zip(apps, calls, strict=True)]
    shapes = [(app, method, re.sub(r"/\d+(?=/|$)", "/{id}", path))  # ids, not /v1
              for app, (method, path, *_) in zip(apps, requests, strict=True)]
    assert shapes == [("helpdesk", "GET", "/api/v2/users/search"),
                      ("helpdesk", "GET", "/api/v2/search"),
                      ("checkout", "GET", "/store/orders"), ("checkout", "POST", "/v1/refunds"),
                      ("helpdesk", "PUT", "/api/v2/tickets/{id}"),
                      ("helpdesk", "PUT", "/api/v2/tickets/{id}")]
    assert requests[0][2]["query"] in instruction  # what the reference read from it
    refund = requests[3][3]  # the whole payment: its intent, no amount
    assert refund["payment_intent"].startswith("pi_") and "amount" not in refund
    assert json.loads(results[3]["content"])["status"] == 200
    assert json.loads(results[3]["content"])["body"]["object"] == "refund"
    assert {t["function"]["name"] for t in record["tools"]} >= {c["function"]["name"]
                                                               for c in calls}


def test_dpo_pairs_success_with_failure_of_the_same_seed(
    recorded: Recorded, tmp_path: Path
) -> None:
    (pair,) = _export(recorded, "dpo", tmp_path / "dpo.jsonl")
    assert pair["metadata"]["chosen"]["success"] is True
    assert pair["metadata"]["rejected"]["success"] is False
    assert pair["metadata"]["chosen"]["seed"] == pair["metadata"]["rejected"]["seed"] == SEED
    assert [m["role"] for m in pair["input"]["messages"]] == ["system", "user"]
    assert any(m.get("tool_calls") for m in pair["preferred_output"])
    assert pair["non_preferred_output"] == [{"role": "assistant", "content": "Done."}]


def test_jsonl_has_every_episode(recorded: Recorded, tmp_path: Path) -> None:
    records = _export(recorded, "jsonl", tmp_path / "all.jsonl")
    assert sorted(r["metadata"]["success"] for r in records) == [False, True]


def test_a_set_selects_its_instances_tasks_at_their_seeds(
        recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The store holds TASK and FAULT_TASK at SEED: a set naming TASK at SEED and FAULT_TASK
    at another seed exports TASK's episodes only; one at no recorded seed, none, and says so."""
    taskset = tmp_path / "set.json"
    TaskSet([Instance(TASK, SEED), Instance(FAULT_TASK, SEED + 1)]).save(taskset)
    out, store = str(tmp_path / "out.jsonl"), ["--telemetry", recorded.url]
    code, said = _export_said(["--format", "jsonl", "--set", str(taskset), "--out", out,
                               *store], capsys)
    assert code == 0 and said == [f"workgym: wrote 2 jsonl records to {out}"]
    records = [json.loads(line) for line in Path(out).read_text().splitlines()]
    assert sorted((r["metadata"]["task"], r["metadata"]["seed"], r["metadata"]["success"])
                  for r in records) == [(TASK, SEED, False), (TASK, SEED, True)]
    TaskSet([Instance(FAULT_TASK, SEED + 1)]).save(taskset)
    code, said = _export_said(["--format", "jsonl", "--set", str(taskset), "--out", out,
                               *store], capsys)
    assert code == 1 and said[-1] == (
        f"workgym: 1 episode(s) of set {taskset}'s tasks, none at its seeds: a set selects "
        "its instances' tasks at their seeds")


def _export_said(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["export", *args])
    return code, capsys.readouterr().err.splitlines()


def test_no_store_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = dead_url()
    code, said = _export_said(["--format", "jsonl", "--task", TASK, "--out",
                               str(tmp_path / "out.jsonl"), "--telemetry", url], capsys)
    assert code == 2 and len(said) == 1, said
    assert said[0].startswith(f"workgym: error: cannot reach the telemetry store at {url} (")
    assert "workgym serve --role telemetry" in said[0]


def test_nothing_to_export_says_why_and_exits_1(
        recorded: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WORKGYM_TRACING", "OTEL_EXPORTER_OTLP_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    out, store = str(tmp_path / "out.jsonl"), ["--telemetry", recorded.url]
    code, said = _export_said(["--format", "jsonl", "--task", "tracker/start-work-on-bug",
                               "--out", out, *store], capsys)
    assert code == 1 and said[0] == f"workgym: wrote 0 jsonl records to {out}"
    assert said[-1] == (
        f"workgym: no episodes of tracker/start-work-on-bug in the telemetry store at "
        f"{recorded.url}: episodes are recorded only by a process that runs them with tracing "
        f"on ({TRACING}; it is off here)")
    code, said = _export_said(["--format", "dpo", "--task", FAULT_TASK, "--out", out, *store],
                              capsys)
    assert code == 1 and said[-1] == (
        f"workgym: 1 episode(s) of {FAULT_TASK}, no task and seed with both a success and a "
        "failure: dpo pairs them (jsonl: every episode)")


@pytest.mark.parametrize(("seen", "fmt", "said"), [
    ({"listed": 2}, "jsonl", "2 episode(s) of T in the telemetry store at http://store, none "
     "finished: only finished episodes are exported"),
    ({"listed": 2, "finished": 1}, "jsonl", "none of the 1 finished episode(s) of T has a "
     "report signed by this gym's API key"),
    ({"listed": 2, "finished": 2, "exported": 2}, "sft", "2 episode(s) of T, none "
     "successful: sft keeps successful ones (jsonl: every episode)"),
])
def test_each_reason_for_nothing_is_said(seen: dict[str, int], fmt: str, said: str) -> None:
    exporter = Exporter("http://store/", catalogue(), {}, "key")
    exporter.seen.update(seen)
    assert exporter.nothing_found(fmt, "T", tracing=True) == said
