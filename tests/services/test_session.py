"""The session protocol (workgym.session): start, tool calls as text that never raise,
the finish tool, the report scored once; the same calls through a session and through the
SDK's tool calls answer alike and leave the same state; the SDK's errors, one line each."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.serving import dead_url, serving_app
from workgym.app import create_app
from workgym.errors import AuthRefused, NotFound, UnknownName, Unreachable, WorkGymClientError
from workgym.local import LocalServer
from workgym.sdk import Env, connect
from workgym.session import Session
from workgym_core.settings import Settings

TASK = "tracker/start-work-on-bug"


def test_a_session_reads_tools_as_text_and_never_raises(local: LocalServer) -> None:
    session = Session.inprocess(local)
    started = session.start(TASK, seed=2, faults="none")
    names = [t["function"]["name"] for t in started["tools"]]
    assert "finish" in names and "tracker_get_myself" in names
    assert started["instruction"].startswith("Bug ")
    me = session.call_tool("tracker_get_myself", {})
    assert (me["error"], me["finished"]) == (False, False)
    assert me["text"].startswith("HTTP 200") and "AI Agent" in me["text"]
    for name, arguments in (("no_such_tool", {}), ("tracker_get_issue", {"issue": "NOPE-1"}),
                            ("tracker_get_issue", {"wrong": 1})):
        said = session.call_tool(name, arguments)
        assert said["error"] is True and said["finished"] is False, said
    ended = session.call_tool("finish", {"answer": "nothing to do"})
    assert ended["finished"] is True
    assert session.call_tool("tracker_get_myself", {})["error"] is True
    report = session.finish()
    assert report["reward"] == 0.0 and session.finish() == report  # scored once
    session.close()


def test_options_a_dataset_row_may_carry_are_checked(local: LocalServer) -> None:
    session = Session.inprocess(local)
    with pytest.raises(ValueError, match="unknown session options"):
        session.start(TASK, seed=1, fualts="none")
    with pytest.raises(RuntimeError, match="start"):
        session.call_tool("finish", {})


def test_a_session_and_the_sdk_leave_the_same_state(
        local: LocalServer, make_env: Callable[..., Env]) -> None:
    calls = [("tracker_get_myself", {}),
             ("tracker_do_transition", {"issue": "SHOP-1", "body": {"transition": {"id": "4"}}})]
    session = Session.inprocess(local)
    session.start(TASK, seed=5, faults="none")
    for name, arguments in calls:
        session.call_tool(name, arguments)
    env = make_env(TASK, 5, "none")
    env.reset()
    for name, arguments in calls:
        env.call_tool(name, arguments)
    assert session.finish()["final_state_hash"] == env.finish()["final_state_hash"]
    session.close()


# A misspelt tool, a misspelt argument, an app's 404, an answer: what a model can get wrong.
CALLS = [("tracker_no_such_tool", {}), ("jira_get_myself", {}),
         ("tracker_get_issue", {"isue": "SHOP-1"}), ("tracker_get_issue", {"issue": "NOPE-1"}),
         ("tracker_get_myself", {})]


def test_the_sdk_and_a_session_answer_a_tool_call_alike_and_never_raise(
        local: LocalServer, make_env: Callable[..., Env]) -> None:
    session = Session.inprocess(local)
    session.start(TASK, seed=4, faults="none")
    env = make_env(TASK, 4, "none")
    env.reset()
    for name, arguments in CALLS:
        said = env.call_tool(name, arguments)
        assert session.call_tool(name, arguments) == said
        assert set(said) == {"text", "error", "finished", "status", "body", "not_sent"}
    unknown, no_app, misspelt, missing, answered = (env.call_tool(*call) for call in CALLS)
    assert unknown["text"].startswith("unknown tool 'tracker_no_such_tool': app tracker has ")
    assert "tracker_get_myself" in unknown["text"]
    assert no_app["text"] == "unknown tool 'jira_get_myself': this episode has tracker_*"
    assert misspelt["text"] == "tool tracker_get_issue has no argument 'isue'"
    assert (missing["error"], missing["status"]) == (True, 404)
    assert (answered["error"], answered["status"]) == (False, 200)
    assert answered["body"]["displayName"] in answered["text"]
    # Why each call reached no app: what the bench counts (workgym.bench.health)
    assert [r["not_sent"] for r in (unknown, no_app, misspelt, missing, answered)] == [
        "unknown_tool", "unknown_tool", "malformed", None, None]
    assert env.call_tool("tracker_get_myself", [])["not_sent"] == "malformed"  # type: ignore[arg-type]
    assert session.call_tool("finish", {})["not_sent"] is None
    assert session.call_tool("tracker_get_myself", {})["not_sent"] == "after_end"
    session.close()


def test_an_app_the_episode_lacks_is_a_named_error_listing_its_apps(
        make_env: Callable[..., Env]) -> None:
    env = make_env("helpdesk/refund-standard", 7, "none")
    env.reset()
    with pytest.raises(UnknownName) as raised:
        env.call("GET", "/pages", app="wiki")
    assert isinstance(raised.value, ValueError) and raised.value.known == list(
        env.observation.apps if env.observation else [])
    assert str(raised.value) == "unknown app 'wiki': this episode has checkout, helpdesk"


def test_a_dead_server_is_one_line_naming_it_and_what_to_check() -> None:
    url = dead_url()
    with connect(url, TASK, api_key="any") as env, pytest.raises(Unreachable) as raised:
        env.reset()
    said = str(raised.value)
    assert said.startswith(f"cannot reach the WorkGym server at {url} (ConnectError")
    assert "`workgym serve`" in said and "\n" not in said
    session = Session.connect(url, api_key="any")
    with pytest.raises(Unreachable):  # the session protocol over HTTP: the same error
        session.start(TASK)
    session.close()


def test_a_refused_key_is_one_line_naming_where_the_key_comes_from(settings: Settings) -> None:
    with serving_app(lambda url: create_app(settings.model_copy(update={"public_url": url}))
                     ) as url:
        with connect(url, TASK, api_key="wrong") as env, pytest.raises(AuthRefused) as raised:
            env.reset()
        with connect(url, "tracker/no-such-task", api_key=settings.api_key) as env, \
                pytest.raises(NotFound, match="task_not_found"):
            env.reset()
    said = str(raised.value)
    assert said.startswith("401 ") and f"from {url}: is it that server's" in said
    assert "WORKGYM_API_KEY" in said
    assert isinstance(raised.value, WorkGymClientError) and "\n" not in said
