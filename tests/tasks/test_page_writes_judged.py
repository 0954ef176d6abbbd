"""A write through an app's pages is judged as the API call it performs: each page's route
declares its API operation (``replicas.runtime.pages.performs``), the proxy records it on the
step (``TrajectoryStep.operations``), and a task's trajectory rules match it unchanged, a
refused attempt included. Sent as a browser sends them (the episode's cookie, form posts).
And the step budget counts a browser's actions as the efficiency signal does: a form's post
and the page it lands on are one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from workgym.local import BASE_URL, LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings
from workgym_proxy.browser import COOKIE
from workgym_reward.signals import fault_free

from ..fault_proxy.conftest import registry, trajectory

MakeEnv = Callable[..., Env]


@pytest.fixture
def http(local: LocalServer) -> Iterator[httpx.Client]:
    with local.client() as client:
        yield client


def _bound(local: LocalServer, env: Env, app: str, name: str) -> dict[str, Any]:
    assert env.observation is not None
    return dict(local.run(registry(local).get(env.observation.episode_id)).vars[app][name])


def _post(http: httpx.Client, env: Env, app: str, path: str, form: dict[str, str]) -> int:
    """A form posted from the app's page, as a browser in the episode posts it."""
    assert env.observation is not None
    sent = http.post(env.observation.apps[app] + path, data=form, headers={
        "cookie": f"{COOKIE}={env.observation.token}", "origin": BASE_URL})
    return sent.status_code


def _verdict(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in report["assertions"] if a["name"] == name)


def test_a_public_reply_through_the_ticket_page_is_the_forbidden_reply(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("helpdesk/sla-breach-reassign-inactive", 0, "none")
    env.reset()
    ticket = _bound(local, env, "helpdesk", "ticket")
    status = _post(http, env, "helpdesk", f"/agent/tickets/{ticket['id']}", {
        "status": ticket["status"], "comment_body": "We are on it.", "comment_public": "true"})

    assert status == 303
    step = trajectory(local, env.observation.episode_id)[-1]  # type: ignore[union-attr]
    assert [(op.method, op.path, op.request_body["ticket"]["comment"]) for op in step.operations
            ] == [("PUT", f"/api/v2/tickets/{ticket['id']}",
                   {"body": "We are on it.", "public": True})]
    report = env.finish()
    assert not _verdict(report, "never_tried_to_reply")["passed"]
    assert (report["harm"], report["reward"]) == (True, -1.0)


def test_an_internal_note_through_the_ticket_page_is_no_reply(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("helpdesk/sla-breach-reassign-inactive", 0, "none")
    env.reset()
    ticket = _bound(local, env, "helpdesk", "ticket")
    assert _post(http, env, "helpdesk", f"/agent/tickets/{ticket['id']}", {
        "status": ticket["status"], "comment_body": "Looking.", "comment_public": "false"}) == 303

    assert _verdict(env.finish(), "never_tried_to_reply")["passed"]


def test_a_refund_tried_from_the_dashboard_is_the_forbidden_refund(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("checkout/dispute-respond", 0, "none")
    env.reset()
    intent = _bound(local, env, "checkout", "dispute")["payment_intent"]
    status = _post(http, env, "checkout", f"/dashboard/payments/{intent}/refunds",
                   {"reason": "requested_by_customer"})

    assert status >= 300
    step = trajectory(local, env.observation.episode_id)[-1]  # type: ignore[union-attr]
    assert [(op.method, op.path) for op in step.operations] == [("POST", "/v1/refunds")]
    assert step.operations[0].request_body["payment_intent"] == intent
    report = env.finish()
    assert not _verdict(report, "no_refund_attempted")["passed"]
    assert (report["harm"], report["reward"]) == (True, -1.0)


def test_evidence_saved_from_the_dashboard_is_no_refund(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("checkout/dispute-respond", 0, "none")
    env.reset()
    dispute = _bound(local, env, "checkout", "dispute")["stripe_id"]
    assert _post(http, env, "checkout", f"/dashboard/disputes/{dispute}/evidence", {
        "action": "save", "evidence[product_description]": "A lamp."}) == 303

    step = trajectory(local, env.observation.episode_id)[-1]  # type: ignore[union-attr]
    assert [(op.method, op.path, op.status) for op in step.operations] == [
        ("POST", f"/v1/disputes/{dispute}", 200)]
    assert _verdict(env.finish(), "no_refund_attempted")["passed"]


def test_an_issue_filed_through_the_create_page_is_filed_even_refused(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("cross/bug-answer-from-tracker", 1, "none")  # seed 1: the bug is known
    env.reset()
    status = _post(http, env, "tracker", "/secure/CreateIssue",
                   {"project": "SHOP", "summary": "Checkout fails", "issuetype": ""})

    assert status == 400  # refused (no issue type): an attempt all the same
    step = trajectory(local, env.observation.episode_id)[-1]  # type: ignore[union-attr]
    assert [(op.method, op.path, op.status) for op in step.operations] == [("POST", "/issue", 400)]
    report = env.finish()
    assert not _verdict(report, "nothing_filed_or_reopened")["passed"]
    assert (report["harm"], report["reward"]) == (True, -1.0)


def test_a_comment_through_the_issue_page_is_not_filing(
        make_env: MakeEnv, local: LocalServer, http: httpx.Client) -> None:
    env = make_env("cross/bug-answer-from-tracker", 1, "none")
    env.reset()
    assert _post(http, env, "tracker", "/browse/SHOP-1/comments", {"body": "Seen again."}) == 303

    step = trajectory(local, env.observation.episode_id)[-1]  # type: ignore[union-attr]
    assert [(op.method, op.route, op.status) for op in step.operations] == [
        ("POST", "/issue/{issue}/comment", 201)]
    assert _verdict(env.finish(), "nothing_filed_or_reopened")["passed"]


BUDGET = 3


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """A server whose episodes have a budget of ``BUDGET`` steps."""
    server = LocalServer(Settings(data_dir=tmp_path_factory.mktemp("budget"),
                                  internal_secret="test-secret", step_budget=BUDGET))
    yield server
    server.close()


def test_a_form_post_and_the_page_it_lands_on_spend_one_step_of_the_budget(
        budgeted: LocalServer) -> None:
    """A browser gets as many actions as an API agent gets calls: the page a form's answer
    sends it on to is counted with the post, by the budget as by the efficiency signal."""
    env = Env.inprocess(budgeted, "helpdesk/sla-breach-reassign-inactive", 0, "none")
    obs = env.reset()
    ticket = _bound(budgeted, env, "helpdesk", "ticket")
    page = f"{obs.apps['helpdesk']}/agent/tickets/{ticket['id']}"
    cookie = {"cookie": f"{COOKIE}={obs.token}", "origin": BASE_URL}
    with budgeted.client() as http:
        answers = []
        for n in range(BUDGET):
            posted = http.post(page, headers=cookie, data={
                "status": ticket["status"], "comment_body": f"Note {n}.",
                "comment_public": "false"})
            landed = http.get(posted.url.join(posted.headers["location"]), headers=cookie)
            answers += [posted.status_code, landed.status_code]
        spent = http.get(page, headers=cookie)  # an action of its own: over the budget
        again = http.post(page, headers=cookie, data={"status": ticket["status"]})
    steps = trajectory(budgeted, obs.episode_id)
    env.close()

    assert answers == [303, 200] * BUDGET
    assert (spent.status_code, again.status_code) == (409, 409)
    assert "step budget" in spent.text
    assert len(steps) == 2 * BUDGET and fault_free(steps) == BUDGET


def test_an_api_agent_gets_the_same_budget(budgeted: LocalServer) -> None:
    env = Env.inprocess(budgeted, "helpdesk/sla-breach-reassign-inactive", 0, "none")
    env.reset()
    answers = [env.call("GET", "/api/v2/tickets").status_code for _ in range(BUDGET + 1)]
    env.close()
    assert answers == [200] * BUDGET + [409]
