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
        write = env.call("PUT", f"/api/v2/tickets/{spelled}",
                         json={"ticket": {"comment": {"body": "hi", "public": True}}})
        assert write.status_code == 422, (spelled, write.text)
        assert list(write.json()["details"]) == ["ticket_id"]
        if "%20" in alias or alias.startswith("+"):  # in a query string '+' is a space
            continue  # and an id list may be spaced after its commas: "1, 7"
        query = env.call("GET", f"/api/v2/tickets/show_many?ids=1,{spelled}")
        assert query.status_code == 422, (spelled, query.text)
        assert list(query.json()["details"]) == ["ids"]
    report = env.finish()
    assert not next(a for a in report["assertions"] if a["name"] == "customer_told")["passed"]


def test_the_trajectory_records_the_matched_route_and_canonical_params(
    local: LocalServer, make_env: MakeEnv
) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    assert env.call("GET", f"/api/v2/tickets/{ticket}").status_code == 200
    encoded = f"%3{str(ticket)[0]}{str(ticket)[1:]}"  # the first digit percent-encoded
    assert env.call("GET", f"/api/v2/tickets/{encoded}/comments").status_code == 200
    assert env.call("PUT", f"/api/v2/tickets/+{ticket}",
                    json={"ticket": {"comment": {"body": "x"}}}).status_code == 422
    assert env.call("GET", "/api/v2/no-such-route").status_code == 404
    steps = trajectory(local, env)
    assert [(s.path, s.route, s.params) for s in steps] == [
        (f"/api/v2/tickets/{ticket}", "/api/v2/tickets/{ticket_id}", {"ticket_id": ticket}),
        (f"/api/v2/tickets/{ticket}/comments", "/api/v2/tickets/{ticket_id}/comments",
         {"ticket_id": ticket}),
        (f"/api/v2/tickets/+{ticket}", "/api/v2/tickets/{ticket_id}",
         {"ticket_id": f"+{ticket}"}),
        ("/api/v2/no-such-route", None, {}),
    ]


ROUTE = "/api/v2/tickets/{ticket_id}"


def _step(path: str, route: str | None, params: dict[str, object]) -> TrajectoryStep:
    return TrajectoryStep(index=0, app="helpdesk", method="PUT", path=path, route=route,
                          params=params, status=200)


@pytest.mark.parametrize(("step", "matched"), [
    (_step("/api/v2/tickets/301", ROUTE, {"ticket_id": 301}), True),
    (_step("/api/v2/tickets/302", ROUTE, {"ticket_id": 302}), False),
    (_step("/api/v2/tickets/+301", ROUTE, {"ticket_id": "+301"}), False),
])
def test_trajectory_assertions_match_what_the_replica_matched(
    step: TrajectoryStep, matched: bool
) -> None:
    pattern = TrajectoryContains.model_validate({
        "name": "asked", "check": "trajectory_contains", "method": "PUT",
        "path": ROUTE, "params": {"ticket_id": 301}})
    assert pattern.matches(step) is matched
