"""Two principals: the operator's API key creates episodes, reads full reports and controls
faults; an episode's token reaches that episode only and never sees how it is checked.

Each test here would have failed before: the gym API answered all of this without any
credential, so an agent could create a probe episode of its own task and seed, finish it at
once and read the verifier's expectations from the report."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.registry import Tokens

from .conftest import TASK, agent, operator

MakeEnv = Callable[..., Env]


def test_nothing_but_health_answers_without_a_credential(local: LocalServer,
                                                         make_env: MakeEnv) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    for method, path, body in [
        ("POST", "/v1/episodes", {"task": TASK, "seed": 1}),
        ("GET", f"/v1/episodes/{obs.episode_id}", None),
        ("POST", f"/v1/episodes/{obs.episode_id}/finish", {}),
        ("DELETE", f"/v1/episodes/{obs.episode_id}", None),
        ("GET", f"/v1/control/episodes/{obs.episode_id}/faults", None),
        ("GET", "/v1/tasks", None), ("GET", f"/v1/tasks/{TASK}", None),
        ("GET", "/v1/faults", None), ("GET", "/v1/version", None),
        ("GET", "/v1/apps/helpdesk/openapi.json", None),
        ("GET", "/apps/helpdesk/api/v2/tickets", None),
    ]:
        response = local.request(method, path, json=body)
        assert response.status_code == 401, (method, path, response.text)
        assert refusal(response)["code"] in ("missing_credential", "missing_token")
    assert local.request("GET", "/healthz").status_code == 200
    assert env.state()["status"] == "active"  # nothing above touched the episode


def _operator_only(response: httpx.Response) -> None:
    """An operator call refused to an episode's token: a 403 naming the rule."""
    assert response.status_code == 403, response.text
    assert response.json()["error"] == {
        "code": "operator_only", "field": "authorization", "rule": "episode_token_scope",
        "message": refusal(response)["message"]}
    assert "operator" in refusal(response)["message"]


def test_an_agent_token_cannot_create_episodes_or_control_faults(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    for token in (obs.token, obs.refresh_token):
        headers = {"authorization": f"Bearer {token}"}
        _operator_only(local.request("POST", "/v1/episodes", json={"task": TASK, "seed": 1},
                                     headers=headers))
        _operator_only(local.request("POST", f"/v1/control/episodes/{obs.episode_id}/faults",
                                     json={"kind": "latency"}, headers=headers))
        _operator_only(local.request("DELETE", f"/v1/episodes/{obs.episode_id}",
                                     headers=headers))
    assert env.state()["status"] == "active"


def test_an_agent_token_never_reaches_the_catalogue(local: LocalServer,
                                                     make_env: MakeEnv) -> None:
    """The catalogue names the agent's task and says what it is about (its title and tags);
    the fault kinds and presets are fault plans; the environment version tells which task
    files are served: the operator's alone."""
    env = make_env(TASK, 1)
    obs = env.reset()
    for path in ("/v1/tasks", f"/v1/tasks/{TASK}", "/v1/faults", "/v1/version"):
        for token in (obs.token, obs.refresh_token):
            _operator_only(local.request("GET", path,
                                         headers={"authorization": f"Bearer {token}"}))
        assert local.request("GET", path, headers=operator(local)).status_code == 200
    # The agent's own calls still work: its app, its status, its OpenAPI documents.
    assert env.call("GET", "/api/v2/groups").status_code == 200
    for path in (f"/v1/episodes/{obs.episode_id}", "/v1/apps/helpdesk/openapi.json"):
        assert local.request("GET", path, headers=agent(env)).status_code == 200


# What an episode's agent reads of it, and what its operator reads besides.
AGENT_VIEW = {"id", "status", "steps", "max_steps", "apps", "roots", "expires_at", "lost_reason"}
OPERATOR_VIEW = AGENT_VIEW | {"task", "seed", "created_at", "report"}


def test_the_agent_sees_its_episodes_status_never_its_task_or_seed(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 4)
    obs = env.reset()
    task = catalogue().get(TASK)
    path = f"/v1/episodes/{obs.episode_id}"
    assert env.call("GET", "/api/v2/groups").status_code == 200
    mine = local.request("GET", path, headers=agent(env))
    assert set(mine.json()) == AGENT_VIEW
    assert mine.json()["status"] == "active"
    assert (mine.json()["steps"], mine.json()["max_steps"]) == (1, obs.max_steps)
    for secret in (TASK, task.title, *task.tags, '"seed"', '"task"'):
        assert secret not in mine.text
    ack = local.request("POST", f"{path}/finish", json={}, headers=agent(env))
    assert ack.json() == {"episode_id": obs.episode_id, "status": "finished", "steps": 1}
    after = local.request("GET", path, headers=agent(env)).json()
    assert set(after) == AGENT_VIEW and after["status"] == "finished"
    # The operator's view is whole: the task, the seed and the report.
    full = local.request("GET", path, headers=operator(local)).json()
    assert set(full) == OPERATOR_VIEW
    assert (full["task"], full["seed"], full["steps"]) == (TASK, 4, 1)
    assert full["report"]["task"] == TASK and full["report"]["signature"]
    assert {k: full[k] for k in AGENT_VIEW} == after


def test_the_agent_may_finish_but_learns_nothing_of_the_verifier(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 4)
    obs = env.reset()
    assert env.call("GET", "/api/v2/groups").status_code == 200
    mine = local.request("GET", f"/v1/episodes/{obs.episode_id}", headers=agent(env)).json()
    assert mine["status"] == "active" and "report" not in mine
    ack = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish",
                        json={"answer": "done"}, headers=agent(env))
    assert ack.status_code == 200
    assert ack.json() == {"episode_id": obs.episode_id, "status": "finished", "steps": 1}
    checks = [a.name for a in catalogue().get(TASK).verifier.root]  # e.g. customer_told
    for secret in ("assertions", "reward", "signals", "success", *checks):
        assert secret not in ack.text
    after = local.request("GET", f"/v1/episodes/{obs.episode_id}", headers=agent(env)).json()
    assert after["status"] == "finished" and "report" not in after
    # The operator reads the whole report, the agent's answer in it, signed by the gym.
    report = local.request("GET", f"/v1/episodes/{obs.episode_id}",
                           headers=operator(local)).json()["report"]
    assert report["answer"] == "done" and report["assertions"] and report["signature"]
    again = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish", json={},
                          headers=agent(env))
    assert "assertions" not in again.text  # finishing twice reveals nothing either


@pytest.mark.parametrize("credential", ["", "wgk_guess", "Bearer", "ep_1.2.3.4"])
def test_wrong_operator_keys_are_refused(local: LocalServer, credential: str) -> None:
    response = local.request("POST", "/v1/episodes", json={"task": TASK, "seed": 1},
                             headers={"authorization": f"Bearer {credential}"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"


def test_what_a_replica_holds_cannot_mint_an_episode_token(
        local: LocalServer, make_env: MakeEnv) -> None:
    settings = local.server.settings
    env = make_env(TASK, 1)
    obs = env.reset()
    assert settings.token_secret and settings.token_secret != settings.internal_secret
    # A token for this episode's id (and one for an id nobody has), signed with the secret
    # every replica holds: no genuine token, so no oracle of what exists either.
    for episode_id in (obs.episode_id, "ep_0000000000000000"):
        forged = Tokens(settings.internal_secret).mint(episode_id, time.time() + 600)
        for path in ("/apps/helpdesk/api/v2/groups", f"/v1/episodes/{episode_id}"):
            refused = local.request("GET", path, headers={"authorization": f"Bearer {forged}"})
            assert refused.status_code in (401, 404), (path, refused.text)
            assert refusal(refused)["code"] in ("invalid_token", "episode_not_found")
    assert env.call("GET", "/api/v2/groups").status_code == 200  # the genuine one works
