"""Tool-call health: what an agent's tool calls did, per episode and per run, and the alarms
that say a run's figures are not the agent's work (a model whose calls a tool parser never
read "reached 0.93 reward while never firing a tool call", and nothing flagged it).

Per episode (the record's ``tool_calls``)::

    {"made", "reached_app", "malformed", "unknown_tool", "after_end", "gym_refused",
     "page_loads", "refused": {"4xx", "5xx"}, "statuses": {"200": 3, "404": 1},
     "refusals": [{"step", "app", "method", "path", "status", "code", "fault"}]}

``reached_app``: the gym's recorded steps that are calls (every agent's: API requests, a
browser's page writes; a browser's page loads, the start pages included, are ``page_loads``),
``statuses`` theirs and ``refused`` those answered 4xx or 5xx, the first ``REFUSALS_KEPT`` of
them in ``refusals`` (``step``: its index in the trajectory, ``code``: the product's error
code, ``fault``: the fault kinds injected on that step, if any). The calls that never reached
an app only the agent knows: an agent that counts them (``not_sent``, by episode id, as
``openai:MODEL``'s does, by :data:`workgym.tools.NOT_SENT`) has them in ``malformed`` (not
JSON, or not fitting the tool's schema), ``unknown_tool``, ``after_end`` and ``gym_refused``;
the others have 0 there. ``made`` is all of them: every tool call but the session's
``finish``.

Per run (over scored episodes that were counted; an ``infra_error`` is never in a rate): the
totals, the share malformed, the median calls per episode, the episodes without a call, and
the alarms: no tool call in any episode; most calls malformed (or naming no tool); tasks whose
episodes made no call while the task needs some (its reference makes steps), the table's
``NO TOOL CALLS``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from workgym_core.asgi import READ_METHODS
from workgym_core.errors import NotFound

from ..tasks import catalogue
from ..tools import MALFORMED, NOT_SENT, UNKNOWN_TOOL

REFUSALS_KEPT = 20  # the refusals an episode's record lists (all are counted)
NO_CALLS = "NO TOOL CALLS"  # the table's note of a task whose episodes made none
# What to check first: a model's calls its server's tool parser did not read (a mismatch).
PARSER_HINT = "is the model's tool-call format the one its server's tool parser reads?"


def status_class(status: int) -> str | None:
    """``"4xx"`` or ``"5xx"`` for a refusal's status, None for an answer."""
    return "4xx" if 400 <= status < 500 else "5xx" if status >= 500 else None


def page_load(step: Mapping[str, Any]) -> bool:
    """Whether a recorded step is a browser's page load (not a call: a page write is)."""
    return bool(step.get("browser")) and step["method"] in READ_METHODS


def tool_calls(steps: Sequence[Mapping[str, Any]],
               not_sent: Mapping[str, int] | None = None) -> dict[str, Any]:
    """An episode's ``tool_calls`` record from its recorded ``steps`` (``Env.trajectory()``)
    and the calls the agent counted as never sent (None: an agent that does not count)."""
    unsent = {kind: int((not_sent or {}).get(kind, 0)) for kind in NOT_SENT}
    calls = [(i, step) for i, step in enumerate(steps) if not page_load(step)]
    refused = Counter({"4xx": 0, "5xx": 0})
    refusals: list[dict[str, Any]] = []
    for i, step in calls:
        status = int(step["status"])
        if (which := status_class(status)) is None:
            continue
        refused[which] += 1
        if len(refusals) < REFUSALS_KEPT:
            refusals.append({"step": i, "app": step["app"], "method": step["method"],
                             "path": step["path"], "status": status,
                             "code": step.get("error_code"), "fault": step.get("fault")})
    statuses = Counter(str(int(step["status"])) for _, step in calls)
    return {"made": len(calls) + sum(unsent.values()), "reached_app": len(calls), **unsent,
            "page_loads": len(steps) - len(calls), "refused": dict(refused),
            "statuses": dict(sorted(statuses.items())), "refusals": refusals}


@dataclass(frozen=True)
class Health:
    """A run's tool calls over its scored episodes that were counted (``episodes``)."""

    episodes: int
    made: int
    reached_app: int
    malformed: int
    unknown_tool: int
    refused: dict[str, int]  # "4xx", "5xx" -> calls
    statuses: dict[str, int]  # every status the apps answered -> calls
    per_episode_p50: float  # calls per episode, the median
    without_calls: int  # episodes that made none

    @property
    def malformed_share(self) -> float | None:
        return self.malformed / self.made if self.made else None


def counted(episodes: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The scored episodes whose tool calls were counted."""
    return [e for e in episodes if not e.get("infra_error") and e.get("tool_calls")]


def health(episodes: Iterable[Mapping[str, Any]]) -> Health | None:
    """The run's tool-call health (None when no scored episode was counted: results from
    before the counts)."""
    runs = [e["tool_calls"] for e in counted(episodes)]
    if not runs:
        return None
    statuses: Counter[str] = Counter()
    for calls in runs:
        statuses.update(calls["statuses"])
    return Health(
        episodes=len(runs), made=sum(c["made"] for c in runs),
        reached_app=sum(c["reached_app"] for c in runs),
        malformed=sum(c[MALFORMED] for c in runs),
        unknown_tool=sum(c[UNKNOWN_TOOL] for c in runs),
        refused={cls: sum(c["refused"][cls] for c in runs) for cls in ("4xx", "5xx")},
        statuses=dict(sorted(statuses.items())),
        per_episode_p50=float(median(c["made"] for c in runs)),
        without_calls=sum(c["made"] == 0 for c in runs))


def needs_calls(task_id: str) -> bool:
    """Whether task ``task_id`` cannot be done without tool calls: its reference makes steps
    (False for a task the catalogue no longer has)."""
    try:
        return catalogue().get(task_id).reference_steps > 0
    except NotFound:
        return False


def silent_tasks(episodes: Iterable[Mapping[str, Any]]) -> list[str]:
    """The tasks that need tool calls whose counted episodes made none, sorted."""
    made: dict[str, int] = {}
    for e in counted(episodes):
        made[e["task"]] = made.get(e["task"], 0) + int(e["tool_calls"]["made"])
    return sorted(task for task, calls in made.items() if calls == 0 and needs_calls(task))


def alarms(found: Health | None, silent: Sequence[str]) -> list[str]:
    """What says the run's figures are not the agent's work, whatever its reward."""
    if found is None:
        return []
    if found.made == 0:
        return [f"the agent made no tool call ({found.episodes} episode"
                f"{'s' * (found.episodes != 1)}): {PARSER_HINT}"]
    said = []
    for count, what in ((found.malformed, "malformed"), (found.unknown_tool, "to unknown tools")):
        if 2 * count > found.made:
            said.append(f"{count} of {found.made} tool calls {what} ({count / found.made:.0%}): "
                        f"{PARSER_HINT}")
    if silent:
        shown = ", ".join(silent[:5]) + (f" and {len(silent) - 5} more" if len(silent) > 5
                                         else "")
        said.append(f"no tool call in the episodes of {len(silent)} task"
                    f"{'s' * (len(silent) != 1)} that need some: {shown}")
    return said


def health_line(found: Health) -> str:
    """``12 tool calls (2 per episode, median) · 8% malformed · 1 to unknown tools · refused
    4xx 2, 5xx 0 · 1 episode without a call``."""
    share = found.malformed_share
    parts = [f"{found.made} tool call{'s' * (found.made != 1)} "
             f"({found.per_episode_p50:g} per episode, median)",
             f"{'-' if share is None else f'{share:.0%}'} malformed"]
    if found.unknown_tool:
        parts.append(f"{found.unknown_tool} to unknown tools")
    parts.append(f"refused 4xx {found.refused['4xx']}, 5xx {found.refused['5xx']}")
    if found.without_calls:
        parts.append(f"{found.without_calls} episode{'s' * (found.without_calls != 1)} "
                     "without a call")
    return " · ".join(parts)
