"""The fault control API: an operator changes a running episode's faults with the API key
(never an agent's token), changes take effect on the next request, bad configs are refused
naming the field, and every plugin publishes its config schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings
from workgym_proxy.faults import PLUGINS

from .conftest import trajectory

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
MakeEnv = Callable[..., Env]


def _url(env: Env, suffix: str = "") -> str:
    assert env.observation is not None
    return f"/v1/control/episodes/{env.observation.episode_id}/faults{suffix}"


def _control(settings: Settings) -> dict[str, str]:
    return {"authorization": f"Bearer {settings.api_key}"}


def _faults(local: LocalServer, env: Env) -> list[str | None]:
    assert env.observation is not None
    steps = trajectory(local, env.observation.episode_id)
    return [step.fault for step in steps]


def test_the_control_api_needs_the_api_key(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    fault = {"kind": "server_error"}
    agent = {"authorization": f"Bearer {obs.token}"}
    refresh = {"authorization": f"Bearer {obs.refresh_token}"}
    for headers in ({}, agent, refresh, {"authorization": "Bearer wrong"},
                    {"authorization": settings.api_key},
                    {"authorization": f"Bearer {settings.api_key}x"}):
        for method, url, kwargs in (("GET", _url(env), {}), ("POST", _url(env), {"json": fault}),
                                    ("DELETE", _url(env, "/0"), {})):
            response = local.request(method, url, headers=headers, **kwargs)
            # An episode's own tokens are known but not the operator's: 403, not 401.
            status = 403 if headers in (agent, refresh) else 401
            assert response.status_code == status, (method, headers, response.text)
            assert response.json()["error"]["code"] in (
                "missing_credential", "invalid_api_key", "operator_only")
    # Nothing was added, and the agent's requests are untouched.
    assert local.request("GET", _url(env), headers=_control(settings)).json() == []
    assert env.call("GET", "/api/v2/groups").status_code == 200


def test_list_returns_the_plan_with_its_defaults(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    env = make_env(TASK, 1, [{"kind": "latency", "delay_ms": 1},
                             {"kind": "server_error", "statuses": [502], "toxicity": 0.25}])
    env.reset()
    response = local.request("GET", _url(env), headers=_control(settings))
    assert response.status_code == 200
    latency, server_error = response.json()
    assert latency == {"kind": "latency", "delay_ms": 1, "jitter_ms": 0, "toxicity": 1.0,
                       "target": {"app": None, "method": None, "path": None, "reads": None},
                       "window": {"start": 1, "end": None, "once": False}}
    assert server_error["kind"] == "server_error"
    assert server_error["statuses"] == [502]
    assert server_error["toxicity"] == 0.25


def test_added_fault_acts_on_the_next_request_and_removed_stops(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    env = make_env(TASK, 1, "none")
    env.reset()
    assert env.call("GET", "/api/v2/groups").status_code == 200
    added = local.request("POST", _url(env), headers=_control(settings), json={
        "kind": "server_error", "statuses": [503], "target": {"path": "/api/v2/groups"}})
    assert added.status_code == 201
    assert [f["kind"] for f in added.json()] == ["server_error"]
    assert env.call("GET", "/api/v2/groups").status_code == 503
    assert env.call("GET", "/api/v2/users").status_code == 200  # not its target
    second = local.request("POST", _url(env), headers=_control(settings),
                           json={"kind": "latency", "delay_ms": 1})
    assert [f["kind"] for f in second.json()] == ["server_error", "latency"]
    assert env.call("GET", "/api/v2/groups").status_code == 503
    removed = local.request("DELETE", _url(env, "/0"), headers=_control(settings))
    assert removed.status_code == 200
    assert [f["kind"] for f in removed.json()] == ["latency"]
    assert env.call("GET", "/api/v2/groups").status_code == 200
    assert local.request("DELETE", _url(env, "/0"), headers=_control(settings)).json() == []
    assert env.call("GET", "/api/v2/groups").status_code == 200
    # On step 3 the server error answered first: the latency after it in the plan never acted.
    assert _faults(local, env) == [None, "server_error", None, "server_error", "latency", None]
    report = env.finish()
    assert [(f["step"], f["kind"]) for f in report["faults"]] == [
        (1, "server_error"), (3, "server_error"), (4, "latency")]


def test_removing_a_fault_that_is_not_there_is_404(
    make_env: MakeEnv, local: LocalServer, settings: Settings
) -> None:
    env = make_env(TASK, 1, [{"kind": "latency", "delay_ms": 1}])
    env.reset()
    for index in ("1", "99"):
        response = local.request("DELETE", _url(env, f"/{index}"), headers=_control(settings))
        assert response.status_code == 404, index
        assert response.json()["error"]["code"] == "fault_not_found"
        assert response.json()["error"]["field"] == "index"
    for index in ("first", "-1"):
        response = local.request("DELETE", _url(env, f"/{index}"), headers=_control(settings))
        assert response.status_code == 422
    assert len(local.request("GET", _url(env), headers=_control(settings)).json()) == 1


def test_unknown_episode_is_404(local: LocalServer, settings: Settings) -> None:
    url = "/v1/control/episodes/ep_0000000000000000/faults"
    for method, kwargs in (("GET", {}), ("POST", {"json": {"kind": "latency"}})):
        response = local.request(method, url, headers=_control(settings), **kwargs)
        assert response.status_code == 404, method
        assert response.json()["error"]["code"] == "episode_not_found"
    response = local.request("DELETE", url + "/0", headers=_control(settings))
    assert response.status_code == 404


BAD_CONFIGS: list[tuple[dict[str, Any], str]] = [
    ({"kind": "server_error", "toxicity": 2}, "faults.0.toxicity"),
    ({"kind": "server_error", "toxicity": -0.1}, "faults.0.toxicity"),
    ({"kind": "latency", "delay_ms": -1}, "faults.0.delay_ms"),
    ({"kind": "server_error", "statuses": [404]}, "faults.0.statuses.0"),
    ({"kind": "server_error", "statuses": []}, "faults.0.statuses"),
    ({"kind": "rate_limit", "retry_after_s": 0}, "faults.0.retry_after_s"),
    ({"kind": "truncated_body", "keep": 1}, "faults.0.keep"),
    ({"kind": "state_drift"}, "faults.0.ops"),
    ({"kind": "server_error", "bogus": 1}, "faults.0.bogus"),
    ({"kind": "server_error", "window": {"start": 0}}, "faults.0.window.start"),
    ({"kind": "server_error", "target": {"verb": "GET"}}, "faults.0.target.verb"),
    ({"kind": "server_error", "target": {"path": "("}}, "faults.0.target.path"),
    ({"kind": "explode"}, "faults.0.kind"),
    ({"toxicity": 1}, "faults.0.kind"),
]


@pytest.mark.parametrize(("config", "field"), BAD_CONFIGS,
                         ids=[field + ":" + repr(config) for config, field in BAD_CONFIGS])
def test_a_bad_config_is_422_naming_the_field(
    make_env: MakeEnv, local: LocalServer, settings: Settings, config: dict[str, Any],
    field: str,
) -> None:
    env = make_env(TASK, 1, "none")
    env.reset()
    response = local.request("POST", _url(env), headers=_control(settings), json=config)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["field"] == field, response.text
    assert local.request("GET", _url(env), headers=_control(settings)).json() == []
    # The same config in a new episode's plan is refused the same way.
    created = local.request("POST", "/v1/episodes", headers=_control(settings),
                            json={"task": TASK, "seed": 1, "faults": [config]})
    assert created.status_code == 422, created.text
    assert created.json()["error"]["field"] == field


def test_every_plugin_publishes_its_schema(local: LocalServer, settings: Settings) -> None:
    response = local.request("GET", "/v1/faults", headers=_control(settings))
    assert response.status_code == 200
    body = response.json()
    assert set(body["plugins"]) == set(PLUGINS) == {
        "latency", "timeout_before", "timeout_after", "server_error", "rate_limit",
        "connection_reset", "token_expiry", "state_drift", "schema_drift", "truncated_body",
        "duplicate_delivery"}
    own = {"latency": {"delay_ms", "jitter_ms"}, "timeout_before": {"delay_ms"},
           "timeout_after": {"delay_ms"}, "server_error": {"statuses"},
           "rate_limit": {"retry_after_s", "refusals"}, "connection_reset": set(),
           "token_expiry": set(),
           "state_drift": {"ops"}, "schema_drift": {"rename", "legacy_dates"},
           "truncated_body": {"keep"}, "duplicate_delivery": set()}
    for kind, schema in body["plugins"].items():
        properties = schema["properties"]
        assert set(properties) == {"kind", "toxicity", "target", "window"} | own[kind], kind
        assert properties["kind"]["const"] == kind
        assert properties["toxicity"]["minimum"] == 0 and properties["toxicity"]["maximum"] == 1
        assert schema.get("additionalProperties") is False, kind
        assert all(p.get("description") for name, p in properties.items()
                   if name not in ("kind", "target", "window")), kind
    assert set(body["presets"]) >= {"none", "hard"}
    assert body["presets"]["none"] == []
