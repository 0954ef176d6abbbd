"""Scoring is total: nothing an agent can store or send makes ``finish`` fail. Each app
stores the worst input it accepts (the deepest markup, the largest fields) and the episode
is scored; a scorer that still fails on our side ends the episode with a report that says so
(``infra_error``), which ``workgym bench`` counts apart from the agent's failures.

Before: a 52-byte v2 issue description came back through v3 as a document nested ~200 deep
(a trajectory step no JSON reader would parse back); from then on ``finish`` answered 500
to the agent and to the operator, forever, and the episode stayed active. A '*' run of a few
thousand characters was a RecursionError (500) on the write itself."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from replicas.tracker.formats import MAX_LIST_DEPTH
from workgym.bench.metrics import summarize
from workgym.bench.runner import Planned, run_episode
from workgym.bench.summary import metrics_line, table
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import Task, catalogue

from .conftest import TASK, agent, operator, ticket_of, trajectory

MakeEnv = Callable[..., Env]


def finished(local: LocalServer, env: Env, answer: str | None = None) -> dict[str, Any]:
    """The operator's finish: 200 and a report without infra_error; the episode is over."""
    assert env.observation is not None
    episode = env.observation.episode_id
    answer_body = {"answer": answer} if answer is not None else {}
    done = local.request("POST", f"/v1/episodes/{episode}/finish", headers=operator(local),
                         json=answer_body)
    assert done.status_code == 200, done.text
    report: dict[str, Any] = done.json()
    assert "infra_error" not in report, report["infra_error"]
    assert report["final_state_hash"] and report["assertions"]
    view = local.request("GET", f"/v1/episodes/{episode}", headers=operator(local)).json()
    assert view["status"] == "finished"
    return report


def raw(local: LocalServer, env: Env, app: str, method: str, path: str,
        **kwargs: Any) -> Any:
    assert env.observation is not None
    return local.request(method, env.observation.apps[app] + path,
                         headers={**agent(env), **kwargs.pop("headers", {})}, **kwargs)


def test_the_deepest_tracker_markup_scores(local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env("tracker/start-work-on-bug", 3, "none")
    env.reset()
    found = env.call("GET", "/rest/api/3/search/jql", app="tracker",
                     params={"jql": "project is not empty order by key", "maxResults": 1})
    issue = found.json()["issues"][0]["id"]
    deepest = "\n".join(("*#" * MAX_LIST_DEPTH)[:depth] + f" level {depth}"
                        for depth in range(1, MAX_LIST_DEPTH + 1))
    for version, body in [
        (2, {"fields": {"description": "*" * 50 + " x"}}),  # the 52 bytes of the finding
        (2, {"fields": {"description": deepest + "\n" + "#" * 200 + " too deep"}}),
        # As long as Jira takes (32,767 characters): marks that once recursed per '*'.
        (2, {"fields": {"description": "*" * 16_000 + " x " + "*_" * 8_000}}),
    ]:
        wrote = env.call("PUT", f"/rest/api/{version}/issue/{issue}", json=body, app="tracker")
        assert wrote.status_code == 204, wrote.text
        read = env.call("GET", f"/rest/api/3/issue/{issue}", app="tracker")
        assert read.status_code == 200, read.text
    said = env.call("POST", f"/rest/api/2/issue/{issue}/comment", json={"body": deepest},
                    app="tracker")
    assert said.status_code == 201, said.text
    assert finished(local, env)["steps"] == 8


def test_a_response_nested_deeper_than_the_limit_is_not_kept(
    server: Callable[..., LocalServer]
) -> None:
    local = server(trajectory_json_depth=3)
    env = Env.inprocess(local, "tracker/start-work-on-bug", 3, "none")
    env.reset()
    shallow = env.call("GET", "/rest/api/3/myself", app="tracker")  # avatarUrls: 2 levels
    found = env.call("GET", "/rest/api/3/search/jql", app="tracker",
                     params={"jql": "project is not empty order by key", "maxResults": 1})
    deep = env.call("GET", f"/rest/api/3/issue/{found.json()['issues'][0]['id']}",
                    app="tracker")
    assert shallow.status_code == deep.status_code == 200
    steps = trajectory(local, env)
    assert steps[0].response_body == shallow.json()
    assert steps[2].status == 200 and steps[2].response_body is None  # cut, as if too long
    assert env.finish()["steps"] == 3
    env.close()


def test_the_largest_helpdesk_writes_score(local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env(TASK, 2, "none")
    env.reset()
    ticket = ticket_of(local, env)
    # As many statements as Zendesk's largest comment holds, each one the reader checks.
    body = " ".join(f"I refunded ${i}.00 for order A-{10_000 + i} on 2024-03-{1 + i % 28:02d}."
                    for i in range(2_000))[:65_536]
    wrote = env.call("PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {
        "comment": {"body": body, "public": True},
        "tags": [f"{i:03d}" + "t" * 60 for i in range(100)]}})
    assert wrote.status_code == 200, wrote.text
    finished(local, env, answer=body[:20_000])


def test_the_largest_checkout_writes_score(local: LocalServer, make_env: MakeEnv) -> None:
    env = make_env("checkout/refund-one-item", 2, "none")
    env.reset()
    customer = env.call("GET", "/v1/customers", params={"limit": 1}, app="checkout"
                        ).json()["data"][0]["id"]
    form = "&".join([f"description={'d' * 5_000}",
                     *(f"metadata[k{i:02d}{'x' * 37}]={'v' * 500}" for i in range(50))])
    wrote = raw(local, env, "checkout", "POST", f"/v1/customers/{customer}", content=form,
                headers={"content-type": "application/x-www-form-urlencoded"})
    assert wrote.status_code == 200, wrote.text
    finished(local, env, answer=" ".join(
        f"Refunded ${i}.00 on charge ch_{i:024d}." for i in range(1_000))[:20_000])


@pytest.fixture
def scorer_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every task's scorer raises, as a bug of ours on some stored state would."""
    def broken(self: Task, *args: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(Task, "score", broken)


def test_a_scorer_failure_ends_the_episode_with_infra_error(
    local: LocalServer, make_env: MakeEnv, scorer_fails: None, caplog: pytest.LogCaptureFixture
) -> None:
    env = make_env(TASK, 2, "none")
    obs = env.reset()
    assert env.call("GET", "/api/v2/groups").status_code == 200
    with caplog.at_level(logging.ERROR, logger="workgym.gym"):
        done = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish",
                             headers=agent(env), json={"answer": "done"})
    assert done.status_code == 200, done.text
    assert done.json() == {"episode_id": obs.episode_id, "steps": 1, "status": "finished"}
    failed = [r for r in caplog.records if r.exc_info and "scoring" in r.getMessage()]
    assert failed and failed[0].exc_info is not None
    assert failed[0].exc_info[0] is RecursionError  # the traceback is logged, server-side
    view = local.request("GET", f"/v1/episodes/{obs.episode_id}", headers=operator(local))
    assert view.json()["status"] == "finished"
    report = view.json()["report"]
    assert report["infra_error"] == "scoring failed: RecursionError: maximum recursion " \
                                    "depth exceeded"
    assert (report["reward"], report["success"], report["harm"]) == (0.0, False, False)
    assert report["steps"] == 1 and report["assertions"] == []
    again = local.request("POST", f"/v1/episodes/{obs.episode_id}/finish",
                          headers=operator(local))
    assert again.status_code == 200 and again.json() == report  # scored once


def test_bench_counts_infra_errors_apart(local: LocalServer, make_env: MakeEnv) -> None:
    task = catalogue().get(TASK)

    def noop(env: Env, task: Task) -> str | None:
        return None

    scored = run_episode(lambda task_id, seed, _: make_env(task_id, seed, "none"), noop,
                         Planned(task, 2, 0))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Task, "score", lambda self, *args: 1 / 0)
        failed = run_episode(lambda task_id, seed, _: make_env(task_id, seed, "none"), noop,
                             Planned(task, 2, 1))
    assert scored["infra_error"] is None and failed["error"] is None
    assert failed["infra_error"] == "scoring failed: ZeroDivisionError: division by zero"
    summary = summarize([scored, failed], k=1)
    assert (summary.infra_errors, summary.errors) == (1, 0)
    assert summary.pass_at_1 == 0.0 and summary.avg_score == scored["reward"]  # one scored
    assert summary.tasks[0].infra_errors == 1 and summary.tasks[0].episodes == 2
    assert "1 infra failure (not scored): scoring failed ×1" in metrics_line(summary, 2)
    assert "(1 infra failure, not scored)" in table(summary)
