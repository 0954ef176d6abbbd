"""Before a bench runs an episode: the server answers, takes the operator's key, has the
tasks (an in-process run needs no check) and says which environment version it runs
(:func:`server_version`: a results file records the server's, never this client's); a
model's agent reaches its endpoint, which serves the model, as does the model playing the
customer (``--user``, in-process). Each failure is one error naming what failed and what to
check (the CLI prints it on one line and exits 2), raised before the results file is
created.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from workgym.errors import Refused, reaching, refusal
from workgym_core import chat
from workgym_core.errors import ConfigError

TIMEOUT_S = 10.0


def check_server(url: str, api_key: str, tasks: Sequence[str]) -> None:
    """The WorkGym server at ``url`` lists its tasks to ``api_key`` and has ``tasks``; else
    the SDK's one-line errors (:mod:`workgym.errors`)."""
    base = url.rstrip("/")
    with reaching("the WorkGym server", base, "check --url and that `workgym serve` runs there"):
        response = httpx.get(f"{base}/v1/tasks", timeout=TIMEOUT_S,
                             headers={"authorization": f"Bearer {api_key}"})
    if response.status_code != 200:
        raise refusal(response)
    try:
        served: Any = response.json()
        names = {t["id"] for t in served}
    except (ValueError, TypeError, KeyError):
        raise Refused(response.status_code, {
            "code": "not_a_workgym_server",
            "message": f"{base}/v1/tasks is not a task list: check --url (a WorkGym server's "
                       "address)"}) from None
    missing = [t for t in tasks if t not in names]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise ConfigError(f"the WorkGym server at {base} has no task {', '.join(missing[:3])}"
                          f"{more}: it serves another catalogue; check --url and its WorkGym "
                          "version")


def check_agent(agent: Any) -> None:
    """A model's agent reaches its endpoint and model (agents with a ``check``)."""
    check = getattr(agent, "check", None)
    if check is not None:
        check()


def server_version(url: str, api_key: str) -> dict[str, Any] | None:
    """The environment version the server at ``url`` runs (``GET /v1/version``: its
    :func:`workgym.envversion.current`), or None for a server too old to say."""
    base = url.rstrip("/")
    with reaching("the WorkGym server", base, "check --url and that `workgym serve` runs there"):
        response = httpx.get(f"{base}/v1/version", timeout=TIMEOUT_S,
                             headers={"authorization": f"Bearer {api_key}"})
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        raise refusal(response)
    version: dict[str, Any] = response.json()
    return version


def check_user(user: str | None) -> None:
    """The model playing the customer (``--user openai:MODEL``, in-process: this process's
    OPENAI_BASE_URL / OPENAI_API_KEY) is served by its endpoint."""
    if user is None:
        return
    made = chat.client("--user openai:MODEL")
    try:
        chat.check(made, user.partition(":")[2], "--user")
    finally:
        made.close()
