"""The shared tool-call parser of the text-level adapters: Hermes tags, bare JSON, JSON
string arguments, and what cannot be read said back instead of raised."""

from __future__ import annotations

from workgym.adapters.toolcalls import parse


def test_tagged_calls_in_order() -> None:
    text = ('Let me look.\n<tool_call>{"name": "tracker_get_issue", "arguments": '
            '{"issue": "SHOP-1"}}</tool_call>\n<tool_call>{"name": "finish", "arguments": '
            '"{\\"answer\\": \\"done\\"}"}</tool_call>')
    found = parse(text)
    assert found.calls == [("tracker_get_issue", {"issue": "SHOP-1"}),
                           ("finish", {"answer": "done"})]
    assert found.problems == []


def test_a_bare_json_message_is_a_call_and_prose_is_none() -> None:
    assert parse('{"name": "finish"}').calls == [("finish", {})]
    assert parse("I am done.") == parse("")
    assert parse("I am done.").calls == []


def test_what_cannot_be_read_is_said_not_raised() -> None:
    found = parse('<tool_call>{"name": "x", "arguments": [1]}</tool_call>'
                  "<tool_call>{not json}</tool_call><tool_call>[1]</tool_call>")
    assert found.calls == []
    assert [p.split(" ")[1] for p in found.problems] == ["arguments", "tool", "tool"]
