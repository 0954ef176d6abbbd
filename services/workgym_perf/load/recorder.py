"""Every request an agent sends, reported to locust under its route: an httpx transport, so the
SDK's own client (:class:`workgym.sdk.Env`) does the sending."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

import httpx
import orjson

from workgym.tools import ToolCatalogue
from workgym_core.errors import EpisodeLost, from_wire
from workgym_core.internal import APPS_PREFIX

if TYPE_CHECKING:  # importing locust monkey-patches the process with gevent
    from locust.event import EventHook


class Routes:
    """Names a request by its route, never by its ids
    (``/apps/helpdesk/api/v2/tickets/{ticket_id}``), from OpenAPI path templates:
    ``catalogues`` maps a path prefix (``""`` for the gym API, ``/apps/<app>`` for an app
    through the proxy) to the tools of the document served there."""

    def __init__(self, catalogues: dict[str, ToolCatalogue]) -> None:
        self._templates = {prefix: [(op.method, op.pattern, op.path) for op in catalogue]
                           for prefix, catalogue in catalogues.items()}

    # Paths served alike but undocumented: the tracker's /rest/api/2 and /latest are its
    # documented /rest/api/3 routes (replicas/tracker/routes/__init__.py).
    ALIASES = ((re.compile(r"^/rest/api/(2|latest)/"), "/rest/api/3/"),)

    def name(self, method: str, path: str) -> str:
        prefix = ""
        if path.startswith(APPS_PREFIX):
            prefix = APPS_PREFIX + path[len(APPS_PREFIX):].partition("/")[0]
        rest = path[len(prefix):]
        for alias, documented in self.ALIASES:
            if found := alias.match(rest):
                named = self.name(method, prefix + alias.sub(documented, rest, count=1))
                return named.replace(documented, found.group(0), 1)
        for op_method, pattern, template in self._templates.get(prefix, ()):
            if op_method == method and pattern.fullmatch(rest):
                return prefix + template
        return path


class Failed(Exception):
    """How locust lists a failed request: its status and error code (never ids, so that the
    failures of one kind are counted together)."""


def failure(path: str, response: httpx.Response) -> Failed | None:
    """Why the answer is a failure, or None. A replica's business refusal (a 4xx on an app
    route: 402, 403, 404, 409, 422, ...) is an answer an agent must expect; a 5xx, an episode
    lost, a refused credential (401) or any refusal by the gym API itself is not."""
    status = response.status_code
    if status < 400:
        return None
    try:
        body = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        body = None
    error = from_wire(status, body)
    if status >= 500 or status == 401 or isinstance(error, EpisodeLost) \
            or not path.startswith(APPS_PREFIX):
        code = error.code if isinstance(body, dict) and "error" in body else "(no JSON error)"
        return Failed(f"{status} {code}")
    return None


class Recorder(httpx.BaseTransport):
    """Sends each request over HTTP and fires locust's request event for it: its route, its
    time to the last byte of the answer, its size, and :func:`failure`. ``failures`` counts
    the failed requests (a dropped connection too)."""

    def __init__(self, request: EventHook, routes: Routes) -> None:
        self._http = httpx.HTTPTransport()
        self._request = request
        self._routes = routes
        self.failures = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        started = time.perf_counter()
        try:
            response = self._http.handle_request(request)
            response.read()
        except httpx.TransportError as exc:
            self._fire(request.method, path, started, 0, exc)
            raise
        self._fire(request.method, path, started, len(response.content), failure(path, response))
        return response

    def _fire(self, method: str, path: str, started: float, size: int,
              exception: Exception | None) -> None:
        self.failures += exception is not None
        self._request.fire(request_type=method, name=self._routes.name(method, path),
                           response_time=(time.perf_counter() - started) * 1e3,
                           response_length=size, exception=exception, context={})

    def close(self) -> None:
        self._http.close()

