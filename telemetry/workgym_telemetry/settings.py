"""The telemetry store's typed settings, read from WORKGYM_TELEMETRY_* variables; its
credentials are the deployment's own (WORKGYM_API_KEY, WORKGYM_INTERNAL_SECRET)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Self

from pydantic import Field, model_validator
from pydantic_settings import SettingsConfigDict

from workgym_core import credentials
from workgym_core.settings import ServerLimits


class TelemetrySettings(ServerLimits):
    model_config = SettingsConfigDict(env_prefix="WORKGYM_TELEMETRY_", extra="ignore")

    data_dir: Path = Field(
        Path(".workgym/telemetry"), description="Where the span store's SQLite file lives."
    )
    max_spans: int = Field(200_000, gt=0, description="Spans kept; the oldest go first.")
    max_points: int = Field(200_000, gt=0, description="Metric data points kept.")
    max_age_s: float = Field(
        7 * 86_400, gt=0, description="Seconds a span or data point is kept after it arrived."
    )
    prune_every: int = Field(
        1_000, gt=0, description="Rows written between two retention passes."
    )
    max_body_bytes: int = Field(
        32 * 1024 * 1024, gt=0,
        description="Largest OTLP request accepted, before and after decompression.",
    )
    config_dir: Path = Field(
        default_factory=credentials.default_config_dir, validation_alias="WORKGYM_CONFIG_DIR",
        description="Where this machine's generated credentials are kept (api-key, "
        "internal-secret), shared with every WorkGym process of the user.",
    )
    api_key: str = Field(
        "", validation_alias="WORKGYM_API_KEY",
        description="The operator's API key: reading episodes (API and pages) needs it. "
        "Unset: <config_dir>/api-key, created on first use.",
    )
    internal_secret: str = Field(
        "", validation_alias="WORKGYM_INTERNAL_SECRET",
        description="What WorkGym's services present to export spans and metrics "
        "(OTLP ingest). Unset: <config_dir>/internal-secret, created on first use.",
    )
    session_ttl_s: int = Field(
        12 * 3600, gt=0, description="Seconds a browser stays logged in to the pages."
    )

    @model_validator(mode="after")
    def _credentials(self) -> Self:
        credentials.complete(self)
        return self

    @cached_property
    def db_path(self) -> Path:
        return self.data_dir / "telemetry.sqlite"
