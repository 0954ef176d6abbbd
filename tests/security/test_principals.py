"""Two principals: the operator's API key creates episodes, reads full reports and controls
faults; an episode's token reaches that episode only and never sees how it is checked.

Each test here would have failed before: the gym API answered all of this without any
credential, so an agent could create a probe episode of its own task and seed, finish it at
once and read the verifier's expectations from the report."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

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
        ("GET", "/v1/faults", None), ("GET", "/v1/apps/helpdesk/openapi.json", None),
        ("GET", "/apps/helpdesk/api/v2/tickets", None),
    ]:
        response = local.request(method, path, json=body)
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["error"]["code"] in ("missing_credential", "missing_token")
    assert local.request("GET", "/healthz").status_code == 200
    assert env.state()["status"] == "active"  # nothing above touched the episode


def test_an_agent_token_cannot_create_episodes_or_control_faults(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 1)
    obs = env.reset()
    for token in (obs.token, obs.refresh_token):
        headers = {"authorization": f"Bearer {token}"}
        probe = local.request("POST", "/v1/episodes", json={"task": TASK, "seed": 1},
                              headers=headers)
        assert probe.status_code == 401 and probe.json()["error"]["code"] == "invalid_api_key"
        control = local.request("POST", f"/v1/control/episodes/{obs.episode_id}/faults",
                                json={"kind": "latency"}, headers=headers)
        assert control.status_code == 401
        delete = local.request("DELETE", f"/v1/episodes/{obs.episode_id}", headers=headers)
        assert delete.status_code == 401
    assert env.state()["status"] == "active"


def test_the_agent_may_finish_but_learns_nothing_of_the_verifier(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 4)
    obs = env.reset()
    assert env.call("GET", "/api/v2/groups").status_code == 200
    mine = local.request("GET", f"/v1/episodes/{obs.episode_id}", headers=agent(env)).json()
    assert mine["status"] == "active" and mine["report"] is None
    ack = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish",
                        json={"answer": "done"}, headers=agent(env))
    assert ack.status_code == 200
    assert ack.json() == {"episode_id": obs.episode_id, "status": "finished", "steps": 1}
    checks = [a.name for a in catalogue().get(TASK).verifier.root]  # e.g. customer_told
    for secret in ("assertions", "reward", "signals", "success", *checks):
        assert secret not in ack.text
    after = local.request("GET", f"/v1/episodes/{obs.episode_id}", headers=agent(env)).json()
    assert after["status"] == "finished" and after["report"] is None
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
