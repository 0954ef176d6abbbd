"""Limits and reclamation: per-key quotas on live episodes and on the creation rate (429
with Retry-After), a memory ceiling that refuses new episodes before the machine suffers,
and a reaper that frees expired episodes on time.

Before: 12,000 episode creations in a row all succeeded (~0.9 MB each), and expired state
was freed only when another episode was created."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.processes import serving
from workgym.sdk import connect

from .conftest import TASK, operator

Factory = Callable[..., LocalServer]


def _create(local: LocalServer, **body: Any) -> httpx.Response:
    return local.request("POST", "/v1/episodes", headers=operator(local),
                         json={"task": TASK, "seed": 1, "faults": "none", **body})


def test_live_episodes_per_key_are_capped(server: Factory) -> None:
    local = server(max_live_episodes=2)
    first, second = _create(local), _create(local)
    assert first.status_code == second.status_code == 201
    refused = _create(local)
    assert refused.status_code == 429
    assert refusal(refused)["code"] == "live_episode_quota"
    assert int(refused.headers["retry-after"]) >= 1
    finished = local.request("POST", f"/v1/episodes/{first.json()['id']}/finish", json={},
                             headers=operator(local))
    assert finished.status_code == 200
    assert _create(local).status_code == 201  # a finished episode no longer counts
    deleted = local.request("DELETE", f"/v1/episodes/{second.json()['id']}",
                            headers=operator(local))
    assert deleted.status_code == 204
    assert _create(local).status_code == 201


def test_the_creation_rate_per_key_is_capped(server: Factory) -> None:
    local = server(create_rate_per_s=0.2, create_burst=2)
    assert [_create(local).status_code for _ in range(2)] == [201, 201]
    refused = _create(local)
    assert refused.status_code == 429
    assert refusal(refused)["code"] == "creation_rate_quota"
    assert 1 <= int(refused.headers["retry-after"]) <= 5
    other = server()  # another key has a bucket of its own
    assert _create(other).status_code == 201


def test_a_replica_at_its_memory_ceiling_refuses_new_episodes(server: Factory) -> None:
    local = server(memory_limit_mb=1, max_live_episodes=1)
    refused = _create(local)
    assert refused.status_code == 503
    assert refusal(refused)["code"] == "capacity_exhausted"
    assert int(refused.headers["retry-after"]) >= 1
    store = local.server.replicas["helpdesk"].state.store
    assert len(store) == 0
    store.memory_limit_mb = 1e9  # memory freed: the refused episode did not use the quota
    assert _create(local).status_code == 201


def test_expired_episodes_are_freed_on_time_without_new_traffic(server: Factory) -> None:
    local = server(episode_ttl_s=1)
    store = local.server.replicas["helpdesk"].state.store

    def freed() -> bool:  # by the reaper: nothing else is created or requested meanwhile
        deadline = time.monotonic() + 10  # its wake-up on a loaded machine, at most
        while len(store) and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(store) == 0

    # One seed, its world built first: the three creations fall well inside the TTL.
    assert _create(local, seed=1).status_code == 201 and freed()
    created = [_create(local, seed=1) for _ in range(3)]
    assert all(c.status_code == 201 for c in created)
    assert len(store) == 3
    assert freed()
    expired = local.request("GET", created[0].json()["apps"]["helpdesk"] + "/api/v2/groups",
                            headers={"authorization": f"Bearer {created[0].json()['token']}"})
    assert expired.status_code == 410 and refusal(expired)["code"] == "episode_expired"
    assert _create(local).status_code == 201  # the expired ones left the live quota


def test_a_creation_that_reaches_redis_late_drains_no_tokens(server: Factory) -> None:
    """The bucket refills by the callers' clocks: one whose admit arrives after a later one's
    (late by 10 s under load) counts no negative time, which would drain rate x 10 tokens."""
    local = server()
    registry = local.server.registry
    assert registry is not None

    async def admit(now: float, episode_id: str) -> str:
        result = await registry._create(  # noqa: SLF001 - the script, with the caller's clock
            keys=[f"wg:ep:{episode_id}", "wg:live:late", "wg:rate:late", "wg:ep:", "wg:traj:"],
            args=[now, now + 60, 100, 1_000_000, 10, episode_id, int((now + 60) * 1000), "",
                  "late", "task", "t"])
        return str(result[0])

    assert local.run(admit(1_000.0, "a")) == "ok"
    assert local.run(admit(990.0, "b")) == "ok"  # before: refused, 'rate'
    assert local.run(admit(1_000.5, "c")) == "ok"


# Connections and requests of a real `workgym serve` (uvicorn over a socket): before, a
# half-sent head was held forever (1,100 of them locked new clients out), a Content-Length lie
# for minutes, and the gym API and /mcp read 8 MB headers.

SHORT = {"WORKGYM_HEADER_TIMEOUT_S": "1", "WORKGYM_BODY_TIMEOUT_S": "1"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("served")
    with serving(env={**os.environ, "WORKGYM_DATA_DIR": str(data), **SHORT}) as url:
        yield url


def _exchange(url: str, data: bytes) -> tuple[int, dict[str, Any], bool]:
    """Send ``data`` raw, then read what the server answers until it closes the connection
    (at most 60 s: a safety net, not a measure); the status, the JSON body, and whether it
    closed."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(data)
        sock.settimeout(60)
        received = b""
        closed = False
        while not closed:
            try:
                chunk = sock.recv(65_536)
            except TimeoutError:
                break
            closed = not chunk
            received += chunk
            head, _, body = received.partition(b"\r\n\r\n")
            length = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
            if not closed and length and len(body) >= int(length[1]) and b"close" not in head:
                break  # a whole response on a connection kept open
    status = int(received.split(b" ", 2)[1])
    return status, json.loads(received.partition(b"\r\n\r\n")[2]), closed


@pytest.mark.parametrize("sent", [b"", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1"])
def test_a_half_sent_head_is_answered_408_and_closed(served: str, sent: bytes) -> None:
    status, body, closed = _exchange(served, sent)
    assert status == 408 and closed
    assert body["error"] == {"code": "request_timeout", "field": "headers",
                             "rule": "timeout_s:1",
                             "message": "the request head did not arrive within 1 s"}
    assert httpx.get(served + "/healthz").status_code == 200


def test_a_content_length_lie_is_answered_408_and_stores_nothing(served: str) -> None:
    with connect(served, TASK, seed=3, faults="none") as env:
        env.reset()
        assert env.observation is not None
        path = "/apps/helpdesk/api/v2/tickets"
        token = {"authorization": f"Bearer {env.observation.token}"}
        before = httpx.get(served + path, headers=token).json()["count"]
        lie = (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: {token['authorization']}"
               "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
               '{"ticket": {"subject": "x", "comment": {"body": "y"}}}').encode()
        status, body, closed = _exchange(served, lie)
        assert status == 408 and closed
        assert (refusal(body)["field"], refusal(body)["rule"]) == ("body", "timeout_s:1")
        assert httpx.get(served + path, headers=token).json()["count"] == before


@pytest.mark.parametrize("path", ["/v1/episodes", "/mcp", "/apps/helpdesk/api/v2/groups"])
def test_an_8_mb_header_is_refused_431_at_every_entry(served: str, path: str) -> None:
    status, body, _ = _exchange(
        served, f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Big: ".encode() + b"a" * 8_000_000
        + b"\r\n\r\n")
    assert status == 431
    assert body["error"]["code"] == "headers_too_large"
    assert body["error"]["rule"] == "max_bytes:16384"


def test_connections_past_the_cap_are_answered_503_json(tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path), "WORKGYM_MAX_CONNECTIONS": "3",
           "WORKGYM_HEADER_TIMEOUT_S": "600"}
    with serving(env=env) as url:
        host, port = url.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port))) for _ in range(3)]
        try:
            status, body, closed = _exchange(url, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        finally:
            for sock in idle:
                sock.close()
        assert status == 503 and closed
        assert body["error"]["code"] == "server_busy"
        with httpx.Client() as client:  # the idle ones gone, a connection is served again
            assert client.get(url + "/healthz").status_code == 200


@pytest.mark.parametrize("path", ["/v1/episodes", "/mcp"])
@pytest.mark.parametrize(("headers", "rule"), [
    ([(f"x-h{i}", "1") for i in range(200)], "max_count:100"),
    ([("x-big", "a" * 20_000)], "max_bytes:16384"),
])
def test_the_gym_api_and_mcp_refuse_too_many_or_too_large_headers(
    local: LocalServer, path: str, headers: list[tuple[str, str]], rule: str
) -> None:
    refused = local.request("GET", path, headers=[*operator(local).items(), *headers])
    assert refused.status_code == 431
    assert refusal(refused)["rule"] == rule


# Before: an episode's database had no ceiling (tracker text fields had no length limit
# either): one episode grew the server by 25 MB in 3 s.

CROSS = "cross/incident-wrong-charge-filed-bug"  # the helpdesk, the checkout and the tracker
TEXT = "lorem ipsum " * 330  # ~4 KB: within every product's field caps


def _finish(local: LocalServer, episode: str) -> None:
    """Finish (score) the episode: it waits for its steps to be recorded, which closing the
    server at once would race."""
    finished = local.request("POST", f"/v1/episodes/{episode}/finish", json={},
                             headers=operator(local))
    assert finished.status_code == 200


def _tracker_issue(local: LocalServer, base: str, token: dict[str, str]) -> str:
    found = local.request("GET", base + "/rest/api/3/search/jql", headers=token,
                          params={"jql": "created >= -3650d order by key", "maxResults": 1})
    assert found.status_code == 200, found.text
    return str(found.json()["issues"][0]["id"])


CEILING = "this write would take the episode's data past its storage ceiling (100000 bytes "


@pytest.mark.parametrize(("app", "refusal"), [
    ("helpdesk", lambda body: body["error"] == "InvalidValue"
     and body["description"].startswith(CEILING)),
    ("checkout", lambda body: body["error"]["type"] == "invalid_request_error"
     and body["error"]["code"] == "storage_full" and body["error"]["message"].startswith(CEILING)),
    ("tracker", lambda body: body["errorMessages"][0].startswith(CEILING)
     and body["errors"] == {}),
])
def test_an_episode_past_its_storage_ceiling_is_refused_and_unchanged(
    server: Factory, app: str, refusal: Callable[[Any], bool]
) -> None:
    local = server(episode_storage_bytes=100_000)
    created = _create(local, task=CROSS, seed=2)
    assert created.status_code == 201
    episode, base = created.json()["id"], created.json()["apps"][app]
    token = {"authorization": f"Bearer {created.json()['token']}"}
    issue = _tracker_issue(local, created.json()["apps"]["tracker"], token)
    write: Callable[[], httpx.Response] = {
        "helpdesk": lambda: local.request("POST", base + "/api/v2/tickets", headers=token, json={
            "ticket": {"subject": "Notes", "comment": {"body": TEXT}}}),
        "checkout": lambda: local.request("POST", base + "/v1/customers", headers=token,
                                          data={"description": TEXT}),
        "tracker": lambda: local.request(
            "POST", f"{base}/rest/api/2/issue/{issue}/comment",
            headers=token, json={"body": TEXT}),
    }[app]
    store = local.server.replicas[app].state.store
    for _ in range(100):  # ~25 fit
        before = store.peek(episode).state()
        answer = write()
        if answer.status_code >= 400:
            break
    assert answer.status_code == 400 and refusal(answer.json()), answer.text
    assert store.peek(episode).state() == before
    _finish(local, episode)


# Field lengths as the products cap them. Before: tracker text fields had none.

JIRA_TOO_LONG = "The entered text is too long. It exceeds the allowed limit of 32,767 characters."


@pytest.mark.parametrize(("field", "path", "body"), [
    ("comment", "/comment", lambda text: {"body": text}),
    ("description", "", lambda text: {"fields": {"description": text}}),
])
def test_tracker_text_fields_are_capped_as_jira_caps_them(
    server: Factory, field: str, path: str, body: Callable[[str], Any]
) -> None:
    local = server()
    created = _create(local, task=CROSS, seed=2)
    base = created.json()["apps"]["tracker"]
    token = {"authorization": f"Bearer {created.json()['token']}"}
    url = f"{base}/rest/api/2/issue/{_tracker_issue(local, base, token)}{path}"
    method = "POST" if path else "PUT"
    refused = local.request(method, url, headers=token, json=body("x" * 32_768))
    assert refused.status_code == 400
    assert refused.json() == {"errorMessages": [], "errors": {field: JIRA_TOO_LONG}}
    assert local.request(method, url, headers=token, json=body("x" * 32_767)).status_code < 300
    _finish(local, created.json()["id"])
