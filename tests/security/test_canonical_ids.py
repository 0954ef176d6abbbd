"""One canonical form per id, end to end: an alias never reaches a record, and the
trajectory (what trajectory assertions match) holds the route the replica matched and its
canonical parameters.

Before: ``+301``, ``301.0``, `` 301`` and ``05`` reached the same record as ``301`` while
trajectory patterns (regular expressions over the raw path) missed them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.trajectory import TrajectoryStep
from workgym_reward.assertions import TrajectoryContains

from .conftest import TASK, ticket_of, trajectory

MakeEnv = Callable[..., Env]
ALIASES = ["+{id}", "{id}.0", "%20{id}", "0{id}", "{id}%20", "%2B{id}"]


def test_aliases_of_an_id_are_refused_in_paths_and_queries(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    for alias in ALIASES:
        spelled = alias.format(id=ticket)
        write = env.call("POST", f"/tickets/{spelled}/comments", json={"body": "hi"})
        assert write.status_code == 422, (spelled, write.text)
        assert write.json()["error"]["field"] == "ticket_id"
        query = env.call("GET", f"/tickets?requester_id={spelled}")
        assert query.status_code == 422, (spelled, query.text)
        assert query.json()["error"]["field"] == "requester_id"
    report = env.finish()
    assert not next(a for a in report["assertions"] if a["name"] == "customer_told")["passed"]


def test_the_trajectory_records_the_matched_route_and_canonical_params(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    assert env.call("GET", f"/tickets/{ticket}").status_code == 200
    encoded = f"%3{str(ticket)[0]}{str(ticket)[1:]}"  # the first digit percent-encoded
    assert env.call("GET", f"/tickets/{encoded}").status_code == 200
    assert env.call("POST", f"/tickets/+{ticket}/comments", json={"body": "x"}).status_code \
        == 422
    assert env.call("GET", "/no-such-route").status_code == 404
    steps = trajectory(local, env)
    assert [(s.path, s.route, s.params) for s in steps] == [
        (f"/tickets/{ticket}", "/tickets/{ticket_id}", {"ticket_id": ticket}),
        (f"/tickets/{ticket}", "/tickets/{ticket_id}", {"ticket_id": ticket}),
        (f"/tickets/+{ticket}/comments", "/tickets/{ticket_id}/comments",
         {"ticket_id": f"+{ticket}"}),
        ("/no-such-route", None, {}),
    ]


def _step(path: str, route: str | None, params: dict[str, object]) -> TrajectoryStep:
    return TrajectoryStep(index=0, app="helpdesk", method="POST", path=path, route=route,
                          params=params, status=201)


@pytest.mark.parametrize(("step", "matched"), [
    (_step("/tickets/301/comments", "/tickets/{ticket_id}/comments", {"ticket_id": 301}), True),
    (_step("/tickets/302/comments", "/tickets/{ticket_id}/comments", {"ticket_id": 302}), False),
    (_step("/tickets/+301/comments", "/tickets/{ticket_id}/comments",
           {"ticket_id": "+301"}), False),
])
def test_trajectory_assertions_match_what_the_replica_matched(
    step: TrajectoryStep, matched: bool
) -> None:
    pattern = TrajectoryContains.model_validate({
        "name": "asked", "check": "trajectory_contains", "method": "POST",
        "path": "/tickets/{ticket_id}/comments", "params": {"ticket_id": 301}})
    assert pattern.matches(step) is matched
