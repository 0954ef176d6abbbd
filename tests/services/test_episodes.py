"""The gym API: creating, reading, finishing and deleting episodes; the catalogue."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from tests.refusals import refusal
from workgym.errors import WorkGymClientError
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.errors import NotFound

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone


def _gym(local: LocalServer, method: str, path: str, *, operator: bool = True,
         **kwargs: Any) -> httpx.Response:
    """A gym API call, with the operator's API key unless ``operator`` is False."""
    if operator:
        kwargs.setdefault("headers", {"authorization":
                                      f"Bearer {local.server.settings.api_key}"})
    return local.request(method, f"http://workgym.local{path}", **kwargs)


def test_create_returns_everything_an_agent_needs(make_env: Callable[..., Env]) -> None:
    obs = make_env(TASK, 3).reset()
    assert obs.episode_id.startswith("ep_") and obs.token.startswith(obs.episode_id + ".")
    assert obs.apps == {"helpdesk": "http://workgym.local/apps/helpdesk"}
    # The instance's instruction, rendered from its seed's draw: never the template.
    assert "{{" not in obs.instruction and "@" in obs.instruction
    assert obs.instruction != make_env(TASK, 4).reset().instruction
    names = {tool["function"]["name"] for tool in obs.tools}
    assert {"helpdesk_search", "helpdesk_update_user", "helpdesk_update_ticket"} <= names
    assert all(tool["type"] == "function" for tool in obs.tools)
    assert obs.max_steps > 0


def test_episode_routes_need_a_credential_and_answer_alike_for_others(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    a, b = make_env(TASK, 1), make_env(TASK, 1)
    obs_a, obs_b = a.reset(), b.reset()
    path = f"/v1/episodes/{obs_a.episode_id}"

    def get(token: str | None, where: str = path) -> httpx.Response:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return _gym(local, "GET", where, operator=False, headers=headers)

    assert get(None).status_code == 401
    assert refusal(get(None))["code"] == "missing_credential"
    own = get(obs_a.token).json()
    assert own["status"] == "active" and "report" not in own
    # Another episode's token, a tampered token and an unknown id: the same 404.
    tampered = obs_a.token[:-1] + ("A" if obs_a.token[-1] != "A" else "B")
    unknown = "/v1/episodes/ep_0000000000000000"
    refusals = [get(obs_b.token), get(tampered), get(obs_a.token, unknown),
                get(obs_b.token, unknown),
                _gym(local, "POST", f"{path}/finish", operator=False,
                     headers={"authorization": f"Bearer {obs_b.token}"})]
    for refused in refusals:
        assert refused.status_code == 404, refused.text
        assert refusal(refused)["code"] == "episode_not_found"
    assert len({refusal(r)["message"].replace(obs_a.episode_id, "ID").replace(
        "ep_0000000000000000", "ID") for r in refusals}) == 1


def test_finish_is_idempotent_and_closes_the_episode(make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 2)
    env.reset()
    first = env.finish()
    assert env.finish() == first
    refused = env.call("GET", "/api/v2/tickets")
    assert refused.status_code == 409
    assert refusal(refused)["code"] == "episode_finished"
    assert env.state()["report"] == first


def test_delete_reclaims_the_replica_state(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    env = make_env(TASK, 2)
    obs = env.reset()
    store = local.server.replicas["helpdesk"].state.store
    assert store.get(obs.episode_id)
    env.close()
    with pytest.raises(NotFound) as lost:
        store.get(obs.episode_id)
    assert lost.value.code == "episode_not_found"
    gone = local.request("GET", obs.apps["helpdesk"] + "/api/v2/tickets",
                         headers={"authorization": f"Bearer {obs.token}"})
    assert gone.status_code == 410
    assert refusal(gone)["code"] == "episode_deleted"


def test_step_budget_is_enforced(make_env: Callable[..., Env]) -> None:
    env = make_env(TASK, 2)
    obs = env.reset()
    for _ in range(obs.max_steps):
        assert env.call("GET", "/api/v2/groups").status_code == 200
    spent = env.call("GET", "/api/v2/groups")
    assert spent.status_code == 409
    assert refusal(spent)["code"] == "step_budget_exhausted"
    assert env.finish()["steps"] == obs.max_steps


def test_catalogue_never_reveals_how_tasks_are_checked(local: LocalServer) -> None:
    listing = _gym(local, "GET", "/v1/tasks").json()
    assert {"id", "suite", "apps", "title", "difficulty", "tags"} == set(listing[0])
    assert TASK in {t["id"] for t in listing}
    detail = _gym(local, "GET", f"/v1/tasks/{TASK}").json()
    for secret in ("verifier", "reference", "setup", "customer", "answer"):
        assert secret not in detail
    for assertion in catalogue().get(TASK).verifier.root:  # not even the checks' names
        assert assertion.name not in str(detail)
    unknown = _gym(local, "GET", "/v1/tasks/helpdesk/nope")
    assert unknown.status_code == 404 and refusal(unknown)["field"] == "task"


@pytest.mark.parametrize(("body", "field", "status"), [
    ({"task": 5}, "task", 422),
    ({"task": TASK, "seed": -1}, "seed", 422),
    ({"task": TASK, "seed": "seven"}, "seed", 422),
    ({"task": TASK, "colour": "red"}, "colour", 422),
    ({"seed": 1}, "task", 422),
    ({"task": "helpdesk/nope"}, "task", 404),
])
def test_bad_episode_requests_name_the_field(
    local: LocalServer, body: dict[str, object], field: str, status: int
) -> None:
    response = _gym(local, "POST", "/v1/episodes", json=body)
    assert response.status_code == status
    assert refusal(response)["field"] == field


def test_malformed_json_is_a_clear_error(local: LocalServer) -> None:
    response = _gym(local, "POST", "/v1/episodes", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert refusal(response)["code"] == "malformed_json"


def test_sdk_raises_the_json_error(make_env: Callable[..., Env]) -> None:
    with pytest.raises(WorkGymClientError, match="task_not_found"):
        make_env("helpdesk/nope").reset()


def test_gym_openapi_document_validates(local: LocalServer) -> None:
    assert local.server.gym is not None
    validate(local.server.gym.openapi())
    validate(_gym(local, "GET", "/v1/apps/helpdesk/openapi.json").json())


def test_make_reuses_the_processs_server(tmp_path: Path) -> None:
    import workgym
    from workgym_core.settings import Settings

    settings = [Settings(data_dir=tmp_path), Settings(data_dir=tmp_path)]
    first, second = (workgym.make(TASK, settings=s) for s in settings)
    # One in-process server per settings: both clients send through its transport.
    assert first._http._transport is second._http._transport  # noqa: SLF001
