"""A browser's way in (workgym_proxy/browser.py): the episode's token, given once in an entry
URL, becomes an HttpOnly, SameSite=Strict cookie the proxy takes as the bearer; the entry is
no step, the cookie reaches only its episode and never a replica, and the token is cut from
the access log."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from workgym.agents.reference import reference
from workgym.local import BASE_URL, LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_proxy.browser import COOKIE, TOKEN_PARAM, RedactTokens

from .conftest import REFUND_TASK, TASK, auth, trajectory

MakeEnv = Callable[..., Env]


@pytest.fixture
def http(local: LocalServer) -> Iterator[httpx.Client]:
    """A client of the server with a cookie jar of its own (as a browser profile)."""
    with local.client() as client:
        yield client


def _trajectory(local: LocalServer, env: Env) -> list[Any]:
    assert env.observation is not None
    return trajectory(local, env.observation.episode_id)


def _cookie(env: Env) -> dict[str, str]:
    assert env.observation is not None
    return {"cookie": f"theme=dark; {COOKIE}={env.observation.token}"}


def test_an_entry_sets_the_cookie_and_sends_the_browser_on(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    entered = http.get(obs.apps["helpdesk"] + "/api/v2/tickets", params={
        "sort_by": "status", TOKEN_PARAM: obs.token})

    assert entered.status_code == 303
    assert entered.headers["location"] == "/apps/helpdesk/api/v2/tickets?sort_by=status"
    cookie = entered.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={obs.token}; Path=/apps/; Max-Age=")
    assert cookie.endswith("; HttpOnly; SameSite=Strict")
    max_age = int(cookie.split("Max-Age=")[1].split(";")[0])  # as long as the token lives
    assert 0 < max_age <= local.server.settings.episode_ttl_s
    assert (entered.headers["cache-control"], entered.headers["referrer-policy"]) == (
        "no-store", "no-referrer")
    assert _trajectory(local, env) == []  # the entry reached no app

    page = http.get(BASE_URL + entered.headers["location"])  # the jar sends the cookie
    assert page.status_code == 200 and page.json()["tickets"]
    env.call("GET", "/api/v2/tickets")  # the bearer's
    browsed, called = _trajectory(local, env)
    assert (browsed.path, browsed.query) == ("/api/v2/tickets", "sort_by=status")
    assert (browsed.browser, called.browser) == (True, False)


def test_an_entry_with_a_token_that_is_not_the_episodes_sets_nothing(
        make_env: MakeEnv, http: httpx.Client) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    tickets = obs.apps["helpdesk"] + "/api/v2/tickets"
    for token in ("garbage", f"{obs.episode_id}.1.x.y", obs.refresh_token):
        refused = http.get(tickets, params={TOKEN_PARAM: token})
        assert refused.status_code == 401, token
        assert "set-cookie" not in refused.headers
    elsewhere = http.get(f"{BASE_URL}/apps/notes/notes", params={TOKEN_PARAM: obs.token})
    assert elsewhere.status_code == 404
    assert elsewhere.json()["error"]["code"] == "app_not_in_episode"
    # Only a GET enters: anything else with the parameter is a request without a credential.
    posted = http.post(tickets, params={TOKEN_PARAM: obs.token}, json={})
    assert posted.status_code == 401 and "set-cookie" not in posted.headers
    assert not http.cookies


def test_the_cookie_reaches_its_episode_only_and_never_a_replica(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client,
        monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = make_env(REFUND_TASK, 5, "none"), make_env(REFUND_TASK, 5, "none")
    a.reset()
    b.reset()
    reference(a, catalogue().get(REFUND_TASK))  # a refund only a's world has: the newest
    refund = a.call("GET", "/v1/refunds", params={"limit": 1}, app="checkout"
                    ).json()["data"][0]["id"]
    url = f"{BASE_URL}/apps/checkout/v1/refunds/{refund}"
    proxy = local.server.proxy
    assert proxy is not None
    forwarded: list[list[tuple[bytes, bytes]]] = []
    send = proxy.upstream.request

    async def recording(method: str, url: str, headers: Any, body: bytes) -> Any:
        forwarded.append(headers)
        return await send(method, url, headers, body)

    monkeypatch.setattr(proxy.upstream, "request", recording)
    assert http.get(url, headers=_cookie(a)).status_code == 200
    assert http.get(url, headers=_cookie(b)).status_code == 404
    # A bearer header, when there is one, is the credential.
    assert http.get(url, headers={**_cookie(b), **auth(a)}).status_code == 200
    assert a.observation is not None and b.observation is not None
    tokens = {a.observation.token.encode(), b.observation.token.encode()}
    assert len(forwarded) == 3
    for headers in forwarded:
        assert all(name != b"cookie" and not any(t in value for t in tokens)
                   for name, value in headers)


def test_entry_tokens_are_cut_from_the_access_log() -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d', ("127.0.0.1:5", "GET",
                               f"/apps/checkout/shop?{TOKEN_PARAM}=ep_1.2.abc.def&currency=eur",
                               "1.1", 303), None)

    assert RedactTokens().filter(record)

    assert record.getMessage() == ('127.0.0.1:5 - "GET /apps/checkout/shop?'
                                   f'{TOKEN_PARAM}=[redacted]&currency=eur HTTP/1.1" 303')
