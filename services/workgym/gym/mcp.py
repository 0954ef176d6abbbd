"""The MCP endpoint of episodes: ``/mcp`` of the gym API, streamable HTTP.

An MCP client reaches one episode with its bearer token, the same one the agent sends the
apps (``Authorization: Bearer <token>``, from ``POST /v1/episodes``); there are no MCP
sessions (stateless, JSON answers), so any number of gym instances serve it alike.

* **Where from:** before anything else, as the MCP specification asks of a server (DNS
  rebinding): a ``Host`` that is not this server's (loopback, the hosts of ``public_url``
  and ``proxy_url``, ``allowed_hosts``) and a browser's ``Origin`` not in
  ``mcp_allowed_origins`` are refused 403. A request without ``Origin`` is no browser's.
* **Who:** then the token is checked as the gym's own routes check it: none, a
  forged or rotated token or the operator's API key is a 401, an expired or deleted
  episode a 410. The body is a JSON-RPC error (what MCP clients raise) whose ``data`` is
  the gym's error object.
* **How many:** an episode holds at most ``mcp_streams_per_token`` ``GET /mcp`` event
  streams open at once in this process (there are no sessions: every POST is answered and
  closed); one more is a 429 with ``Retry-After``, and a stream that closes frees its slot.
* **tools/list:** the episode's tools, as ``POST /v1/episodes`` gave them, and ``finish``.
  The token refresh tool is not offered: it needs the refresh token, which an MCP client
  does not hold, and would retire the very token that names the episode here. A
  ``token_expiry`` fault is an answer the agent reads (``HTTP 401 ... token_expired``); the
  episode stays reachable here (the fault revokes the token at the proxy only), to finish.
* **tools/call:** the call is made as the agent, through the proxy with the episode's
  token, so steps, faults and the trajectory are those of a REST call: in-process when the
  proxy runs in this process, else over the network at the episode's app URL
  (``proxy_url``, else ``public_url``). The text the model reads is the session protocol's
  (:mod:`workgym.session`). Everything a model can get wrong (an unknown tool, arguments its
  schema does not take, an app's 4xx/5xx, a dropped connection, a call after ``finish``) is
  a tool result with ``is_error``, never a protocol error.
* **finish** ``{answer?}`` is ``POST /v1/episodes/{id}/finish`` with the episode's token,
  as an agent over REST: an acknowledgement, no verifier detail. The operator reads the
  report over REST.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import Counter
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import orjson
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.routing import Route

from workgym_core import credentials
from workgym_core.asgi import ASGIApp, Receive, Scope, Send, send_response
from workgym_core.errors import (
    EpisodeNotFound,
    Forbidden,
    InvalidRequest,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
    WorkGymError,
)
from workgym_core.registry import FINISHED, FINISHING, EpisodeRecord

from ..asgi_transport import DroppingASGITransport
from ..errors import UnknownName
from ..tools import (
    ENDED,
    FINISH,
    FINISH_TOOL,
    REFRESH_TOKEN,
    TASK_ENDED,
    outcome_said,
    refused,
    said,
    tool_app,
)
from .models import FinishRequest
from .service import EpisodeService

if TYPE_CHECKING:  # the MCP SDK (~0.6 s to import) is loaded by a server that serves /mcp
    import mcp_types as types
    from mcp.server.context import ServerRequestContext

log = logging.getLogger("workgym.gym.mcp")

PATH = "/mcp"
_EPISODE = "workgym.episode"  # scope key: (record, token) the gate found for the request
_TIMEOUT = httpx.Timeout(60.0, connect=5.0)  # as the SDK's: an app call may meet latency faults
_REFUSED = -32001  # JSON-RPC code of a request the gate refused (a server-defined error)
_FAILED = "The gym failed on this tool call; try again."
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
_STREAM_RETRY_S = 5  # Retry-After of a stream refused for the cap: slots free when streams close
REFRESH_REFUSED = (f"{REFRESH_TOKEN} is not offered over MCP: this connection's token is the "
                   "episode's. After a 401 token_expired the apps refuse it; finish the task.")


def _refusal_body(error: WorkGymError) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": _REFUSED, "message": error.message, "data": error.body()["error"]}})


def _result(outcome: dict[str, Any], status: int | None = None) -> types.CallToolResult:
    """The session protocol's ``{"text", "error", "finished"}`` as an MCP tool result."""
    import mcp_types as types

    structured: dict[str, Any] = {"finished": outcome["finished"]}
    if status is not None:
        structured["status"] = status
    return types.CallToolResult(content=[types.TextContent(type="text", text=outcome["text"])],
                                structured_content=structured, is_error=outcome["error"])


class EpisodeMCP:
    """The ``/mcp`` endpoint of one gym API app (see the module docstring)."""

    def __init__(self, service: EpisodeService, gym: ASGIApp) -> None:
        self.service = service
        self._gym_app = gym
        self._proxy_app: ASGIApp | None = None  # None: the proxy is reached over the network
        # While run() runs: the SDK's endpoint, and clients of this gym API (finish) and of
        # the proxy (app calls).
        self._asgi: ASGIApp | None = None
        self._gym: httpx.AsyncClient
        self._proxy: httpx.AsyncClient
        self._streams: Counter[str] = Counter()  # episode id -> its open GET /mcp streams

    @functools.cached_property
    def _hosts(self) -> frozenset[str]:
        """The names this server answers /mcp by (read on the first request)."""
        settings = self.service.settings
        return LOOPBACK | {host for url in (settings.public_url, settings.proxy_url)
                           if url and (host := urlsplit(url).hostname)} \
            | {h.lower() for h in settings.allowed_hosts}

    @property
    def route(self) -> Route:
        return Route(PATH, endpoint=self, methods=["GET", "POST", "DELETE"])

    def through(self, app: ASGIApp) -> None:
        """Reach the proxy in-process: ``app`` serves its ``/apps/`` paths."""
        self._proxy_app = app

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """What the gym API's lifespan runs: the MCP SDK's server and its session manager
        (whose task group runs the handlers), and the clients they call with."""
        from mcp.server.lowlevel import Server
        from mcp.server.streamable_http_manager import (
            StreamableHTTPASGIApp,
            StreamableHTTPSessionManager,
        )

        server = Server("workgym", version="0.1.0", on_list_tools=self._list_tools,
                        on_call_tool=self._call_tool)
        manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=True)
        proxy = (DroppingASGITransport(app=self._proxy_app) if self._proxy_app is not None
                 else None)
        async with manager.run(), \
                httpx.AsyncClient(transport=httpx.ASGITransport(app=self._gym_app),
                                  base_url="http://gym.local", timeout=_TIMEOUT) as self._gym, \
                httpx.AsyncClient(transport=proxy, timeout=_TIMEOUT, trust_env=False
                                  ) as self._proxy:
            self._asgi = StreamableHTTPASGIApp(manager)
            try:
                yield
            finally:
                self._asgi = None

    # -- the gate: the episode of the request's token, before MCP runs --------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self._asgi
        stream = scope["method"] == "GET"  # an event stream, held open until the client leaves
        try:
            if endpoint is None:
                raise ServiceUnavailable(
                    "the MCP endpoint is served by `workgym serve` (a server that runs its "
                    "lifespan), not by the in-process server of workgym.make",
                    code="mcp_unavailable")
            headers = Headers(scope=scope)
            self._check_origin(headers)
            token = credentials.bearer(headers.get("authorization"))
            record = await self._episode(token)
            if stream:
                self._open_stream(record.id)
        except WorkGymError as error:
            headers_out = [(b"content-type", b"application/json"),
                           *((k.encode(), v.encode()) for k, v in (error.headers or {}).items())]
            await send_response(send, error.status_code, _refusal_body(error), headers_out)
            return
        scope[_EPISODE] = (record, token)
        try:
            await endpoint(scope, receive, send)
        finally:
            if stream:
                self._streams[record.id] -= 1
                if self._streams[record.id] <= 0:
                    del self._streams[record.id]

    def _check_origin(self, headers: Headers) -> None:
        """403 for a Host that is not this server's or a browser Origin not allowed (the MCP
        specification's DNS-rebinding protection)."""
        host = headers.get("host", "")
        try:
            name = urlsplit(f"//{host}").hostname or ""
        except ValueError:  # a malformed Host (an unclosed '[')
            name = ""
        if "*" not in self._hosts and name not in self._hosts:
            raise Forbidden(f"Host {host[:100]!r} is not this server's: /mcp answers "
                            "loopback, its public_url's host and WORKGYM_ALLOWED_HOSTS",
                            code="host_not_allowed", field="host")
        origin = headers.get("origin")
        if origin is not None and origin not in self.service.settings.mcp_allowed_origins:
            raise Forbidden(f"Origin {origin[:100]!r} may not reach /mcp: browser origins are "
                            "refused unless listed in WORKGYM_MCP_ALLOWED_ORIGINS",
                            code="origin_not_allowed", field="origin")

    def _open_stream(self, episode_id: str) -> None:
        cap = self.service.settings.mcp_streams_per_token
        if self._streams[episode_id] >= cap:
            raise TooManyRequests(
                f"this episode already holds {cap} open GET /mcp streams (the most "
                "WORKGYM_MCP_STREAMS_PER_TOKEN allows); close one first",
                code="mcp_stream_quota", retry_after_s=_STREAM_RETRY_S)
        self._streams[episode_id] += 1

    async def _episode(self, token: str | None) -> EpisodeRecord:
        challenge = {"www-authenticate": "Bearer"}
        if token is None:
            raise Unauthorized("missing credential: send 'Authorization: Bearer <episode "
                               "token>' (the token POST /v1/episodes returned)",
                               code="missing_credential", headers=challenge)
        invalid = Unauthorized("invalid episode token: /mcp takes the token of a live episode "
                               "(the operator's API key is refused)",
                               code="invalid_token", headers=challenge)
        # As the gym's routes take it (an episode's refresh token too: the proxy refuses it).
        found = self.service.registry.tokens.parse(token)
        if found is None:
            raise invalid
        try:  # 410 for an episode that expired or was deleted: the error says which
            return await self.service.registry.authorize(found.episode_id, token)
        except EpisodeNotFound as error:  # a token that was rotated by a refresh
            raise invalid from error

    # -- MCP handlers ----------------------------------------------------------------------

    @staticmethod
    def _found(ctx: ServerRequestContext[Any, Any]) -> tuple[EpisodeRecord, str]:
        if ctx.request is None:  # a transport without HTTP: never the gym's
            raise RuntimeError("the gym's MCP server serves streamable HTTP only")
        found: tuple[EpisodeRecord, str] = ctx.request.scope[_EPISODE]  # set by the gate
        return found

    async def _list_tools(self, ctx: ServerRequestContext[Any, Any],
                          params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        import mcp_types as types

        record, _ = self._found(ctx)
        schemas = (await self.service.toolset(record.apps)).schemas
        tools = [types.Tool(name=f["name"], description=f["description"],
                            input_schema=f["parameters"])
                 for f in (s["function"] for s in [*schemas, FINISH_TOOL])
                 if f["name"] != REFRESH_TOKEN]
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, ctx: ServerRequestContext[Any, Any],
                         params: types.CallToolRequestParams) -> types.CallToolResult:
        """Never raises: whatever fails is a tool result the model reads."""
        try:
            record, token = self._found(ctx)
            arguments = params.arguments or {}
            if record.status in (FINISHED, FINISHING):
                return _result(said(ENDED, error=True, finished=True))
            if params.name == FINISH:
                return await self._finish(record, token, arguments)
            return await self._app_call(record, token, params.name, arguments)
        except Exception:
            log.exception("MCP tool call %s failed", params.name)
            return _result(said(_FAILED, error=True))

    async def _app_call(self, record: EpisodeRecord, token: str, name: str,
                        arguments: dict[str, Any]) -> types.CallToolResult:
        if name == REFRESH_TOKEN:
            return _result(said(REFRESH_REFUSED, error=True))
        try:  # the tool's app and operation as the SDK finds them (the same refusals)
            app = tool_app(name, record.apps)
            op = (await self.service.tools(app)).get(name)  # unknown tools, arguments refused
            method, path, query, body, headers = op.request(arguments)
        except (UnknownName, WorkGymError) as exc:
            return _result(refused(exc))
        settings = self.service.settings
        url = f"{(settings.proxy_url or settings.public_url).rstrip('/')}/apps/{app}{path}"
        try:
            response = await self._proxy.request(
                method, url, json=body, params=query or None,
                headers={**headers, "authorization": f"Bearer {token}"})
        except httpx.TransportError as exc:  # a dropped connection (the agent's would drop)
            outcome: dict[str, Any] = {"status": 0, "error": f"{type(exc).__name__}: {exc}"}
        else:
            try:
                payload: Any = orjson.loads(response.content)
            except orjson.JSONDecodeError:
                payload = response.text
            outcome = {"status": response.status_code, "body": payload}
        return _result(outcome_said(outcome), outcome["status"])

    async def _finish(self, record: EpisodeRecord, token: str,
                      arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            body = FinishRequest.model_validate(arguments)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "arguments"
            return _result(refused(InvalidRequest(
                f"tool {FINISH} argument '{field}': {first['msg']}", field=field)))
        response = await self._gym.post(
            f"/v1/episodes/{record.id}/finish", json=body.model_dump(exclude_none=True),
            headers={"authorization": f"Bearer {token}"})
        if response.is_success:
            return _result(said(TASK_ENDED, finished=True), response.status_code)
        return _result(outcome_said({"status": response.status_code,
                                     "body": orjson.loads(response.content)}),
                       response.status_code)
