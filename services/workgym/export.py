"""Recorded episodes as training data: chat transcripts with OpenAI-style tool calls.

Episodes are read from the telemetry store (its timeline API, with the operator's API
key), so an export sees every episode any WorkGym process recorded. Formats, one JSON
object per line:

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

Which episodes: a task's, a suite's, or a task set's (its instances' tasks at their seeds; the
fault plan an episode ran under is not in its report, so it selects nothing). Only episodes
whose report the gym signed are exported: an episode is skipped unless its
timeline's ``report`` carries the gym's signature under the API key and names that episode.
Task, seed, success, reward and the answer come from that verified report alone, never from
the span attributes beside it; the spans give the steps.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from workgym_core import credentials
from workgym_core.errors import Unauthorized

from .errors import reaching
from .tasks import Catalogue, Task
from .tools import ToolCatalogue

FORMATS = ("sft", "dpo", "jsonl")
STORE_HINT = ("is the telemetry store running (`workgym serve --role telemetry`) and is the URL "
              "right (--telemetry, WORKGYM_TELEMETRY_URL)?")
TRACING = "WORKGYM_TRACING=true, or OTEL_EXPORTER_OTLP_ENDPOINT set"
METADATA = ("episode_id", "task", "seed", "reward", "success", "signals", "assertions", "faults")


@dataclass(frozen=True, slots=True)
class Episode:
    """A finished episode: the steps of its timeline, and its report, verified."""

    steps: list[dict[str, Any]]
    report: dict[str, Any]

    @property
    def success(self) -> bool:
        return self.report.get("success") is True

    def metadata(self) -> dict[str, Any]:
        return {key: self.report.get(key) for key in METADATA}


def unverified(api_key: str, timeline: dict[str, Any]) -> str | None:
    """Why the timeline's report is not the gym's signed report of that episode, or None."""
    report = timeline.get("report")
    if not isinstance(report, dict) or credentials.SIGNATURE not in report:
        return "report not signed"
    if not credentials.report_signed(api_key, report):
        return "signature does not verify"
    if report.get("episode_id") != timeline.get("episode_id"):
        return "report of another episode"
    return None


def _json_or_text(excerpt: Any) -> Any:
    """A body as a span keeps it (an excerpt: JSON text, or text), parsed; a trajectory's
    (already parsed) as it is."""
    if not isinstance(excerpt, str):
        return excerpt
    try:
        return orjson.loads(excerpt)
    except orjson.JSONDecodeError:
        return excerpt


def transcript(episode: Episode, task: Task, tools: Mapping[str, ToolCatalogue]
               ) -> list[dict[str, Any]]:
    """The episode as chat messages with tool calls and tool results: the task's brief as
    the system message, its instruction as the user's, then the steps, each through the
    tools of the app it went to."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": task.brief},
        {"role": "user", "content": episode.report.get("instruction") or task.instruction},
    ]
    for step in episode.steps:
        body = _json_or_text(step["request_body"])
        app = step.get("app") or task.apps[0]
        found = tools[app].match(step["method"], step["path"], step["query"] or "", body,
                                 step.get("route"))
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
    messages.append({"role": "assistant", "content": episode.report.get("answer") or "Done."})
    return messages


class Exporter:
    def __init__(self, telemetry_url: str, catalogue: Catalogue,
                 tools: dict[str, ToolCatalogue], api_key: str) -> None:
        self.url = telemetry_url.rstrip("/")
        self.catalogue = catalogue
        self.tools = tools
        self.api_key = api_key
        self.skipped: Counter[str] = Counter()  # reason -> episodes
        self.seen: Counter[str] = Counter()  # "listed", "finished", "exported" -> episodes

    def episodes(self, task_ids: Iterable[str], limit: int,
                 seeds: Mapping[str, Collection[int]] | None = None) -> Iterator[Episode]:
        """Finished episodes of these tasks whose report the gym signed, from the telemetry
        store (the ``limit`` newest of each task); the others are counted in ``skipped``, by
        reason. ``seeds``: only those at these seeds of their task (a task set's instances;
        the others are counted in ``seen["other seeds"]``)."""
        wanted = list(task_ids)
        with httpx.Client(base_url=self.url, timeout=30.0,
                          headers={"authorization": f"Bearer {self.api_key}"}) as http:
            for task_id in wanted:
                for listed in self._get(http, "/v1/episodes", {"task": task_id, "limit": limit}):
                    self.seen["listed"] += 1
                    if listed.get("success") is None:
                        continue  # not finished
                    self.seen["finished"] += 1
                    timeline = self._get(http, f"/v1/episodes/{listed['id']}/timeline")
                    reason = unverified(self.api_key, timeline)
                    if reason is None and timeline["report"].get("task") not in wanted:
                        reason = "report of another task"
                    if reason is None and seeds is not None and timeline["report"].get(
                            "seed") not in seeds.get(timeline["report"]["task"], ()):
                        self.seen["other seeds"] += 1
                    elif reason is None:
                        self.seen["exported"] += 1
                        yield Episode(steps=timeline["steps"], report=timeline["report"])
                    else:
                        self.skipped[reason] += 1

    def _get(self, http: httpx.Client, path: str, params: dict[str, Any] | None = None) -> Any:
        with reaching("the telemetry store", self.url, STORE_HINT):
            response = http.get(path, params=params)
        if response.status_code == 401:
            raise Unauthorized(f"the telemetry store at {self.url} refused the API key: export "
                               "needs the gym's (WORKGYM_API_KEY, or the config directory's)")
        response.raise_for_status()
        return response.json()

    def skipped_summary(self) -> str | None:
        """How many episodes were skipped and why; None when none was."""
        if not self.skipped:
            return None
        reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(self.skipped.items()))
        return (f"skipped {self.skipped.total()} episode(s) without a report signed by this "
                f"gym: {reasons}")

    def nothing_found(self, fmt: str, what: str, tracing: bool) -> str:
        """Why ``records(fmt, episodes(...))`` gave no record (``what``: the tasks asked for;
        ``tracing``: whether it is on where the command runs)."""
        seen, store = self.seen, f"the telemetry store at {self.url}"
        if not seen["listed"]:
            return (f"no episodes of {what} in {store}: episodes are recorded only by a process "
                    f"that runs them with tracing on ({TRACING}; it is "
                    f"{'on' if tracing else 'off'} here)")
        if not seen["finished"]:
            return (f"{seen['listed']} episode(s) of {what} in {store}, none finished: only "
                    "finished episodes are exported")
        if not seen["exported"] and seen["other seeds"]:
            return (f"{seen['other seeds']} episode(s) of {what}'s tasks, none at its seeds: "
                    "a set selects its instances' tasks at their seeds")
        if not seen["exported"]:
            return (f"none of the {seen['finished']} finished episode(s) of {what} has a "
                    "report signed by this gym's API key")
        if fmt == "sft":
            return (f"{seen['exported']} episode(s) of {what}, none successful: sft keeps "
                    "successful ones (jsonl: every episode)")
        return (f"{seen['exported']} episode(s) of {what}, no task and seed with both a success "
                "and a failure: dpo pairs them (jsonl: every episode)")

    def record(self, episode: Episode) -> dict[str, Any]:
        task = self.catalogue.get(episode.report["task"])
        return {"messages": transcript(episode, task, self.tools),
                "tools": [s for app in task.apps for s in self.tools[app].schemas()],
                "metadata": episode.metadata()}

    def records(self, fmt: str, episodes: Iterable[Episode]) -> Iterator[dict[str, Any]]:
        if fmt == "jsonl":
            yield from (self.record(e) for e in episodes)
        elif fmt == "sft":
            yield from (self.record(e) for e in episodes if e.success)
        else:
            yield from self._pairs(episodes)

    def _pairs(self, episodes: Iterable[Episode]) -> Iterator[dict[str, Any]]:
        groups: dict[tuple[str, int], dict[bool, list[Episode]]] = defaultdict(
            lambda: {True: [], False: []})
        for episode in episodes:
            groups[(episode.report["task"], episode.report["seed"])][episode.success].append(
                episode)
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
