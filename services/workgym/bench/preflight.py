"""Before a bench runs an episode: the server answers, takes the operator's key and has the
tasks (an in-process run needs no check), and a model's agent reaches its endpoint, which
serves the model. Each failure is one error naming what failed and what to check (the CLI
prints it on one line and exits 2), raised before the results file is created.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import httpx

from workgym_core import credentials
from workgym_core.errors import ConfigError, Unauthorized, UpstreamError

TIMEOUT_S = 10.0


def key_source() -> str:
    """Where the operator key a client uses comes from, to check it."""
    if os.environ.get("WORKGYM_API_KEY"):
        return "WORKGYM_API_KEY"
    return (f"{credentials.default_config_dir() / credentials.API_KEY_FILE} (or set "
            "WORKGYM_API_KEY)")


def check_server(url: str, api_key: str, tasks: Sequence[str]) -> None:
    """The WorkGym server at ``url`` lists its tasks to ``api_key`` and has ``tasks``."""
    where = f"the WorkGym server at {url}"
    try:
        response = httpx.get(f"{url.rstrip('/')}/v1/tasks", timeout=TIMEOUT_S,
                             headers={"authorization": f"Bearer {api_key}"})
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise UpstreamError(f"{where} is unreachable ({type(exc).__name__}: {exc}): check "
                            "--url and that `workgym serve` runs there",
                            code="server_unreachable") from None
    if response.status_code in (401, 403):
        raise Unauthorized(f"{where} refused the operator API key (HTTP "
                           f"{response.status_code}): check {key_source()}; it must be the "
                           "key that server runs with", code="invalid_api_key")
    try:
        served: Any = response.json() if response.status_code == 200 else None
        names = {t["id"] for t in served}
    except (ValueError, TypeError, KeyError):
        raise UpstreamError(f"{where} answered GET /v1/tasks with HTTP "
                            f"{response.status_code}, not a task list: check --url (a WorkGym "
                            "server's address)", code="server_unreachable") from None
    missing = [t for t in tasks if t not in names]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise ConfigError(f"{where} has no task {', '.join(missing[:3])}{more}: it serves "
                          "another catalogue; check --url and its WorkGym version")


def check_agent(agent: Any) -> None:
    """A model's agent reaches its endpoint and model (agents with a ``check``)."""
    check = getattr(agent, "check", None)
    if check is not None:
        check()
