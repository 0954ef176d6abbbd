"""Roles: each service assembled alone by the same ``create_app``, and settings that cannot work."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from workgym.app import create_app
from workgym.runtime.errors import ConfigError
from workgym.runtime.settings import Settings
from workgym_proxy.upstream import AiohttpUpstream, HttpxUpstream, Split, make_upstream

REPLICA = {"helpdesk": "http://127.0.0.1:9/"}
REDIS = "redis://127.0.0.1:9/0"  # never dialled: these servers make no Redis call


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(data_dir=tmp_path, **{"internal_secret": "s", **overrides})


def _get(settings: Settings, *paths: str) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        server = create_app(settings)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url="http://t")
        try:
            return [await client.get(path) for path in paths]
        finally:
            await client.aclose()
            await server.aclose()

    return asyncio.run(run())


def test_a_replica_alone_serves_its_api_env_routes_and_openapi_at_the_root(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path, roles=frozenset({"replica:helpdesk"}))
    health, openapi, tickets = _get(settings, "/_env/health", "/openapi.json", "/tickets")
    assert health.json()["app"] == "helpdesk"
    assert openapi.json()["info"]["title"]
    assert tickets.status_code == 403  # the internal credential guards the API too
    server = create_app(settings)
    assert (server.gym, server.proxy, server.registry, list(server.replicas)) == (
        None, None, None, ["helpdesk"])
    asyncio.run(server.aclose())


def test_the_proxy_alone_answers_health_and_json_404s(tmp_path: Path) -> None:
    settings = _settings(tmp_path, roles=frozenset({"proxy"}), redis_url=REDIS)
    health, missing, unauthenticated = _get(settings, "/healthz", "/v1/episodes",
                                            "/apps/helpdesk/x")
    assert health.json() == {"status": "ok"}
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert unauthenticated.json()["error"]["code"] == "missing_token"


def test_the_gym_alone_places_episodes_on_replica_urls(tmp_path: Path) -> None:
    server = create_app(_settings(tmp_path, roles=frozenset({"gym"}), redis_url=REDIS,
                                  replica_urls=REPLICA))
    assert server.proxy is None and server.replicas == {}
    assert server.gym is not None
    assert server.gym.state.service.instances == REPLICA
    asyncio.run(server.aclose())


@pytest.mark.parametrize(("overrides", "message"), [
    ({"roles": frozenset({"replica:nope"})}, "no replica app"),
    ({"roles": frozenset({"gym"}), "redis_url": REDIS}, "needs WORKGYM_REPLICA_URLS"),
    ({"roles": frozenset({"proxy"})}, "set REDIS_URL"),
    ({"roles": frozenset({"gym"}), "replica_urls": REPLICA}, "set REDIS_URL"),
    ({"roles": frozenset({"proxy"}), "redis_url": REDIS, "internal_secret": None},
     "WORKGYM_INTERNAL_SECRET"),
    ({"replica_urls": REPLICA, "internal_secret": None}, "WORKGYM_INTERNAL_SECRET"),
])
def test_settings_that_cannot_work_fail_at_startup(
    tmp_path: Path, overrides: dict[str, Any], message: str
) -> None:
    if overrides.get("internal_secret", "") is None:
        overrides.pop("internal_secret")
        settings = Settings(data_dir=tmp_path, **overrides)  # a generated secret
    else:
        settings = _settings(tmp_path, **overrides)
    with pytest.raises(ConfigError, match=message):
        create_app(settings)


def test_unknown_roles_are_refused() -> None:
    with pytest.raises(ValueError, match="roles are"):
        Settings(roles=frozenset({"replica"}))


def test_in_process_replicas_keep_the_asgi_transport_and_others_use_the_network() -> None:
    http = httpx.AsyncClient()
    assert isinstance(make_upstream("httpx", http, ["http://helpdesk.replica"]), HttpxUpstream)
    assert isinstance(make_upstream("aiohttp", http, []), AiohttpUpstream)
    split = make_upstream("aiohttp", http, ["http://helpdesk.replica"])
    assert isinstance(split, Split)
    assert isinstance(split.local, HttpxUpstream) and isinstance(split.network, AiohttpUpstream)
    assert split.bases == ("http://helpdesk.replica",)
    asyncio.run(split.aclose())
