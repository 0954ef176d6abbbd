"""Without faults the proxy is transparent: what the agent gets is byte for byte what the
replica answers, and what the replica gets is what the agent sent (minus hop-by-hop,
credentials and forged internal headers). And it is no open proxy: whatever the path or
Host header, a request reaches the episode's replica, inside the app, or nothing."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

from .conftest import TASK, auth, task_customer_email, task_ticket, trajectory

REPLICA = "helpdesk.replica"
MakeEnv = Callable[..., Env]




def _direct(local: LocalServer, settings: Settings, episode_id: str, step: int, method: str,
            path: str, **kwargs: Any) -> httpx.Response:
    """The same request sent straight to the replica, as the proxy would on step ``step``."""
    headers = {"x-workgym-internal": settings.internal_secret,
               "x-workgym-episode": episode_id, "x-workgym-step": str(step),
               "x-workgym-base": _base(local), **kwargs.pop("headers", {})}

    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=local.server.replicas["helpdesk"])
        async with httpx.AsyncClient(transport=transport, base_url=f"http://{REPLICA}") as client:
            return await client.request(method, path, headers=headers, **kwargs)

    return local.run(call())


def _base(local: LocalServer) -> str:
    """The app's public base the proxy passes the replica (for Zendesk's absolute links)."""
    return local.server.settings.public_url.rstrip("/") + "/apps/helpdesk"


def _headers(response: httpx.Response) -> list[tuple[bytes, bytes]]:
    """Response headers the agent may see: not the length the transport computes itself, nor
    the replica's internal x-workgym-* report to the proxy."""
    return sorted((k.lower(), v) for k, v in response.headers.raw
                  if k.lower() != b"content-length" and not k.lower().startswith(b"x-workgym-"))


@dataclass
class Seen:
    """One request as the replica received it."""

    scope: dict[str, Any]
    chunks: list[bytes] = field(default_factory=list)

    @property
    def path(self) -> str:
        return str(self.scope["path"])

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    def headers(self, name: str) -> list[str]:
        return [v.decode("latin-1") for k, v in self.scope["headers"] if k == name.encode()]


@pytest.fixture
def seen(local: LocalServer, monkeypatch: pytest.MonkeyPatch) -> list[Seen]:
    """Every agent-facing request the helpdesk replica receives during the test."""
    app = local.server.replicas["helpdesk"]
    inner = app.middleware_stack or app.build_middleware_stack()
    received: list[Seen] = []

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_env/episodes") \
                or scope["path"] == "/openapi.json":
            # The gym's own calls: episode lifecycle, and the API description it reads once
            # per process for the tools (the first test to run sees that read).
            await inner(scope, receive, send)
            return
        entry = Seen(dict(scope))
        received.append(entry)

        async def tap() -> Any:
            message = await receive()
            entry.chunks.append(message.get("body", b""))
            return message

        await inner(scope, tap, send)

    monkeypatch.setattr(app, "middleware_stack", recording)
    return received


class _Recording:
    """The proxy's upstream, noting every URL it is asked for."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.urls: list[httpx.URL] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def request(self, method: str, url: Any, *args: Any, **kwargs: Any) -> Any:
        self.urls.append(httpx.URL(str(url)))
        return await self.inner.request(method, url, *args, **kwargs)


@pytest.fixture
def upstream(local: LocalServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[httpx.URL]]:
    """Every URL the proxy sends a request to during the test."""
    proxy = local.server.proxy
    assert proxy is not None
    recording = _Recording(proxy.upstream)
    monkeypatch.setattr(proxy, "upstream", recording)
    yield recording.urls


# --- byte for byte -------------------------------------------------------------------------------


def test_responses_are_byte_identical_to_the_replicas(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    proxied, direct = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    proxied.reset()
    direct_obs = direct.reset()
    ticket = task_ticket(local, proxied)
    assert task_ticket(local, direct) == ticket  # the same seed, the same world
    email = task_customer_email(local, proxied)
    json_type = {"content-type": "application/json"}
    path = f"/api/v2/tickets/{ticket}"
    requests: list[tuple[str, str, dict[str, Any], int]] = [
        ("GET", "/api/v2/search", {"params": {"query": "type:ticket status:open",
                                              "per_page": 5}}, 200),
        ("GET", "/api/v2/tickets/999999", {}, 404),
        ("GET", "/api/v2/tickets/abc", {}, 422),
        ("PUT", path, {"json": {"ticket": {"comment": {"body": "Hi Dana", "public": True}}}},
         200),
        ("PUT", path, {"content": b'{"ticket": {"comment": ', "headers": json_type}, 422),
        ("PUT", path, {"json": {"ticket": {"comment": {"body": "x"}, "bogus": 1}}}, 422),
        ("PUT", path, {"json": {"ticket": {"status": "pending"}}}, 200),
        ("GET", f"{path}/comments", {}, 200),
        ("GET", "/api/v2/users/search", {"params": {"query": email}}, 200),
        ("GET", "/api/v2/tickets", {"params": {"per_page": 100}}, 200),  # a large answer
        ("DELETE", path, {}, 405),
    ]
    assert proxied.observation is not None
    base = proxied.observation.apps["helpdesk"]
    for step, (method, path, kwargs, status) in enumerate(requests, start=1):
        headers = {**auth(proxied), **kwargs.get("headers", {})}
        got = local.request(method, base + path, **{**kwargs, "headers": headers})
        want = _direct(local, settings, direct_obs.episode_id, step, method, path, **kwargs)
        assert (got.status_code, want.status_code) == (status, status), (path, got.text)
        assert got.content == want.content, path
        assert got.headers["content-type"] == want.headers["content-type"], path
        assert _headers(got) == _headers(want), path
        assert not any(k.lower().startswith(b"x-workgym-") for k, _ in got.headers.raw), path


QUERIES = [  # of GET /api/v2/search
    "query=status%3Aopen&query=status%3Apending&per_page=2",  # a repeated key
    "query=caf%C3%A9%20%E2%82%AC&per_page=3",  # unicode, percent-encoded
    "query=a%26b%3Dc%2Fd%3Fe%23f%25&per_page=3",  # encoded delimiters
    "query=type%3Aticket+Refund+for&per_page=1&page=1",  # '+' for a space
    "query=%27%3B%20DROP%20TABLE%20tickets%3B%20--",
    "query=type%3Auser&per_page=1&per_page=1000",
    "query=",
]


@pytest.mark.parametrize("query", QUERIES)
def test_query_strings_reach_the_replica_unchanged(
    make_env: MakeEnv, local: LocalServer, settings: Settings, seen: list[Seen], query: str
) -> None:
    proxied, direct = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    obs = proxied.reset()
    direct_obs = direct.reset()
    got = local.request("GET", f"{obs.apps['helpdesk']}/api/v2/search?{query}",
                        headers=auth(proxied))
    assert got.request.url.query == query.encode()  # what the agent sent
    assert [s.scope["query_string"] for s in seen] == [query.encode()]
    steps = trajectory(local, obs.episode_id)
    assert steps[0].query == query
    want = _direct(local, settings, direct_obs.episode_id, 1, "GET", f"/api/v2/search?{query}")
    assert (got.status_code, got.content) == (want.status_code, want.content)


def test_a_large_body_reaches_the_replica_unchanged(
    make_env: MakeEnv, local: LocalServer, settings: Settings, seen: list[Seen]
) -> None:
    proxied, direct = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    obs = proxied.reset()
    direct_obs = direct.reset()
    ticket = task_ticket(local, proxied)
    body = ('{"ticket": {"comment": {"body": "' + "é€ü" * 33_000 + '", "public": true}}}'
            ).encode()
    assert 190_000 < len(body) < settings.max_body_bytes
    headers = {"content-type": "application/json; charset=utf-8"}
    got = local.request("PUT", f"{obs.apps['helpdesk']}/api/v2/tickets/{ticket}",
                        content=body, headers={**headers, **auth(proxied)})
    assert [s.body for s in seen] == [body]
    assert seen[0].headers("content-type") == [headers["content-type"]]
    want = _direct(local, settings, direct_obs.episode_id, 1, "PUT",
                   f"/api/v2/tickets/{ticket}", content=body, headers=headers)
    assert got.status_code == want.status_code == 422  # a comment is at most 65 536 chars
    assert got.json()["error"] == "RecordInvalid"
    assert "'ticket.comment.body'" in got.json()["details"]["comment"][0]["description"]
    assert got.content == want.content


def test_path_characters_reach_the_replica_as_sent(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    """An encoded '?' or '#' belongs to the path: it must not start a query or fragment."""
    proxied, direct = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    obs = proxied.reset()
    direct_obs = direct.reset()
    for step, path in enumerate(["/api/v2/tickets%3Fper_page=1", "/api/v2/tickets%23x",
                                 "/api/v2/groups/1%2F2", "/api/v2%2Fgroups"], 1):
        got = local.request("GET", obs.apps["helpdesk"] + path, headers=auth(proxied))
        want = _direct(local, settings, direct_obs.episode_id, step, "GET", path)
        assert (got.status_code, got.content) == (want.status_code, want.content), path


def test_request_headers_are_forwarded_except_hop_by_hop_and_internal(
    make_env: MakeEnv, local: LocalServer, settings: Settings, seen: list[Seen]
) -> None:
    victim, env = make_env(TASK, 3, "none"), make_env(TASK, 3, "none")
    victim_obs = victim.reset()
    obs = env.reset()
    agent_headers = {
        **auth(env),
        "x-custom-trace": "abc-123", "accept-language": "fr-CH", "user-agent": "agent/1.0",
        "connection": "keep-alive, x-custom-trace-hop", "keep-alive": "timeout=5",
        "te": "trailers", "upgrade": "websocket", "proxy-authorization": "Basic Zm9vOmJhcg==",
        "trailer": "x-checksum",
        "x-workgym-internal": "guess", "x-workgym-episode": victim_obs.episode_id,
        "X-WorkGym-Step": "999", "x-workgym-anything": "1",
        "x-workgym-base": "https://evil.example/apps/helpdesk",
    }
    response = local.request("GET", obs.apps["helpdesk"] + "/api/v2/groups",
                             headers=agent_headers)
    assert response.status_code == 200
    (request,) = seen
    assert request.headers("x-custom-trace") == ["abc-123"]
    assert request.headers("accept-language") == ["fr-CH"]
    assert request.headers("user-agent") == ["agent/1.0"]
    for name in ("keep-alive", "te", "upgrade", "proxy-authorization", "trailer",
                 "authorization", "x-workgym-anything"):
        assert request.headers(name) == [], name
    assert "x-custom-trace-hop" not in " ".join(request.headers("connection"))
    assert request.headers("host") == [REPLICA]
    assert request.headers("x-workgym-internal") == [settings.internal_secret]
    assert request.headers("x-workgym-episode") == [obs.episode_id]
    assert request.headers("x-workgym-step") == ["1"]
    assert request.headers("x-workgym-base") == [_base(local)]  # the proxy's, not a forgery
    assert "evil.example" not in response.text
    assert obs.token not in str(request.scope["headers"])


# --- no open proxy -------------------------------------------------------------------------

def _normalized(url: httpx.URL) -> str:
    """The path as RFC 3986 normalisation leaves it (unreserved '%2e' decoded, dot segments
    removed), as aiohttp's yarl, nginx and others do before routing."""
    path = url.raw_path.decode("ascii").partition("?")[0]
    return posixpath.normpath(re.sub("%2e", ".", path, flags=re.IGNORECASE))


ESCAPES = [
    "/http://evil.example/x",
    "/https:%2F%2Fevil.example/x",
    "//evil.example/x",
    "///evil.example/x",
    "/@evil.example/x",
    "@evil.example/x",
    ":80@evil.example/x",
    ".evil.example/x",
    "/%2e%2e/%2e%2e/evil",
    "/api/v2/tickets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/%2e%2e%2f_env/health",
    "/%252e%252e/_env/health",
    "/api/v2/tickets/%252e%252e/_env/episodes/ep_0000000000000000/state/final",
    "/..%5c..%5c_env/health",
    "/\\evil.example/x",
    "/%5c%5cevil.example/x",
    "/%5c_env/health",
    "/_env%2fhealth",
    "/api/v2/tickets/%0d%0aHost:%20evil.example",
    "/api/v2/tickets%0A",
]


@pytest.mark.parametrize("suffix", ESCAPES)
def test_no_path_leaves_the_episodes_replica(
    make_env: MakeEnv, local: LocalServer, upstream: list[httpx.URL], seen: list[Seen],
    suffix: str,
) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    response = local.request("GET", obs.apps["helpdesk"] + suffix, headers=auth(env))
    assert response.status_code == 404, response.text
    for url in upstream:
        assert (url.scheme, url.host, url.port) == ("http", REPLICA, None), url
        assert not _normalized(url).startswith("/_env"), url
    for request in seen:  # whatever reached the replica stayed inside the app
        assert not request.path.startswith("/_env"), request.path
        assert "/../" not in request.path + "/" and "/./" not in request.path + "/", request.path
    assert "evil" not in str(local.server.replicas["helpdesk"].state.store._episodes)


@pytest.mark.parametrize("host", ["evil.example", "billing.replica", "127.0.0.1:6379",
                                  "workgym.local"])
def test_the_host_header_does_not_pick_the_upstream(
    make_env: MakeEnv, local: LocalServer, upstream: list[httpx.URL], seen: list[Seen],
    host: str,
) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    response = local.request("GET", obs.apps["helpdesk"] + "/api/v2/groups",
                             headers={**auth(env), "host": host,
                                      "x-forwarded-host": "evil.example"})
    assert response.status_code == 200
    assert [(u.host, u.path) for u in upstream] == [(REPLICA, "/api/v2/groups")]
    assert [s.headers("host") for s in seen] == [[REPLICA]]


@pytest.mark.parametrize("path", [
    "/apps/shop/orders", "/apps/", "/apps", "/apps//helpdesk/groups", "/apps/HELPDESK/groups",
    "/apps/helpdesk.replica/groups", "/apps/..%2fhelpdesk/groups", "/apps/_env/health",
    "/apps/%2e%2e/v1/faults",
])
def test_unknown_apps_are_404(
    make_env: MakeEnv, local: LocalServer, upstream: list[httpx.URL], path: str
) -> None:
    env = make_env(TASK, 1, "none")
    env.reset()
    response = local.request("GET", "http://workgym.local" + path, headers=auth(env))
    assert response.status_code == 404, response.text
    assert upstream == []
