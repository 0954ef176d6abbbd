"""No leaks: no redirect or message exposes an internal host, SQL or a stack trace; app URLs
come from configuration, never from the Host header; unknown and other episodes' ids answer
the same way.

Before: a trailing slash redirected to the internal replica host, error messages showed
internal URLs and SQL errors, the Host header was reflected into the episode's app URLs,
and unknown and existing episode ids answered differently (404 vs 401)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.refusals import refusal
from workgym.local import BASE_URL, LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

from .conftest import TASK, agent, app_url, operator

MakeEnv = Callable[..., Env]


def test_a_trailing_slash_is_a_json_404_never_a_redirect(local: LocalServer,
                                                         make_env: MakeEnv) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    for url, headers in [("/v1/tasks/", operator(local)),
                         (f"/v1/episodes/{obs.episode_id}/", operator(local)),
                         (app_url(env, "/api/v2/tickets/"), agent(env)),
                         (app_url(env, "/api/v2/groups/"), agent(env))]:
        answer = local.request("GET", url, headers=headers, follow_redirects=False)
        assert answer.status_code == 404, (url, answer.status_code)
        assert "location" not in answer.headers
        error = answer.json()["error"]  # the helpdesk's own are Zendesk's: a name
        assert error == "RecordNotFound" if isinstance(error, str) else \
            error["code"].endswith("not_found")
        assert ".replica" not in answer.text


def test_app_urls_come_from_configuration_not_the_host_header(local: LocalServer) -> None:
    created = local.request("POST", "/v1/episodes", json={"task": TASK, "seed": 1},
                            headers={**operator(local), "host": "evil.example:666",
                                     "x-forwarded-host": "evil.example"})
    assert created.status_code == 201
    assert created.json()["apps"] == {"helpdesk": f"{BASE_URL}/apps/helpdesk"}
    viewed = local.request("GET", f"/v1/episodes/{created.json()['id']}",
                           headers={**operator(local), "host": "evil.example"})
    assert "evil" not in viewed.text


@pytest.fixture
def unreachable(settings: Settings, tmp_path: Path) -> Iterator[LocalServer]:
    """A gym and proxy whose helpdesk lives at an address nothing answers."""
    local = LocalServer(settings.model_copy(update={
        "roles": frozenset({"gym", "proxy"}), "api_key": f"wgk_{tmp_path.name}",
        "replica_urls": {"helpdesk": "http://127.0.0.1:9"}}))
    yield local
    local.close()


def test_errors_never_name_internal_hosts(unreachable: LocalServer) -> None:
    answer = unreachable.request("POST", "/v1/episodes", json={"task": TASK, "seed": 1},
                                 headers=operator(unreachable))
    assert answer.status_code == 503  # a dependency outage: retry later
    assert refusal(answer)["code"] == "replica_unavailable"
    assert int(answer.headers["retry-after"]) >= 1
    assert "127.0.0.1" not in answer.text and ":9" not in answer.text
    openapi = unreachable.request("GET", "/v1/apps/helpdesk/openapi.json",
                                  headers=operator(unreachable))
    assert openapi.status_code == 503 and "127.0.0.1" not in openapi.text
    assert refusal(openapi)["code"] == "app_unavailable"


def test_unknown_and_foreign_tokens_answer_alike(local: LocalServer, make_env: MakeEnv) -> None:
    a, b = make_env(TASK, 1, "none"), make_env(TASK, 1, "none")
    obs_a, obs_b = a.reset(), b.reset()
    forged = f"{obs_a.episode_id}.{obs_b.token.split('.', 1)[1]}"  # a's id, b's signature
    unknown = "ep_0123456789abcdef." + obs_a.token.split(".", 1)[1]
    answers = [local.request("GET", app_url(a, "/api/v2/groups"),
                             headers={"authorization": f"Bearer {token}"})
               for token in (forged, unknown, "nonsense", obs_a.token[:-2])]
    assert {(r.status_code, r.text) for r in answers} == {
        (401, '{"error":"invalid_token","description":"invalid or expired episode token"}')}
