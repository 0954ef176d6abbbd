"""The gym API's documented error responses: one error body, each status described once."""

from __future__ import annotations

from typing import Any

from workgym_core.error_docs import RETRY_AFTER as _RETRY_AFTER
from workgym_core.error_docs import ErrorBody

from .auth import AGENT_SCOPE

_STATUSES: dict[int, tuple[str, dict[str, Any]]] = {
    400: ("The request body could not be decoded (not UTF-8).", {}),
    401: ("No credential, or not one this call accepts (the operator's API key, or the "
          "episode's token where allowed).", {}),
    403: ("An operator call made with an episode's token (error.code 'operator_only', "
          f"error.rule '{AGENT_SCOPE}'): the token reaches its episode's apps, status and "
          "finish only.", {}),
    404: ("No such episode for this credential (unknown and other episodes' ids alike), "
          "task, app or fault.", {}),
    409: ("The episode is being finished, or accepts no more requests.", {}),
    410: ("The episode expired and was reclaimed.", {}),
    422: ("Invalid request: error.field names the field, error.rule the rule.", {}),
    429: ("A quota of this API key (live episodes, creation rate): wait Retry-After.",
          _RETRY_AFTER),
    502: ("The episode was lost (error.code 'episode_lost', with the reason), or its app's "
          "server failed.", {}),
    503: ("A dependency (the episode store, an app's server) is unavailable or at capacity: "
          "retry after Retry-After.", _RETRY_AFTER),
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI ``responses=`` for these statuses (each with the error body); 400 and 500,
    which any route can answer, are always included."""
    chosen = sorted({400, *statuses})
    found: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorBody, "description": _STATUSES[status][0],
                 **({"headers": _STATUSES[status][1]} if _STATUSES[status][1] else {})}
        for status in chosen}
    found[500] = {"model": ErrorBody, "description": "Internal error."}
    return found
