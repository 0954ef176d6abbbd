"""The gym's MCP endpoint (workgym.gym.mcp), on the wire: real servers on loopback ports and
the official ``mcp`` client. An episode reached by its bearer token lists its tools and
``finish``, runs calls as its agent through the proxy (errors are tool results), finishes as
its agent does over REST, and scores as the same calls over REST do; all in one process,
and with the gym API alone, reaching the proxy over the network."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import httpx2
import orjson
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from workgym.app import create_app
from workgym.gym.mcp import REFRESH_REFUSED
from workgym.sdk import Env, connect
from workgym.session import Session
from workgym.tools import ENDED, REFRESH_TOKEN, TASK_ENDED
from workgym_core import redis_store
from workgym_core.settings import Settings

from ..serving import serving_app

TASK = "tracker/start-work-on-bug"
PAYMENTS = "checkout/cancel-unshipped-order"
SEED = 3
ANSWER = "I started work on the bug and assigned it to myself."

# (tool, arguments, what the model is told): calls refused before they reach an app, and
# one an app refuses (a step: it costs the reward its efficiency share).
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("no_such_tool", {}, "unknown tool 'no_such_tool': this episode has tracker_*"),
    ("tracker_no_such_tool", {}, "unknown tool 'tracker_no_such_tool': app tracker has "
     "tracker_"),
    ("tracker_get_issue", {"wrong": 1}, "tool tracker_get_issue has no argument 'wrong'"),
]
NOT_FOUND = ("tracker_get_issue", {"issue": "NOPE-1"}, "HTTP 404\n")


def _served(settings: Settings) -> contextlib.AbstractContextManager[str]:
    """``create_app(settings)`` served on loopback (its lifespan on); ``public_url`` "{url}"
    is this server's own."""
    return serving_app(lambda url: create_app(settings.model_copy(update={"public_url": url}))
                   if settings.public_url == "{url}" else create_app(settings))


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings every server of these tests shares: one Redis (the embedded one, by its
    socket, so that split roles share it), the internal secret, an API key of their own."""
    data = tmp_path_factory.mktemp("mcp")
    base = Settings(data_dir=data, internal_secret="test-secret", api_key="wgk_test_mcp")
    yield base.model_copy(update={
        "redis_url": f"unix://{redis_store.embedded_socket(base.redis_dir)}"})


@pytest.fixture(scope="module")
def gym(deployment: Settings) -> Iterator[str]:
    """The all-in-one server: gym API, proxy and replicas in one process."""
    with _served(deployment.model_copy(update={"public_url": "{url}"})) as url:
        yield url


MakeEnv = Callable[..., Env]


@pytest.fixture
def make_env(deployment: Settings) -> Iterator[MakeEnv]:
    """Factory: an episode of ``task`` and SEED on the server at ``url``, reset, driven by the
    operator over REST; closed after the test."""
    made: list[Env] = []

    def factory(url: str, faults: str | list[dict[str, Any]] = "none", task: str = TASK) -> Env:
        made.append(connect(url, task, SEED, faults=faults, api_key=deployment.api_key))
        made[-1].reset()
        return made[-1]

    yield factory
    for env in made:
        env.close()


def _mcp(url: str, token: str | None) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"} if token else {},
                              timeout=30)


def _said(result: Any) -> tuple[bool, str]:
    return bool(result.is_error), result.content[0].text


def _answer(said: str) -> tuple[str, Any]:
    """(``HTTP <status>``, the JSON body) of what the model read of an app's answer."""
    status, _, body = said.partition("\n")
    return status, orjson.loads(body)


def _json(said: str) -> Any:
    status, body = _answer(said)
    assert status == "HTTP 200", said
    return body


Call = tuple[str, dict[str, Any]]


async def _solve_over_mcp(url: str, token: str, instruction: str, expected_tools: list[str],
                          mistakes: list[tuple[str, dict[str, Any], str]]
                          ) -> list[tuple[Call, tuple[bool, str]]]:
    """List the tools, make each mistake, solve the task; each call before ``finish`` and
    what the model read of it. Then finish, and check that the episode has ended."""
    key = re.match(r"Bug ([A-Z]+-\d+)", instruction)
    assert key is not None
    issue = key.group(1)
    made: list[tuple[Call, tuple[bool, str]]] = []
    async with _mcp(url, token) as http, \
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert [t.name for t in tools] == expected_tools
        assert tools[-1].input_schema["properties"]["answer"]["type"] == "string"

        async def call(name: str, arguments: dict[str, Any]) -> str:
            result = await session.call_tool(name, arguments)
            made.append(((name, arguments), _said(result)))
            return _said(result)[1]

        for name, arguments, told in mistakes:
            error, text = _said(await session.call_tool(name, arguments))
            assert error is True and text.startswith(told), text  # a result, readable
            made.append(((name, arguments), (error, text)))
        me = _json(await call("tracker_get_myself", {}))["accountId"]
        transitions = _json(await call("tracker_get_transitions", {"issue": issue}))
        start = next(t["id"] for t in transitions["transitions"] if t["name"] == "Start progress")
        await call("tracker_do_transition", {"issue": issue, "body": {"transition": {"id": start}}})
        await call("tracker_assign_issue", {"issue": issue, "body": {"accountId": me}})

        ended = await session.call_tool("finish", {"answer": ANSWER})
        assert _said(ended) == (False, TASK_ENDED)
        assert ended.structured_content == {"finished": True, "status": 200}
        for name, arguments in [("tracker_get_myself", {}), ("finish", {})]:
            assert _said(await session.call_tool(name, arguments)) == (True, ENDED)
    return made


def _tools_of(env: Env) -> list[str]:
    assert env.observation is not None
    return [t["function"]["name"] for t in env.observation.tools
            if t["function"]["name"] != REFRESH_TOKEN] + ["finish"]


def test_an_episode_over_mcp_solves_its_task_and_scores_as_the_same_calls_over_rest(
        gym: str, make_env: MakeEnv) -> None:
    env = make_env(gym)
    assert env.observation is not None
    made = asyncio.run(_solve_over_mcp(gym, env.observation.token,
                                       env.observation.instruction, _tools_of(env), REFUSED))
    assert [said for _, said in made[-2:]] == [(False, "HTTP 204\n")] * 2  # transition, assign

    view = env.state()  # the operator reads the report over REST
    report = view["report"]
    assert view["status"] == "finished" and report["reward"] == 1.0, report
    assert report["answer"] == ANSWER

    # The same calls over REST (the SDK's tool calls, read through the session protocol) on
    # another episode of the task and seed: the same text, state and reward.
    twin = make_env(gym)
    session = Session.attach(twin)
    for (name, arguments), (error, text) in made:
        said = session.call_tool(name, arguments)
        assert (said["text"], said["error"], said["finished"]) == (text, error, False)
    rest = twin.finish(ANSWER)
    assert (rest["final_state_hash"], rest["reward"], rest["steps"]) == (
        report["final_state_hash"], 1.0, report["steps"])
    assert report["steps"] == len(made) - len(REFUSED)  # the refused calls never reached an app


def test_an_apps_refusal_a_dropped_connection_and_an_expired_token_are_tool_results(
        gym: str, make_env: MakeEnv) -> None:
    # Windows count the requests the app accepts: the lookup of a missing issue is none.
    env = make_env(gym, [{"kind": "connection_reset", "window": {"start": 1, "end": 1}},
                         {"kind": "token_expiry", "window": {"start": 2, "end": 2}}])
    assert env.observation is not None
    obs = env.observation

    async def run() -> list[tuple[bool, str]]:
        async with _mcp(gym, obs.token) as http, \
                streamable_http_client(f"{gym}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            said = [_said(await session.call_tool(name, arguments)) for name, arguments in [
                ("tracker_get_myself", {}), NOT_FOUND[:2], ("tracker_get_myself", {}),
                ("tracker_get_myself", {}), (REFRESH_TOKEN, {})]]
            # The episode stays reachable by its token: its tools, and finish.
            assert len((await session.list_tools()).tools) == len(_tools_of(env))
            said.append(_said(await session.call_tool("finish", {})))
            return said

    dropped, missing, expired, still, refresh, ended = asyncio.run(run())
    assert dropped == (True, "HTTP 0\nRemoteProtocolError: connection reset by peer")
    assert missing[0] is True and missing[1].startswith(NOT_FOUND[2])
    assert "Issue does not exist" in missing[1]
    for error, text in (expired, still):  # revoked at the proxy until a refresh
        assert error is True and text.startswith("HTTP 401\n") and "token has expired" in text
    assert refresh == (True, REFRESH_REFUSED)  # not offered: the token names the episode
    assert ended == (False, TASK_ENDED)
    report = env.state()["report"]
    assert report["steps"] == 4 and report["reward"] == 0.0, report


def _initialize(url: str, token: str | None, **headers: str) -> httpx.Response:
    """A bare POST /mcp (an initialize) with this token (and these headers)."""
    return httpx.post(f"{url}/mcp", headers={
        **headers, **({"authorization": f"Bearer {token}"} if token else {}),
        "accept": "application/json, text/event-stream"}, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}})


def test_a_tool_call_reaches_exactly_its_operation_and_is_a_step(
        gym: str, make_env: MakeEnv) -> None:
    """A path argument is one segment: '?' and '#' in it are part of the id the app looks up
    (its own 404, a step), never a query or a fragment; what would leave the operation
    ('/', dot segments, even percent-encoded) and arguments outside the schema are refusals
    naming the argument, before any request."""
    env = make_env(gym, task=PAYMENTS)
    assert env.observation is not None
    obs = env.observation
    retrieve = "checkout_retrieve_customer"

    async def run() -> list[tuple[bool, str]]:
        async with _mcp(gym, obs.token) as http, \
                streamable_http_client(f"{gym}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = _json(_said(await session.call_tool("checkout_list_customers",
                                                         {"limit": 1}))[1])
            customer = listed["data"][0]["id"]
            return [_said(await session.call_tool(retrieve, arguments)) for arguments in [
                {"customer": customer}, {"customer": f"{customer}?expand[]=x"},
                {"customer": f"{customer}#x"}, {"customer": "../../../../v1/tasks"},
                {"customer": "%2e%2e"}, {"customer": 7}, {"customer": customer, "limit": 1}]]

    found, query, fragment, *refused = asyncio.run(run())
    assert found[0] is False
    customer = _json(found[1])["id"]
    for (error, text), sent in ((query, f"{customer}?expand[]=x"), (fragment, f"{customer}#x")):
        status, body = _answer(text)
        assert error is True and status == "HTTP 404", text
        # Stripe's own answer, about that very id.
        assert body["error"]["code"] == "resource_missing" and sent in body["error"]["message"]
    (_, up), (_, dots), (_, typed), (_, unknown) = refused
    assert all(error for error, _ in refused)
    assert up.startswith(f"tool {retrieve} argument 'customer' is one path segment")
    assert dots.startswith(f"tool {retrieve} argument 'customer' is one path segment")
    assert typed.startswith(f"tool {retrieve} argument 'customer' breaks its schema's 'type'")
    assert unknown == f"tool {retrieve} has no argument 'limit'"
    # The same through the session protocol (the SDK's call_tool): one path for every entry.
    assert Session.attach(env).call_tool(retrieve, {"customer": "a/b"})["error"] is True
    report = env.finish()
    assert report["steps"] == 4, report  # the list and three lookups: no refusal sent a thing


def _refused(url: str, token: str | None, **headers: str) -> tuple[int, dict[str, Any]]:
    response = _initialize(url, token, **headers)
    return response.status_code, response.json()["error"]


async def _mcp_error(url: str, token: str | None) -> str:
    async with _mcp(url, token) as http, \
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        with pytest.raises(MCPError) as refused:
            await session.initialize()
    return refused.value.error.message


def test_the_mcp_endpoint_refuses_what_is_no_live_episode_token(
        gym: str, deployment: Settings, make_env: MakeEnv) -> None:
    env = make_env(gym)
    assert env.observation is not None
    obs = env.observation
    forged = obs.token[:-2] + ("aa" if not obs.token.endswith("aa") else "bb")
    for token, code in [(None, "missing_credential"), ("nonsense", "invalid_token"),
                        (forged, "invalid_token"), (deployment.api_key, "invalid_token")]:
        status, error = _refused(gym, token)
        # A JSON-RPC error for MCP clients, the gym's own error object in its data.
        assert (status, error["code"], error["data"]["code"]) == (401, -32001, code), error
        assert error["message"] == error["data"]["message"]
    assert "Authorization: Bearer <episode token>" in asyncio.run(_mcp_error(gym, None))
    assert "invalid episode token" in asyncio.run(_mcp_error(gym, "nonsense"))

    served = _initialize(gym, obs.token)  # a live episode's token is served
    assert served.status_code == 200 and served.json()["result"]["serverInfo"]["name"] == "workgym"
    env.close()  # the operator drops the episode: its token names a deleted one
    status, error = _refused(gym, obs.token)
    assert (status, error["data"]["code"]) == (410, "episode_deleted")


def test_mcp_answers_its_own_host_and_no_browser_origin_unless_allowed(
        gym: str, deployment: Settings, make_env: MakeEnv) -> None:
    """DNS-rebinding protection (the MCP specification, Streamable HTTP): a Host that is not
    the server's or an Origin not allowed is a 403, before the token is looked at."""
    env = make_env(gym)
    assert env.observation is not None
    token = env.observation.token
    for headers, code in [({"host": "rebound.example"}, "host_not_allowed"),
                          ({"host": "rebound.example:80"}, "host_not_allowed"),
                          ({"host": "[::2]"}, "host_not_allowed"),
                          ({"origin": "https://site.example"}, "origin_not_allowed"),
                          ({"origin": "null"}, "origin_not_allowed")]:
        status, error = _refused(gym, token, **headers)
        assert (status, error["code"], error["data"]["code"]) == (403, -32001, code), headers
        assert error["data"]["field"] == next(iter(headers))
    for host in ["localhost:9", "127.0.0.1", "[::1]:8000"]:  # loopback, any port; no Origin
        assert _initialize(gym, token, host=host).status_code == 200, host

    with _served(deployment.model_copy(update={
            "roles": frozenset({"gym"}), "replica_urls": {"tracker": "http://127.0.0.1:9"},
            "allowed_hosts": ["gym.example"], "mcp_allowed_origins": ["https://ui.example"]
            })) as configured:
        status, error = _refused(configured, None, host="gym.example:8000",
                                 origin="https://ui.example")
        assert (status, error["data"]["code"]) == (401, "missing_credential")  # let through
        status, error = _refused(configured, None, host="gym.example",
                                 origin="https://ui.example:444")
        assert (status, error["data"]["code"]) == (403, "origin_not_allowed")


def test_an_episode_holds_a_bounded_number_of_mcp_streams(
        gym: str, deployment: Settings, make_env: MakeEnv) -> None:
    """GET /mcp streams stay open until their client leaves: an episode holds at most
    WORKGYM_MCP_STREAMS_PER_TOKEN of them (429 with Retry-After beyond, in the JSON-RPC
    error shape), another episode is not affected, and a closed stream frees its slot."""
    cap = deployment.mcp_streams_per_token
    tokens = []
    for _ in range(2):
        env = make_env(gym)
        assert env.observation is not None
        tokens.append(env.observation.token)

    def stream(client: httpx.AsyncClient, token: str
               ) -> contextlib.AbstractAsyncContextManager[httpx.Response]:
        return client.stream("GET", f"{gym}/mcp", headers={
            "authorization": f"Bearer {token}", "accept": "text/event-stream"})

    async def run() -> None:
        async with httpx.AsyncClient(timeout=30) as client:
            async with contextlib.AsyncExitStack() as held:
                opened = [await held.enter_async_context(stream(client, tokens[0]))
                          for _ in range(cap)]
                assert [r.status_code for r in opened] == [200] * cap
                async with stream(client, tokens[0]) as over:
                    assert over.status_code == 429  # not a stream: a refusal, then closed
                    body = orjson.loads(await over.aread())
                assert over.headers["retry-after"].isdigit()
                assert body["error"]["data"]["code"] == "mcp_stream_quota"
                async with stream(client, tokens[1]) as other:
                    assert other.status_code == 200
            # Every stream is closed: once the server has seen them go, a slot is free.
            for _ in range(100):
                async with stream(client, tokens[0]) as again:
                    if again.status_code == 200:
                        return
                await asyncio.sleep(0.05)
            raise AssertionError("closed streams never freed their slots")

    asyncio.run(run())


def test_the_gym_api_alone_reaches_the_proxy_over_the_network(
        deployment: Settings, make_env: MakeEnv) -> None:
    """The gym API in one server, the proxy and the tracker in another (as compose splits
    them): the MCP endpoint's tool calls go to the episode's app URL."""
    with _served(deployment.model_copy(update={
            "roles": frozenset({"proxy", "replica:tracker"}), "public_url": "{url}"})) as apps, \
            _served(deployment.model_copy(update={
                "roles": frozenset({"gym"}), "public_url": apps,
                "replica_urls": {"tracker": apps}})) as gym:
        env = make_env(gym)
        assert env.observation is not None
        assert env.observation.apps == {"tracker": f"{apps}/apps/tracker"}
        made = asyncio.run(_solve_over_mcp(
            gym, env.observation.token, env.observation.instruction, _tools_of(env),
            [*REFUSED, NOT_FOUND]))
        report = env.state()["report"]
        assert report["success"] is True, report
        assert report["steps"] == len(made) - len(REFUSED)
        env.close()  # before its server stops


def test_a_server_without_a_lifespan_says_where_mcp_is_served(deployment: Settings) -> None:
    """The in-process server of workgym.make runs no lifespan, so no MCP session manager."""
    async def post() -> httpx.Response:
        server = create_app(deployment.model_copy(update={
            "roles": frozenset({"gym"}), "replica_urls": {"tracker": "http://127.0.0.1:9"}}))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server),
                                     base_url="http://t") as client:
            answer = await client.post("/mcp", json={}, headers={"authorization": "Bearer x"})
        await server.aclose()
        return answer

    answer = asyncio.run(post())
    assert answer.status_code == 503
    assert answer.json()["error"]["data"]["code"] == "mcp_unavailable"
