"""Fault plugins through the real stack: each one fires deterministically, does what it
documents to the request and the world, and is recorded on the trajectory and the report."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env

from .conftest import TASK, auth, task_ticket, trajectory

Fault = dict[str, Any]
MakeEnv = Callable[..., Env]




def _faults(local: LocalServer, env: Env) -> list[str | None]:
    """The fault recorded on each step of the episode's trajectory, in order."""
    assert env.observation is not None
    steps = trajectory(local, env.observation.episode_id)
    return [step.fault for step in steps]


def _reported(env: Env) -> list[tuple[int, str, int]]:
    """(step, kind, status) of every fault in the finish report."""
    return [(f["step"], f["kind"], f["status"]) for f in env.finish()["faults"]]


def _comments(env: Env, ticket: int) -> list[str]:
    response = env.call("GET", f"/api/v2/tickets/{ticket}/comments", params={"per_page": 100})
    assert response.status_code == 200, response.text
    return [c["body"] for c in response.json()["comments"]]


def _reply(env: Env, ticket: int, body: str) -> httpx.Response:
    """A write: a comment on the ticket (Zendesk adds comments through an update)."""
    return env.call("PUT", f"/api/v2/tickets/{ticket}",
                    json={"ticket": {"comment": {"body": body, "public": False}}})


def _error(response: httpx.Response) -> str:
    return str(refusal(response)["code"])


# --- one plugin at a time -----------------------------------------------------------------


def test_timeout_before_answers_504_without_applying_the_write(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 1, [{"kind": "timeout_before", "delay_ms": 10,
                              "target": {"method": "PUT"}}])
    env.reset()
    ticket = task_ticket(local, env)
    before = _comments(env, ticket)
    response = _reply(env, ticket, "lost?")
    assert response.status_code == 504
    assert response.headers["content-type"] == "application/json"
    assert _error(response) == "gateway_timeout"
    assert _comments(env, ticket) == before  # never reached the replica
    assert _faults(local, env) == [None, "timeout_before", None]
    assert _reported(env) == [(1, "timeout_before", 504)]


def test_timeout_after_applies_the_write_but_answers_504(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 1, [{"kind": "timeout_after", "delay_ms": 10,
                              "target": {"method": "PUT"}}])
    env.reset()
    ticket = task_ticket(local, env)
    response = _reply(env, ticket, "applied anyway")
    assert response.status_code == 504
    assert _error(response) == "gateway_timeout"
    assert _comments(env, ticket).count("applied anyway") == 1  # the row exists
    assert _faults(local, env) == ["timeout_after", None]
    assert _reported(env) == [(0, "timeout_after", 504)]


@pytest.mark.parametrize(("status", "content_type", "marker"), [
    (500, "application/json", "internal_error"),
    (502, "text/html", "<h1>502 Bad Gateway</h1>"),
    (503, "application/json", "service_unavailable"),
])
def test_server_error_sends_a_real_servers_body_and_applies_nothing(
    make_env: MakeEnv, local: LocalServer, status: int, content_type: str, marker: str
) -> None:
    env = make_env(TASK, 1, [{"kind": "server_error", "statuses": [status],
                              "target": {"method": "PUT"}}])
    env.reset()
    ticket = task_ticket(local, env)
    response = _reply(env, ticket, "not applied")
    assert response.status_code == status
    assert response.headers["content-type"] == content_type
    assert marker in response.text
    if status == 502:
        assert response.headers["server"] == "nginx"
        assert response.text.startswith("<html>")
    else:
        assert response.json()["error"]["message"]
    if status == 503:
        assert response.headers["retry-after"] == "1"
    assert "not applied" not in _comments(env, ticket)
    assert _faults(local, env) == ["server_error", None]
    assert _reported(env) == [(0, "server_error", status)]


def test_server_error_status_is_drawn_from_the_configured_list(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 3, [{"kind": "server_error", "statuses": [500, 503]}])
    env.reset()
    statuses = {env.call("GET", "/api/v2/groups").status_code for _ in range(12)}
    assert statuses == {500, 503}


def test_rate_limit_refuses_a_counted_burst_whatever_the_timing(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 1, [{"kind": "rate_limit", "retry_after_s": 1, "refusals": 2,
                              "window": {"start": 1, "end": 1}}])
    env.reset()
    first = env.call("GET", "/api/v2/groups")
    assert first.status_code == 429
    assert first.headers["retry-after"] == "1"
    assert _error(first) == "rate_limited"
    time.sleep(1.1)  # waiting changes nothing: refusals are counted in requests
    again = env.call("GET", "/api/v2/groups")  # outside the window, but the burst is not spent
    assert again.status_code == 429
    assert again.headers["retry-after"] == "1"
    assert env.call("GET", "/api/v2/groups").status_code == 200  # at once: the burst is spent
    assert _faults(local, env) == ["rate_limit", "rate_limit", None]
    report = env.finish()
    assert [(f["step"], f["kind"], f["status"], f["recovered"]) for f in report["faults"]] == [
        (0, "rate_limit", 429, True), (1, "rate_limit", 429, True)]


def test_connection_reset_drops_the_connection_and_applies_nothing(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 1, [{"kind": "connection_reset", "target": {"method": "PUT"}}])
    env.reset()
    ticket = task_ticket(local, env)
    with pytest.raises(httpx.TransportError):
        _reply(env, ticket, "dropped")
    assert "dropped" not in _comments(env, ticket)
    # The tool surface reports the drop as status 0 instead of raising.
    assert env.call_tool("helpdesk_update_ticket", {
        "ticket_id": ticket, "ticket": {"comment": {"body": "dropped"}}})["status"] == 0
    assert env.observation is not None
    steps = trajectory(local, env.observation.episode_id)
    assert [s.status for s in steps] == [0, 200, 0]  # 0: the agent got no response
    assert _faults(local, env) == ["connection_reset", None, "connection_reset"]
    assert _reported(env) == [(0, "connection_reset", 0), (2, "connection_reset", 0)]


def test_token_expiry_until_the_token_is_refreshed(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "token_expiry", "window": {"start": 2, "end": 2}}])
    obs = env.reset()
    old = auth(env)
    assert env.call("GET", "/api/v2/groups").status_code == 200
    for _ in range(2):  # the step it fires on, and every request with that token after it
        expired = env.call("GET", "/api/v2/groups")
        assert expired.status_code == 401
        assert _error(expired) == "token_expired"
        assert expired.headers["www-authenticate"] == (  # RFC 6750, whatever the app's shape
            'Bearer error="invalid_token", error_description="The access token expired"')
    new = env.refresh_token()
    assert new != obs.token
    assert env.call("GET", "/api/v2/groups").status_code == 200
    stale = local.request("GET", obs.apps["helpdesk"] + "/api/v2/groups", headers=old)
    assert stale.status_code == 401
    assert _error(stale) == "invalid_token"
    assert _faults(local, env) == [None, "token_expiry", "token_expiry", None]
    report = env.finish()
    assert [(f["step"], f["kind"], f["status"], f["recovered"]) for f in report["faults"]] == [
        (1, "token_expiry", 401, True), (2, "token_expiry", 401, True)]


def test_an_agent_of_tools_alone_refreshes_its_token_with_a_tool(make_env: MakeEnv) -> None:
    env = make_env(TASK, 1, [{"kind": "token_expiry", "window": {"start": 1, "end": 1}}])
    obs = env.reset()
    refresh = next(t["function"] for t in obs.tools
                   if t["function"]["name"] == "workgym_refresh_token")
    assert "expired" in refresh["description"]
    assert env.call_tool("helpdesk_list_groups", {})["status"] == 401
    refreshed = env.call_tool("workgym_refresh_token", {})
    assert (refreshed["status"], refreshed["body"]) == (200, {"refreshed": True})
    assert env.call_tool("helpdesk_list_groups", {})["status"] == 200


def test_state_drift_lands_after_its_request_on_the_row_as_it_is_then(
    make_env: MakeEnv, local: LocalServer
) -> None:
    """Another actor changes the ticket right after the agent's first accepted update: the
    agent's own change to the row survives (the drift's values name the row as it is then,
    ``this``), and the rows it changed are on the trajectory for the recovery rule."""
    env = make_env(TASK, 1, [{
        "kind": "state_drift", "target": {"method": "PUT"}, "window": {"start": 1, "end": 1},
        "ops": [{"update": "tickets", "id": "$ticket.id",
                 "values": {"subject": "{{ this.subject }} [Billing]", "priority": "urgent"}}],
    }])
    env.reset()
    ticket = task_ticket(local, env)
    before = env.call("GET", f"/api/v2/tickets/{ticket}").json()["ticket"]
    assert before["priority"] == "low"
    renamed = env.call("PUT", f"/api/v2/tickets/{ticket}",
                       json={"ticket": {"subject": "Renamed by the agent", "tags": ["vip"]}})
    assert renamed.status_code == 200
    assert renamed.json()["ticket"]["priority"] == "low"  # the answer is from before it
    after = env.call("GET", f"/api/v2/tickets/{ticket}").json()["ticket"]
    assert after["subject"] == "Renamed by the agent [Billing]"
    assert after["priority"] == "urgent" and "vip" in after["tags"]
    assert _faults(local, env) == [None, "state_drift", None]
    assert env.observation is not None
    steps = trajectory(local, env.observation.episode_id)
    assert steps[1].affected == [{"table": "tickets", "op": "update", "id": ticket,
                                  "ref": ticket}]
    assert _reported(env) == [(1, "state_drift", 200)]


def test_schema_drift_renames_fields_and_uses_legacy_dates(
    make_env: MakeEnv, local: LocalServer
) -> None:
    env = make_env(TASK, 1, [{"kind": "schema_drift", "window": {"start": 2, "end": 2},
                              "rename": {"subject": "title"}, "legacy_dates": True}])
    env.reset()
    ticket = task_ticket(local, env)
    normal = env.call("GET", f"/api/v2/tickets/{ticket}").json()["ticket"]
    drifted = env.call("GET", f"/api/v2/tickets/{ticket}").json()["ticket"]
    assert "subject" not in drifted
    assert drifted["title"] == normal["subject"]
    created = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):\d{2}Z", normal["created_at"])
    assert created is not None
    year, month, day, hour, minute = created.groups()
    assert drifted["created_at"] == f"{month}/{day}/{year} {hour}:{minute}"
    assert normal["due_at"] is None and drifted["due_at"] is None  # no date: left alone
    assert _faults(local, env) == [None, "schema_drift"]
    assert _reported(env) == [(1, "schema_drift", 200)]


def test_truncated_body_cuts_the_response(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "truncated_body", "keep": 0.5,
                              "window": {"start": 2, "end": 2}}])
    obs = env.reset()
    full = env.call("GET", "/api/v2/groups").content
    cut = env.call("GET", "/api/v2/groups")
    assert cut.status_code == 200
    assert cut.content == full[: len(full) // 2]
    with pytest.raises(ValueError):
        cut.json()
    steps = trajectory(local, obs.episode_id)
    assert steps[1].response_body is None  # not JSON any more
    assert [s.fault for s in steps] == [None, "truncated_body"]
    assert _reported(env) == [(1, "truncated_body", 200)]


def test_duplicate_delivery_applies_a_write_twice(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "duplicate_delivery", "target": {"method": "PUT"}}])
    env.reset()
    ticket = task_ticket(local, env)
    response = _reply(env, ticket, "twice")  # a comment is no idempotent update
    assert response.status_code == 200
    assert _comments(env, ticket).count("twice") == 2
    assert _faults(local, env) == ["duplicate_delivery", None]
    assert _reported(env) == [(0, "duplicate_delivery", 200)]


def test_latency_delays_the_request(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "latency", "delay_ms": 20,
                              "window": {"start": 2, "end": 2}}])
    obs = env.reset()
    plain = env.call("GET", "/api/v2/groups")
    started = time.perf_counter()
    delayed = env.call("GET", "/api/v2/groups")
    assert time.perf_counter() - started >= 0.02
    assert delayed.status_code == 200 and delayed.content == plain.content
    steps = trajectory(local, obs.episode_id)
    assert [s.fault for s in steps] == [None, "latency"]
    assert steps[1].duration_ms >= 20
    assert _reported(env) == [(1, "latency", 200)]


# --- targeting, windows and combinations ----------------------------------------------------


def test_target_and_window_limit_where_a_fault_fires(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "server_error", "statuses": [500],
                              "target": {"method": "get",
                                         "path": ["/api/v2/groups", "/api/v2/groups/*"]},
                              "window": {"start": 3, "end": 4}}])
    env.reset()
    # The window counts the requests the target matches, not the episode's.
    statuses = [env.call(method, path).status_code for method, path in [
        ("GET", "/api/v2/groups"), ("GET", "/api/v2/users"),  # match 1, then none
        ("GET", "/api/v2/groups/1"),  # match 2
        ("GET", "/api/v2/groups/1"), ("GET", "/api/v2/users"),  # match 3 (in the window), none
        ("GET", "/api/v2/groups"),  # match 4: still in it
        ("GET", "/api/v2/groups"),  # match 5: after it
    ]]
    assert statuses == [200, 200, 200, 500, 200, 500, 200]
    assert _faults(local, env) == [None, None, None, "server_error", None, "server_error", None]


def test_extra_requests_elsewhere_do_not_move_a_window(make_env: MakeEnv) -> None:
    # A fault on the first write of a kind fires on it however many reads come before.
    plan = [{"kind": "server_error", "statuses": [503],
             "target": {"method": "POST", "path": "/api/v2/users"},
             "window": {"start": 1, "end": 1}}]
    for reads in (0, 3):
        env = make_env(TASK, 1, plan)
        env.reset()
        for _ in range(reads):
            assert env.call("GET", "/api/v2/users").status_code == 200
        created = env.call("POST", "/api/v2/users", json={"user": {"name": f"Ops {reads}"}})
        assert created.status_code == 503


def test_toxicity_zero_never_fires(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [{"kind": "server_error", "toxicity": 0}])
    env.reset()
    assert {env.call("GET", "/api/v2/groups").status_code for _ in range(10)} == {200}
    assert _faults(local, env) == [None] * 10


def test_faults_on_one_step_are_all_recorded(make_env: MakeEnv, local: LocalServer) -> None:
    env = make_env(TASK, 1, [
        {"kind": "server_error", "statuses": [500], "window": {"start": 1, "end": 1}},
        # Acts on the app's answer, which a fault answering in the app's place replaced: it
        # never acted, so it is not recorded.
        {"kind": "latency", "delay_ms": 2_000, "window": {"start": 1, "end": 1}},
        {"kind": "latency", "delay_ms": 20, "window": {"start": 2, "end": 2}},
        {"kind": "truncated_body", "window": {"start": 2, "end": 2}},
        {"kind": "schema_drift", "rename": {"name": "label"}, "window": {"start": 2, "end": 2}},
    ])
    env.reset()
    started = time.perf_counter()
    assert env.call("GET", "/api/v2/groups").status_code == 500
    assert time.perf_counter() - started < 1.5
    assert env.call("GET", "/api/v2/groups").status_code == 200
    assert time.perf_counter() - started >= 0.02
    assert _faults(local, env) == ["server_error", "latency,truncated_body,schema_drift"]
    assert _reported(env) == [(0, "server_error", 500), (1, "latency", 200),
                              (1, "truncated_body", 200), (1, "schema_drift", 200)]


# --- a window counts the requests the app accepts -------------------------------------------


def _invalid_user(env: Env) -> httpx.Response:
    """A write the app refuses (422: a user needs a name)."""
    return env.call("POST", "/api/v2/users", json={"user": {"email": "no-name@example.com"}})


def _users_named(env: Env, name: str) -> int:
    found = env.call("GET", "/api/v2/users/search", params={"query": name})
    assert found.status_code == 200, found.text
    return sum(user["name"] == name for user in found.json()["users"])


@pytest.mark.parametrize("kind", ["timeout_before", "server_error", "connection_reset",
                                  "rate_limit", "timeout_after", "truncated_body"])
def test_a_refused_write_never_takes_a_faults_turn(
    make_env: MakeEnv, local: LocalServer, kind: str
) -> None:
    """"The first user created fails": a throw-away invalid write sent first gets the app's
    own refusal and leaves the fault waiting for the first write the app accepts."""
    env = make_env(TASK, 1, [{"kind": kind, "target": {"method": "POST", "path": "/api/v2/users"},
                              "window": {"start": 1, "end": 1}}])
    env.reset()
    for _ in range(2):
        refused = _invalid_user(env)
        assert refused.status_code == 422, refused.text
    if kind == "connection_reset":
        with pytest.raises(httpx.TransportError):
            env.call("POST", "/api/v2/users", json={"user": {"name": "Ada Ops"}})
    else:
        faulted = env.call("POST", "/api/v2/users", json={"user": {"name": "Ada Ops"}})
        if kind == "truncated_body":
            with pytest.raises(ValueError):
                faulted.json()
        else:
            assert faulted.status_code in (429, 500, 502, 503, 504)
    again = env.call("POST", "/api/v2/users", json={"user": {"name": "Ada Ops"}})
    applied = kind in ("timeout_after", "truncated_body")  # the first attempt went through
    assert again.status_code == 201, again.text
    assert _users_named(env, "Ada Ops") == (2 if applied else 1)
    faults = _faults(local, env)
    assert faults[:2] == [None, None]  # the refused writes
    assert faults[2] == kind


def test_a_validate_only_pass_changes_nothing(make_env: MakeEnv, local: LocalServer) -> None:
    """Deciding that the app would accept the write a fault answers in its place leaves no
    trace: no row, no change on the trajectory, and the app's own answer to the retry."""
    env = make_env(TASK, 1, [{"kind": "server_error", "statuses": [503],
                              "target": {"method": "PUT"}, "window": {"start": 1, "end": 1}}])
    obs = env.reset()
    ticket = task_ticket(local, env)
    before = _comments(env, ticket)
    assert _reply(env, ticket, "once").status_code == 503
    assert _comments(env, ticket) == before
    assert _reply(env, ticket, "once").status_code == 200
    assert _comments(env, ticket) == [*before, "once"]
    steps = trajectory(local, obs.episode_id)
    assert steps[1].changes == [] and steps[3].changes


def test_an_agent_cannot_ask_for_a_validate_only_pass(
    make_env: MakeEnv, local: LocalServer
) -> None:
    """The header is the proxy's: one an agent sends is dropped, its write applied."""
    env = make_env(TASK, 1, "none")
    env.reset()
    ticket = task_ticket(local, env)
    response = env.call("PUT", f"/api/v2/tickets/{ticket}", headers={"x-workgym-validate": "1"},
                        json={"ticket": {"comment": {"body": "kept", "public": False}}})
    assert response.status_code == 200
    assert "kept" in _comments(env, ticket)


def test_a_target_of_tables_read_counts_only_reads_of_them(
    make_env: MakeEnv, local: LocalServer
) -> None:
    """``reads: [tickets]``: the first look at tickets, whatever the path; reads of other
    tables do not count, even when the fault answers in the app's place."""
    env = make_env(TASK, 1, [{"kind": "server_error", "statuses": [500],
                              "target": {"method": "GET", "reads": ["tickets"]},
                              "window": {"start": 1, "end": 1}}])
    env.reset()
    ticket = task_ticket(local, env)
    statuses = [env.call("GET", path).status_code for path in (
        "/api/v2/groups", "/api/v2/groups", f"/api/v2/tickets/{ticket}",
        f"/api/v2/tickets/{ticket}", "/api/v2/groups")]
    assert statuses == [200, 200, 500, 200, 200]
    assert _faults(local, env) == [None, None, "server_error", None, None]


def test_token_expiry_counts_only_accepted_requests(make_env: MakeEnv, local: LocalServer) -> None:
    """"The token expires on the 2nd accepted call": requests the app refuses (a ticket
    that does not exist) do not bring it closer."""
    env = make_env(TASK, 1, [{"kind": "token_expiry", "window": {"start": 2, "end": 2}}])
    env.reset()
    statuses = [env.call("GET", path).status_code for path in (
        "/api/v2/groups", "/api/v2/tickets/999999999", "/api/v2/tickets/999999998",
        "/api/v2/groups")]
    assert statuses == [200, 404, 404, 401]
    assert _faults(local, env) == [None, None, None, "token_expiry"]


# --- determinism ------------------------------------------------------------------------------

HALF = [{"kind": "server_error", "toxicity": 0.5, "statuses": [503]}]


def _fired(make_env: MakeEnv, local: LocalServer, seed: int, plan: list[Fault],
           requests: int = 20) -> list[tuple[int, str | None]]:
    env = make_env(TASK, seed, plan)
    env.reset()
    statuses = [env.call("GET", "/api/v2/groups").status_code for _ in range(requests)]
    faults = _faults(local, env)
    env.close()
    return list(zip(statuses, faults, strict=True))


def test_same_seed_same_requests_same_faults(make_env: MakeEnv, local: LocalServer) -> None:
    first = _fired(make_env, local, 11, HALF)
    assert _fired(make_env, local, 11, HALF) == first
    fired = [i for i, (_, fault) in enumerate(first) if fault]
    assert 0 < len(fired) < 20
    assert all(status == (503 if fault else 200) for status, fault in first)
    others = [[i for i, (_, fault) in enumerate(_fired(make_env, local, seed, HALF)) if fault]
              for seed in (12, 13, 14)]
    assert any(other != fired for other in others)


def test_a_mixed_plan_replays_exactly(make_env: MakeEnv, local: LocalServer) -> None:
    plan: list[Fault] = [
        {"kind": "latency", "toxicity": 0.3, "delay_ms": 1, "jitter_ms": 2},
        {"kind": "server_error", "toxicity": 0.2},
        {"kind": "truncated_body", "toxicity": 0.2},
        {"kind": "schema_drift", "toxicity": 0.2, "legacy_dates": True},
    ]
    runs = []
    for _ in range(2):
        env = make_env(TASK, 21, plan)
        env.reset()
        ticket = task_ticket(local, env)
        bodies = [env.call("GET", f"/api/v2/tickets/{ticket}").content for _ in range(15)]
        runs.append((bodies, _faults(local, env), _reported(env)))
    assert runs[0] == runs[1]
    assert any(runs[0][1]) and not all(runs[0][1])


# --- concurrency --------------------------------------------------------------------------------


def test_concurrent_episodes_keep_their_own_plans(make_env: MakeEnv, local: LocalServer) -> None:
    faulty: list[Fault] = [{"kind": "server_error", "statuses": [500],
                            "target": {"method": "GET", "path": "/api/v2/groups"}}]
    envs = [make_env(TASK, 5, faulty if i % 2 else "none") for i in range(16)]

    def rollout(env: Env) -> tuple[list[int], list[str | None]]:
        env.reset()
        statuses = [env.call("GET", path).status_code
                    for path in ("/api/v2/groups", "/api/v2/users", "/api/v2/groups",
                                 "/api/v2/groups/1", "/api/v2/groups")]
        return statuses, _faults(local, env)

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(rollout, envs))
    for i, (statuses, faults) in enumerate(results):
        if i % 2:
            assert statuses == [500, 200, 500, 200, 500], i
            assert faults == ["server_error", None, "server_error", None, "server_error"], i
        else:
            assert statuses == [200] * 5, i
            assert faults == [None] * 5, i


def test_the_jira_write_limit_preset_refuses_issue_writes(
    make_env: MakeEnv, local: LocalServer
) -> None:
    """Jira Cloud's per-issue write limit: writes to a tracker issue meet 429 with
    Retry-After (a refusal and the episode's next request); reads never set it off."""
    env = make_env("tracker/start-work-on-bug", 3, "jira-write-limit")
    env.reset()
    assert all(env.call("GET", "/rest/api/3/issue/SHOP-1").status_code == 200
               for _ in range(5))
    comment = {"body": {"type": "doc", "version": 1, "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": "Looking."}]}]}}
    answers = [env.call("POST", "/rest/api/3/issue/SHOP-1/comment", json=comment)
               for _ in range(12)]
    limited = [a for a in answers if a.status_code == 429]
    assert limited and all(a.headers["retry-after"] == "2" for a in limited)
    assert {a.status_code for a in answers} == {201, 429}
    assert set(_faults(local, env)) == {"rate_limit", None}
