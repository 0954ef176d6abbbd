"""A shutdown always ends: background writers are asked to stop (a cancellation redis-py
swallows left them running, and `make bench` hung in LocalServer.close), and a part that
still does not close is named in one line, past its bound, instead of hanging."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from workgym import app, processes
from workgym.local import LocalServer
from workgym.placement import Heartbeat
from workgym_core.settings import Settings
from workgym_proxy.recorder import Recorder

# Each test's shutdown, once fixed, ends within a second: this bound only tells a hang apart.
HANG_S = 30.0


async def _swallowing_call(calls: list[int]) -> None:
    """A Redis call that, cancelled, raises a connection error instead (as redis-py could),
    so the cancellation is lost; otherwise answered after a short while."""
    calls.append(1)
    try:
        await asyncio.sleep(0.2)
    except asyncio.CancelledError:
        raise RedisConnectionError("Connection closed by server.") from None


class _SwallowingRedis:
    def __init__(self) -> None:
        self.calls: list[int] = []

    @asynccontextmanager
    async def pipeline(self, transaction: bool = True) -> AsyncIterator[Any]:
        calls = self.calls

        class Pipe:
            def zadd(self, *_: Any) -> None: ...
            def hset(self, *_: Any) -> None: ...
            async def execute(self) -> None:
                await _swallowing_call(calls)
        yield Pipe()

    async def zrem(self, *_: Any) -> None: ...
    async def hdel(self, *_: Any) -> None: ...
    async def aclose(self) -> None: ...


async def _ends(coro: Any) -> bool:
    done, _ = await asyncio.wait({asyncio.ensure_future(coro)}, timeout=HANG_S)
    return bool(done)


def _run(coro: Any) -> bool:
    """``coro`` on a loop of its own, left with whatever still runs when it returns
    (asyncio.run would wait for those tasks' cancellation: for ever, if it is swallowed)."""
    loop = asyncio.new_event_loop()
    try:
        return bool(loop.run_until_complete(coro))
    finally:
        loop.close()


def test_a_heartbeat_stops_while_a_beat_is_in_redis() -> None:
    async def run() -> bool:
        redis = _SwallowingRedis()
        beat = Heartbeat(redis, "helpdesk", "http://a:1", interval_s=0.001)  # type: ignore[arg-type]  # a fake
        await beat.start()
        while len(redis.calls) < 3:  # beating (each beat waits in Redis)
            await asyncio.sleep(0.01)
        return await _ends(beat.stop())

    assert _run(run())


def test_the_trajectory_writer_stops_while_a_write_is_in_redis() -> None:
    class Registry:
        calls: list[int] = []

        async def record_steps(self, steps: list[Any]) -> None:
            await _swallowing_call(self.calls)

    async def run() -> bool:
        registry = Registry()
        recorder = Recorder(registry, retry_s=0.0)  # type: ignore[arg-type]  # a fake
        recorder.put("ep", 0, b"{}", 0.0)
        while not registry.calls:  # the write is in Redis
            await asyncio.sleep(0.01)
        return await _ends(recorder.aclose())

    assert _run(run())


def test_a_part_that_does_not_close_is_named_and_the_close_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(app, "SHUTDOWN_WAIT_S", 1.0)
    local = LocalServer(Settings(data_dir=tmp_path))
    assert local.server.upstream is not None

    async def never() -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(local.server.upstream, "aclose", never)
    closing = threading.Thread(target=local.close, daemon=True)
    with caplog.at_level(logging.ERROR, logger="workgym"):
        closing.start()
        closing.join(HANG_S)
    assert not closing.is_alive()
    assert local.loop.is_closed()
    assert [r.getMessage() for r in caplog.records] == [
        "gave up after 1 s waiting on the connections to the replicas"]


def test_a_child_that_ignores_sigterm_is_killed_and_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(processes, "STOP_S", 1.0)
    log = tmp_path / "child.log"
    stubborn = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, "
                "signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"]
    with processes.running(stubborn, log=log) as child:
        while b"ready" not in log.read_bytes():  # SIGTERM ignored from here on
            assert child.poll() is None
            time.sleep(0.01)
    assert child.returncode == -signal.SIGKILL
    assert capsys.readouterr().err == (
        f"workgym: {' '.join(stubborn)} did not stop within 1 s of SIGTERM: killed\n")


def test_a_coroutines_own_timeout_is_not_taken_for_the_servers(server: Any) -> None:
    local = server()

    async def times_out() -> None:
        raise TimeoutError("the coroutine's own")

    with pytest.raises(TimeoutError, match="the coroutine's own"):
        local.run(times_out(), 60.0, "nothing")
