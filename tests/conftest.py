"""Fixtures shared by every test: factories over one in-process WorkGym server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from workgym.local import LocalServer
from workgym.processes import serving, workgym
from workgym.sdk import Env
from workgym_core.internal import INTERNAL_HEADER
from workgym_core.settings import Settings

# Debian's Chromium for the tests of pages: the `browser` fixture and marks; the test tiers
# (the per-task tests' sample, `--all-tasks`); pytest's own, to run pytest in a test.
pytest_plugins = ["tests.browser", "tests.tiers", "pytester"]

_CONFIG_DIRS: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """This machine's generated credentials (api-key, internal-secret) go to a directory of
    the test run's own, inherited by every process the tests start: never ~/.config."""
    if "WORKGYM_CONFIG_DIR" not in os.environ:
        _CONFIG_DIRS.append(tempfile.mkdtemp(prefix="workgym-config-"))
        os.environ["WORKGYM_CONFIG_DIR"] = _CONFIG_DIRS[-1]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The figures tests recorded (``record_property("figure", line)``: the conformance
    tests' schema-valid shares, coverage and client-suite pass rates), in one section at the
    end of the run: a test's report carries them from an xdist worker, where its output is
    not shown."""
    lines = [str(value) for reports in terminalreporter.stats.values() for report in reports
             for key, value in getattr(report, "user_properties", ()) if key == "figure"]
    if lines:
        terminalreporter.section("figures")
        for line in sorted(set(lines)):
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked slow first, each group in its order: under `-n`, the long ones start
    at once and the short ones fill in around them (collected last, the per-task tests and
    the fuzzers kept one worker busy minutes after the other had finished).

    And `--dist loadgroup` made to work: pytest-xdist 3.8 sends the tests of one
    ``xdist_group`` to one worker by renaming each to ``<node id>@<group>`` through
    ``Node._nodeid``, which pytest 9.2 no longer reads (a node's id is ``Node._id``): the
    compose tests, which share one stack, ran on both workers and tore it down under each
    other."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        groups = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                         for mark in item.iter_markers("xdist_group")})
        node_id = getattr(item, "_id", None)
        if groups and node_id is not None and not item.nodeid.endswith(f"@{'_'.join(groups)}"):
            item._id = type(node_id).parse(f"{item.nodeid}@{'_'.join(groups)}")


def pytest_unconfigure(config: pytest.Config) -> None:
    for path in _CONFIG_DIRS:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=tmp_path_factory.mktemp("workgym"), internal_secret="test-secret",
                    framework_apps=True)  # the framework's test app and its tasks too


@pytest.fixture(scope="session")
def local(settings: Settings) -> Iterator[LocalServer]:
    server = LocalServer(settings)
    yield server
    server.close()


def replica_post(local: LocalServer, url: str, body: object) -> tuple[int, object]:
    """POST JSON to a replica's internal route as the gym API does (status, parsed body)."""
    headers = [(INTERNAL_HEADER.encode(), local.server.settings.internal_secret.encode()),
               (b"content-type", b"application/json")]
    assert local.server.upstream is not None
    status, _, content = local.run(local.server.upstream.request(
        "POST", url, headers, json.dumps(body).encode()))
    return status, json.loads(content)


@pytest.fixture
def server(settings: Settings, tmp_path: Path) -> Iterator[Callable[..., LocalServer]]:
    """Factory: an in-process server with these settings overridden (its own API key, so its
    quotas are its own; the session's snapshots on disk); closed after the test."""
    made: list[LocalServer] = []

    def factory(**overrides: Any) -> LocalServer:
        made.append(LocalServer(settings.model_copy(update={
            "api_key": f"wgk_test_{len(made)}_{tmp_path.name}", **overrides})))
        return made[-1]

    yield factory
    for local in made:
        local.close()


@pytest.fixture
def make_env(local: LocalServer) -> Iterator[Callable[..., Env]]:
    """Factory: an in-process environment of a task; closed after the test."""
    made: list[Env] = []

    def factory(task: str, seed: int = 0, faults: str | list[dict[str, object]] = "task") -> Env:
        env = Env.inprocess(local, task, seed, faults)
        made.append(env)
        return env

    yield factory
    for env in made:
        if env.observation is not None:
            env.close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path


# A cross-app task (the checkout's refund, the helpdesk's ticket) and a fault-heavy one (the
# checkout's refund answer lost to a timeout_after).
TRACED_TASK = "helpdesk/refund-standard"
TRACED_FAULT_TASK = "checkout/refund-under-timeouts"
TRACED_SEED = 4


@dataclass(frozen=True)
class Recorded:
    """A real telemetry store on loopback and the episodes real runs traced into it."""

    url: str
    env: dict[str, str]
    episodes: dict[str, str]  # "reference" / "noop" / "fault" -> episode id
    api_key: str  # the operator's, which the store and the gym share (the config directory)

    @property
    def operator(self) -> dict[str, str]:
        """Headers that read the store as the operator."""
        return {"Authorization": f"Bearer {self.api_key}"}


def workgym_cli(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(workgym(*args), env=env, timeout=180,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    """Reference and noop episodes of one task and seed, and a reference episode of a
    fault-heavy task, run by `workgym run` with tracing on into a telemetry store."""
    tmp = tmp_path_factory.mktemp("traced")
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp / "gym"),
           "WORKGYM_TELEMETRY_DATA_DIR": str(tmp / "telemetry"),
           "OTEL_BSP_SCHEDULE_DELAY": "100"}
    runs = {"reference": (TRACED_TASK, "reference"), "noop": (TRACED_TASK, "noop"),
            "fault": (TRACED_FAULT_TASK, "reference")}
    with serving(["--role", "telemetry"], env=env) as url:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = env["WORKGYM_TELEMETRY_URL"] = url  # reports link
        episodes = {
            name: json.loads(workgym_cli("run", "--task", task, "--seed", str(TRACED_SEED),
                                         "--agent", agent, "--json", env=env))["episode_id"]
            for name, (task, agent) in runs.items()}
        done = Recorded(url=url, env=env, episodes=episodes, api_key=Settings().api_key)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # batch export: wait until all are finished
            if all(httpx.get(f"{url}/v1/episodes/{i}/timeline", headers=done.operator
                             ).json().get("finished") for i in episodes.values()):
                break
            time.sleep(0.2)
        yield done
