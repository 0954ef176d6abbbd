"""``workgym serve --workers 2``: episodes live in the worker that created them; a request for
one that reaches the other worker is forwarded to it; a killed worker's episodes are lost
(503, never a hang) and the worker is started again."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import redis

from tests.refusals import refusal
from workgym import processes
from workgym.agents.reference import reference
from workgym.cli import main
from workgym.sdk import Env, operator_key
from workgym.tasks import catalogue
from workgym_core import redis_store
from workgym_core.settings import Settings

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
WORKER = re.compile(r"worker (\d+) \(pid (\d+)\): its replicas on 127\.0\.0\.1 ports (.+)")
CONNECTIONS = 32  # opened until both workers hold one (the kernel picks, not evenly)
WAIT_S = 60.0


@dataclass
class Served:
    url: str
    log: Path
    redis: redis.Redis


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("workers")
    redis_url = redis_store.serve_tcp(tmp, "127.0.0.1")  # read here: where episodes live
    log = tmp / "serve.log"
    env = {**os.environ, "REDIS_URL": redis_url}
    with processes.serving(["--workers", "2"], env=env, log=log) as url:
        yield Served(url, log, redis.Redis.from_url(redis_url, decode_responses=True))


class Pinned(httpx.BaseTransport):
    """Every request on ``target``'s one keep-alive connection (so on its worker)."""

    def __init__(self, target: httpx.HTTPTransport) -> None:
        self.target = target

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.target.handle_request(request)


def _connection() -> httpx.HTTPTransport:
    return httpx.HTTPTransport(limits=httpx.Limits(max_connections=1))


def _workers(served: Served) -> dict[int, int]:
    """Each running worker's replica ports -> its pid (the latest start of each worker)."""
    latest: dict[str, tuple[int, str]] = {}
    for index, pid, ports in WORKER.findall(served.log.read_text()):
        latest[index] = (int(pid), ports)
    return {int(port): pid for pid, ports in latest.values()
            for port in re.findall(r"\d+", ports)}


def _pid(served: Served, episode_id: str) -> int:
    """The pid of the worker holding the episode's helpdesk."""
    instance = json.loads(str(served.redis.hget(f"wg:ep:{episode_id}", "apps")))["helpdesk"]
    return _workers(served)[int(instance.rpartition(":")[2])]


def _env(served: Served, transport: httpx.BaseTransport) -> Env:
    return Env(httpx.Client(base_url=served.url, transport=transport, timeout=WAIT_S), TASK,
               seed=3, faults="none", api_key=operator_key())


@contextlib.contextmanager
def _one_per_worker(served: Served) -> Iterator[dict[int, httpx.HTTPTransport]]:
    """A kept-alive connection served by each worker (pid -> it) for the block: each found
    by the worker that an episode created on it was placed on."""
    found: dict[int, httpx.HTTPTransport] = {}
    with contextlib.ExitStack() as opened:
        for _ in range(CONNECTIONS):
            connection = opened.enter_context(_connection())
            env = _env(served, Pinned(connection))
            found.setdefault(_pid(served, env.reset().episode_id), connection)
            env.finish()
            if len(found) == 2:
                yield found
                return
        pytest.fail(f"{CONNECTIONS} connections all went to one worker")


def test_an_episode_created_on_one_worker_is_stepped_and_scored_through_the_other(
    served: Served,
) -> None:
    with _one_per_worker(served) as connections:
        (owner, here), (_, other) = connections.items()
        pin = Pinned(here)
        with _env(served, pin) as env:
            obs = env.reset()
            assert _pid(served, obs.episode_id) == owner
            pin.target = other  # every step and the finish reach the other worker: forwarded
            report = env.finish(answer=reference(env, catalogue().get(TASK)))
    assert report["reward"] == 1.0, report
    assert report["steps"] >= 1


def test_a_killed_workers_episodes_are_lost_not_hung_and_it_is_started_again(
    served: Served,
) -> None:
    with _one_per_worker(served) as connections:
        (victim, doomed), (_, survivor) = connections.items()
        pin = Pinned(doomed)
        env = _env(served, pin)
        obs = env.reset()
        os.kill(victim, signal.SIGKILL)
        pin.target = survivor
        started = time.monotonic()
        step = env.call("GET", "/api/v2/tickets")
        assert time.monotonic() - started < WAIT_S / 2
        assert step.status_code == 502 and refusal(step)["code"] == "episode_lost", step.text
        assert env.state()["status"] == "lost"
    deadline = time.monotonic() + WAIT_S  # the parent starts the worker again
    while victim in _workers(served).values() or len(set(_workers(served).values())) < 2:
        assert time.monotonic() < deadline, served.log.read_text()[-2000:]
        time.sleep(0.05)
    assert "exited (code -9): starting it again" in served.log.read_text()
    with _env(served, _connection()) as fresh:
        assert fresh.reset().episode_id != obs.episode_id
        assert fresh.call("GET", "/api/v2/tickets").status_code == 200


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["serve", "--workers", "0"], {}, "--workers: a whole number of processes >= 1, not '0'"),
    (["serve", "--workers", "two"], {}, "not 'two'"),
    (["serve"], {"WORKGYM_WORKERS": "0"}, "workers: Input should be greater than 0"),
    (["serve", "--role", "replica", "--app", "helpdesk", "--workers", "2"], {},
     "--role replica runs in one process"),
    (["serve", "--role", "telemetry", "--workers", "2"], {},
     "--role telemetry runs in one process"),
])
def test_a_bad_number_of_workers_is_refused_naming_it(
    argv: list[str], env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusal
        code = int(str(exc.code))
    assert code == 2
    assert message in capsys.readouterr().err


def test_an_empty_workers_setting_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compose passes WORKGYM_WORKERS= when .env leaves it unset: one worker per core."""
    monkeypatch.setenv("WORKGYM_WORKERS", "")
    assert Settings().workers is None
