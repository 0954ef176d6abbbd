"""Roles: each service assembled alone by the same ``create_app``, and settings that cannot work."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.refusals import refusal
from workgym.app import create_app, health_only
from workgym_core.asgi import ASGIApp
from workgym_core.errors import ConfigError
from workgym_core.settings import Settings
from workgym_proxy.upstream import (
    AiohttpUpstream,
    AsgiUpstream,
    HttpxUpstream,
    NetworkClient,
    Split,
    WireUpstream,
    make_upstream,
)

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
    health, openapi, tickets = _get(settings, "/_env/health", "/openapi.json",
                                     "/api/v2/tickets")
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
    assert missing.status_code == 404 and refusal(missing)["code"] == "not_found"
    assert refusal(unauthenticated)["code"] == "missing_token"


def test_the_gym_alone_places_episodes_on_replica_urls(tmp_path: Path) -> None:
    server = create_app(_settings(tmp_path, roles=frozenset({"gym"}), redis_url=REDIS,
                                  replica_urls=REPLICA))
    assert server.proxy is None and server.replicas == {}
    assert server.gym is not None
    assert server.gym.state.service.placement.configured == REPLICA
    asyncio.run(server.aclose())


def test_a_gym_with_no_instance_of_an_app_starts_and_says_so_per_episode(
    tmp_path: Path,
) -> None:
    """Deploying from the catalogue: no URL to configure; an app none of whose instances has
    registered is a 503 naming it, never a crash at start-up."""
    settings = _settings(tmp_path, roles=frozenset({"gym", "proxy"}), replica_urls={})
    server = create_app(settings)

    async def create() -> httpx.Response:
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url="http://t")
        try:
            return await client.post(  # a task of the helpdesk alone
                "/v1/episodes", json={"task": "helpdesk/stale-contact-update"},
                headers={"authorization": f"Bearer {settings.api_key}"})
        finally:
            await client.aclose()
            await server.aclose()

    answer = asyncio.run(create())
    assert answer.status_code == 503, answer.text
    assert refusal(answer)["code"] in ("replica_unavailable", "app_unavailable")
    assert "helpdesk" in refusal(answer)["message"]


@pytest.mark.parametrize(("overrides", "message"), [
    ({"roles": frozenset({"replica:nope"})}, "no replica app"),
    ({"roles": frozenset({"proxy"})}, "set REDIS_URL"),
    ({"roles": frozenset({"gym"}), "replica_urls": REPLICA}, "set REDIS_URL"),
])
def test_settings_that_cannot_work_fail_at_startup(
    tmp_path: Path, overrides: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        create_app(_settings(tmp_path, **overrides))


def test_processes_on_one_machine_share_generated_credentials(tmp_path: Path) -> None:
    one, two = (Settings(config_dir=tmp_path / "config") for _ in range(2))
    assert one.internal_secret == two.internal_secret and one.api_key == two.api_key
    assert one.token_secret == two.token_secret
    assert one.api_key.startswith("wgk_") and one.api_key != one.internal_secret
    assert one.token_secret not in (one.internal_secret, one.api_key)  # never derived
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in (tmp_path / "config").iterdir()} == {
        "api-key": "0o600", "internal-secret": "0o600", "token-secret": "0o600"}
    assert not {"api_key", "internal_secret", "token_secret"} & one.model_fields_set


def test_unknown_roles_are_refused() -> None:
    with pytest.raises(ValueError, match="roles are"):
        Settings(roles=frozenset({"replica"}))


def test_in_process_replicas_are_called_directly_and_others_use_the_network() -> None:
    local: dict[str, ASGIApp] = {"http://helpdesk.replica": health_only}
    assert isinstance(make_upstream("httpx", {}), HttpxUpstream)
    assert isinstance(make_upstream("aiohttp", {}), AiohttpUpstream)
    assert isinstance(make_upstream("wire", {}), WireUpstream)
    client: NetworkClient
    for client, network in (("httpx", HttpxUpstream), ("aiohttp", AiohttpUpstream),
                            ("wire", WireUpstream)):
        split = make_upstream(client, local)
        assert isinstance(split, Split)
        assert isinstance(split.local, AsgiUpstream) and isinstance(split.network, network)
        assert split.bases == ("http://helpdesk.replica/",)
        status, _, body = asyncio.run(split.request("GET", "http://helpdesk.replica/healthz",
                                                    [], b""))
        assert (status, orjson.loads(body)) == (200, {"status": "ok"})
        asyncio.run(split.aclose())
