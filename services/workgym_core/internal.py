"""How services talk to replicas: headers the proxy adds and the internal credential."""

from __future__ import annotations

import hmac
from urllib.parse import unquote

from starlette.datastructures import Headers

from .errors import Forbidden

INTERNAL_HEADER = "x-workgym-internal"
EPISODE_HEADER = "x-workgym-episode"
STEP_HEADER = "x-workgym-step"
# Proxy -> replica: the app's public base URL (<public_url>/apps/<app>), for the absolute
# links a product's API answers with (Zendesk's next_page, url). Never from a Host header.
BASE_HEADER = "x-workgym-base"
# Replica -> proxy: the rows a write changed (JSON); never reaches the agent.
CHANGES_HEADER = "x-workgym-changes"
# Replica -> proxy: what a write sent the world's people (JSON list of messages, e.g. the
# code an email change sends to the new address); the proxy delivers it to the episode's
# other apps (POST /_env/episodes/{id}/mail), whose actors read it: never reaches the agent.
MAIL_HEADER = "x-workgym-mail"
# Replica -> proxy: the route a request matched, {"route": template, "params": {...}}.
ROUTE_HEADER = "x-workgym-route"
# Replica -> proxy: the API operations a page's write performed or tried (JSON list of
# {"method", "route", "params", "body", "status"}): the trajectory's ``operations``.
OPERATIONS_HEADER = "x-workgym-operations"
# Replica -> proxy: the rule an error answer stands for, where the product's error body has
# no machine code (Jira's {"errorMessages", "errors"}): the trajectory's error_code.
ERROR_CODE_HEADER = "x-workgym-error-code"
# Proxy -> replica: answer the request as it would be answered, then undo it (a write's
# transaction rolled back, the world's actors not run): whether the app would accept a request
# that a fault is about to answer in its place (fault-proxy, faults/base.py).
VALIDATE_HEADER = "x-workgym-validate"
# On an episode's state from a replica: the key of the snapshot its initial state is (equal
# keys, equal initial states), which scoring caches by.
SNAPSHOT_HEADER = "x-workgym-snapshot"
INTERNAL_PREFIX = "/_env"
# Where the proxy serves agents: /apps/<app>/<path inside the app>.
APPS_PREFIX = "/apps/"


def require_internal(headers: Headers, secret: str) -> None:
    """Refuse any caller that does not hold the internal credential."""
    presented = headers.get(INTERNAL_HEADER, "")
    if not hmac.compare_digest(presented.encode(), secret.encode()):
        raise Forbidden("internal route: not reachable by agents", code="internal_only")


def escapes(rest: str) -> bool:
    """Whether a path inside an app could leave it: dot segments, internal routes or control
    characters, at any depth of percent-encoding (downstream URL libraries decode again).
    The proxy answers such a path 404; a tool call never builds one (workgym.tools)."""
    seen = rest
    for _ in range(4):
        decoded = unquote(seen)
        if decoded == seen:
            break
        seen = decoded
    seen = seen.replace("\\", "/")
    segments = seen.split("/")
    return ("." in segments or ".." in segments
            or any(ord(c) < 0x20 or ord(c) == 0x7F for c in seen)
            or ("/" + seen.lstrip("/")).startswith(INTERNAL_PREFIX))
