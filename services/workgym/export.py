"""Recorded episodes as training data: chat transcripts with OpenAI-style tool calls.

Episodes are read from the telemetry store (its timeline API), so an export sees
every episode any WorkGym process recorded. Formats, one JSON object per line:

* ``jsonl`` — every episode: ``{"messages", "tools", "metadata"}``.
* ``sft``   — successful episodes only, same shape (OpenAI chat fine-tuning).
* ``dpo``   — pairs of a successful and a failed episode of the same task and seed:
  ``{"input": {"messages", "tools"}, "preferred_output", "non_preferred_output",
  "metadata": {"chosen", "rejected"}}`` (OpenAI preference fine-tuning).

``messages`` are: a system message, the task's instruction as the user message,
then per step an assistant message with one tool call and the tool's result
(``{"status", "body"}``), and a final assistant message with the answer.
``metadata`` is the reward report (episode id, task, seed, reward, signals,
assertions, faults).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson

from .tasks import Catalogue
from .tools import ToolCatalogue

SYSTEM = ("You are a support agent working in the company's helpdesk. Use the tools to act; "
          "every call changes or reads the real system. Finish with a short answer.")
FORMATS = ("sft", "dpo", "jsonl")


def _json_or_text(excerpt: str | None) -> Any:
    if excerpt is None:
        return None
    try:
        return orjson.loads(excerpt)
    except orjson.JSONDecodeError:
        return excerpt


def transcript(timeline: dict[str, Any], instruction: str, tools: ToolCatalogue
               ) -> list[dict[str, Any]]:
    """The episode as chat messages with tool calls and tool results."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": instruction},
    ]
    for step in timeline["steps"]:
        body = _json_or_text(step["request_body"])
        found = tools.match(step["method"], step["path"], step["query"] or "", body)
        if found is None:
            continue  # a request no tool makes (e.g. a raw call): nothing to learn from
        name, arguments = found
        call_id = f"call_{step['index']}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": call_id, "type": "function",
            "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
        }]})
        result = {"status": step["status"], "body": _json_or_text(step["response_body"])}
        messages.append({"role": "tool", "tool_call_id": call_id,
                         "content": orjson.dumps(result).decode()})
    messages.append({"role": "assistant", "content": timeline.get("answer") or "Done."})
    return messages


def _metadata(timeline: dict[str, Any]) -> dict[str, Any]:
    keys = ("episode_id", "task", "seed", "reward", "success", "signals", "assertions", "faults")
    return {key: timeline.get(key) for key in keys}


class Exporter:
    def __init__(self, telemetry_url: str, catalogue: Catalogue,
                 tools: dict[str, ToolCatalogue]) -> None:
        self.url = telemetry_url.rstrip("/")
        self.catalogue = catalogue
        self.tools = tools

    def timelines(self, task_ids: Iterable[str], limit: int) -> Iterator[dict[str, Any]]:
        """Finished episodes of these tasks, from the telemetry store."""
        with httpx.Client(base_url=self.url, timeout=30.0) as http:
            for task_id in task_ids:
                listing = http.get("/v1/episodes", params={"task": task_id, "limit": limit})
                listing.raise_for_status()
                for episode in listing.json():
                    if episode.get("success") is None:
                        continue  # not finished
                    timeline = http.get(f"/v1/episodes/{episode['id']}/timeline")
                    timeline.raise_for_status()
                    yield timeline.json()

    def record(self, timeline: dict[str, Any]) -> dict[str, Any]:
        task = self.catalogue.get(timeline["task"])
        tools = self.tools[task.app]
        return {"messages": transcript(timeline, task.instruction, tools),
                "tools": tools.schemas(), "metadata": _metadata(timeline)}

    def records(self, fmt: str, timelines: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        if fmt == "jsonl":
            yield from (self.record(t) for t in timelines)
        elif fmt == "sft":
            yield from (self.record(t) for t in timelines if t["success"])
        else:
            yield from self._pairs(timelines)

    def _pairs(self, timelines: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        groups: dict[tuple[str, int], dict[bool, list[dict[str, Any]]]] = defaultdict(
            lambda: {True: [], False: []})
        for timeline in timelines:
            groups[(timeline["task"], timeline["seed"])][bool(timeline["success"])].append(
                timeline)
        for group in groups.values():
            for chosen, rejected in zip(group[True], group[False], strict=False):
                good, bad = self.record(chosen), self.record(rejected)
                prompt = good["messages"][:2]
                yield {"input": {"messages": prompt, "tools": good["tools"]},
                       "preferred_output": good["messages"][2:],
                       "non_preferred_output": bad["messages"][2:],
                       "metadata": {"chosen": good["metadata"], "rejected": bad["metadata"]}}


def write(records: Iterable[dict[str, Any]], out: Path) -> int:
    count = 0
    with out.open("wb") as f:
        for record in records:
            f.write(orjson.dumps(record) + b"\n")
            count += 1
    return count
