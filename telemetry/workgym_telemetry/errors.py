"""The telemetry store's errors, under WorkGym's exception root."""

from __future__ import annotations

from workgym.runtime.errors import WorkGymError


class TelemetryError(WorkGymError):
    """Root of every error the telemetry store raises."""

    status_code = 400
    code = "telemetry_error"


class MalformedPayload(TelemetryError):
    """An OTLP body that does not decode (bad protobuf, JSON, ids or compression)."""

    code = "malformed_payload"


class UnsupportedMediaType(TelemetryError):
    status_code = 415
    code = "unsupported_media_type"


class UnknownEpisode(TelemetryError):
    status_code = 404
    code = "unknown_episode"
