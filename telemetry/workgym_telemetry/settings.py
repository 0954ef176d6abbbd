"""The telemetry store's typed settings, read from WORKGYM_TELEMETRY_* variables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TelemetrySettings(BaseSettings):
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

    @cached_property
    def db_path(self) -> Path:
        return self.data_dir / "telemetry.sqlite"
