"""The session protocol (workgym.session): start, tool calls as text that never raise,
the finish tool, the report scored once; the same calls through a session and through the
SDK's tool calls leave the same state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.session import Session

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
