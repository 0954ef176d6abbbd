"""A browser's state-changing request reaches an episode's apps, and the telemetry store's
login, only from that site's own pages: ``Origin`` is the server's own, or (without one)
``Sec-Fetch-Site`` is same-origin or none. SameSite=Strict alone let a page on another port
of the same host (same site, another origin) post with the episode's cookie.

Before: every one of these was forwarded (a step, a change) or logged in."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from tests.refusals import refusal
from tests.telemetry.conftest import MakeServer
from tests.telemetry.conftest import make_server as make_server  # noqa: F401 - fixture
from workgym.local import LocalServer
from workgym.sdk import Env

from .conftest import TASK, app_url, trajectory

MakeEnv = Callable[..., Env]
NEW_USER = {"user": {"name": "Mallory Cross", "email": "mallory@cross.example"}}
FOREIGN = [
    {"origin": "http://127.0.0.1:9999"},  # the same host (same site), another port
    {"origin": "https://evil.example"}, {"origin": "null"},
    {"origin": "null", "sec-fetch-site": "cross-site"},  # a sandboxed frame
    {"sec-fetch-site": "same-site"}, {"sec-fetch-site": "cross-site"},
]


def _browser(local: LocalServer, env: Env) -> tuple[dict[str, str], str]:
    """The cookie a browser holds after the episode's entry, and the proxy's own origin."""
    assert env.observation is not None
    with local.client() as browser:  # its own jar: the shared client keeps no cookie
        entry = browser.get(app_url(env, "/agent/"),
                            params={"workgym_token": env.observation.token})
    assert entry.status_code == 303, entry.text
    cookie = entry.headers["set-cookie"].split(";")[0]
    parts = urlsplit(app_url(env, "/"))
    return {"cookie": cookie}, f"{parts.scheme}://{parts.netloc}"


def test_a_cross_site_post_with_the_episode_cookie_is_refused_and_changes_nothing(
        local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env(TASK, 4, "none")
    env.reset()
    cookie, own = _browser(local, env)
    users = app_url(env, "/api/v2/users")

    for foreign in FOREIGN:
        refused = local.request("POST", users, json=NEW_USER, headers={**cookie, **foreign})
        assert refused.status_code == 403, (foreign, refused.text)
        error = refusal(refused)
        assert (error["code"], error["field"], error["rule"]) == (
            "cross_site_request", "origin", "same_origin")
    assert trajectory(local, env) == []  # not one counted or forwarded

    for same in ({"origin": own}, {"sec-fetch-site": "same-origin"}, {"sec-fetch-site": "none"},
                 {"origin": "null", "sec-fetch-site": "same-origin"},  # a no-referrer page's
                 {}):  # neither header: no browser's
        assert local.request("GET", users, headers={**cookie, "origin": "https://evil.example"}
                             ).status_code == 200  # reading is not a change
        created = local.request("POST", users, json={"user": {
            **NEW_USER["user"], "email": f"m{len(trajectory(local, env))}@cross.example"}},
            headers={**cookie, **same})
        assert created.status_code == 201, (same, created.text)
    # A bearer token is no ambient credential: a foreign Origin does not matter to it.
    assert env.call("POST", "/api/v2/users", json={"user": {
        **NEW_USER["user"], "email": "bearer@cross.example"}},
        headers={"origin": "https://evil.example"}).status_code == 201


@pytest.mark.parametrize("foreign", FOREIGN)
def test_a_cross_site_login_is_refused(make_server: MakeServer,  # noqa: F811 - fixture
                                       foreign: dict[str, str]) -> None:
    served = make_server()
    form = {"api_key": served.api_key, "next": "/"}

    refused = served.anonymous.post("/login", data=form, headers=foreign)
    own = urlsplit(served.url)
    accepted = served.anonymous.post("/login", data=form,
                                     headers={"origin": f"{own.scheme}://{own.netloc}"})

    assert refused.status_code == 403 and "set-cookie" not in refused.headers
    assert "Refused:" in refused.text and "name=api_key" in refused.text  # the login page
    assert accepted.status_code == 303 and "set-cookie" in accepted.headers
