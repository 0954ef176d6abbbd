"""The telemetry store's errors, under WorkGym's exception root."""

from __future__ import annotations

from typing import Any

from workgym_core.errors import WorkGymError


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


CHALLENGE = {"www-authenticate": 'Bearer realm="workgym"'}
"""What every 401 answers with (RFC 9110): the credential goes in a Bearer header."""


class NotAuthenticated(TelemetryError):
    """The request does not carry the credential its route needs."""

    status_code = 401
    code = "unauthorized"

    def __init__(self, message: str, **kwargs: Any) -> None:
        super().__init__(message, headers=dict(CHALLENGE), **kwargs)


class LoginRequired(NotAuthenticated):
    """A page asked for without the operator's credentials: answered with the login page."""


class LinkExpired(TelemetryError):
    """A genuine signed link past the expiry it carries."""

    status_code = 410
    code = "link_expired"


class LinkExpiredPage(LinkExpired):
    """A page opened by an expired signed link: answered with the login page (410)."""
