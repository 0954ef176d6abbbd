"""Fault plans: which faults an episode meets. ``none``, the task's own, ``hard``, a preset
of an app's own (the composition root hands them over: the proxy knows no app), or a list."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from .plugins import FaultSpec

FaultPlan = list[FaultSpec]
_plan = TypeAdapter(FaultPlan)

# Task- and app-agnostic faults every well-behaved agent can recover from by retrying,
# backing off and waiting out rate limits. Writes are never answered-then-lost here. An
# app's own presets are in its app.yaml (replicas/README.md).
PRESETS: dict[str, list[dict[str, Any]]] = {
    "none": [],
    "hard": [
        {"kind": "latency", "toxicity": 0.3, "delay_ms": 5, "jitter_ms": 20},
        {"kind": "server_error", "toxicity": 0.08},
        {"kind": "timeout_before", "toxicity": 0.05, "delay_ms": 50},
        {"kind": "rate_limit", "toxicity": 0.04, "retry_after_s": 1},
        {"kind": "connection_reset", "toxicity": 0.03},
        {"kind": "truncated_body", "toxicity": 0.05, "target": {"method": "GET"}},
    ],
}

def parse_plan(raw: list[dict[str, Any]]) -> FaultPlan:
    return _plan.validate_python(raw)


def resolve_plan(choice: str | list[Any], task_plan: list[dict[str, Any]],
                 presets: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The plan an episode gets, as JSON-ready configs (validated); ``presets``: every plan
    a name may choose (these and the apps')."""
    if isinstance(choice, str):
        raw = task_plan if choice == "task" else presets[choice]
    else:
        raw = choice
    return [fault.model_dump(mode="json") for fault in parse_plan(raw)]


@lru_cache(maxsize=256)
def cached_plan(raw_json: str) -> tuple[Any, ...]:
    """A stored plan parsed once per distinct JSON (the proxy sees it on every request)."""
    return tuple(_plan.validate_json(raw_json))
