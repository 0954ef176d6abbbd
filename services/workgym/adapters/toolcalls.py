"""Tool calls in a model's text, for the text-level adapters (SkyRL, OpenRLHF): the
Hermes/Qwen form ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (one or
several), or a bare JSON object of that shape as the whole message. What cannot be read is
said back to the model as text, never raised: a training rollout must go on."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


@dataclass(frozen=True)
class Parsed:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Why a call the text tried to make could not be read (for the model), if any.
    problems: list[str] = field(default_factory=list)


def _call(raw: str) -> tuple[str, dict[str, Any]] | str:
    try:
        found = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return f"a tool call is not valid JSON ({exc})"
    if not isinstance(found, dict) or not isinstance(found.get("name"), str):
        return 'a tool call must be {"name": "...", "arguments": {...}}'
    arguments = found.get("arguments", {})
    if isinstance(arguments, str):  # some models send the arguments as a JSON string
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return f"the arguments of {found['name']} are not valid JSON"
    if not isinstance(arguments, dict):
        return f"the arguments of {found['name']} must be a JSON object"
    return found["name"], arguments


def parse(text: str) -> Parsed:
    """The tool calls ``text`` makes, in order, and what could not be read."""
    raws = _TAGGED.findall(text)
    if not raws and text.strip().startswith("{"):
        raws = [text.strip()]
    calls: list[tuple[str, dict[str, Any]]] = []
    problems: list[str] = []
    for raw in raws:
        got = _call(raw)
        if isinstance(got, str):
            problems.append(got)
        else:
            calls.append(got)
    return Parsed(calls, problems)
