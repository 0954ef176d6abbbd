"""An episode's timeline, built from its spans as the span contract describes them.

Each ``proxy.step`` span is a step; the ``replica.request`` span of the same step number
lists the rows it changed; ``episode.create`` carries the seed and ``episode.finish`` the
reward report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from workgym_core.spans import (
    APP,
    CHANGES,
    EPISODE_CREATE,
    EPISODE_FINISH,
    FAULT,
    HTTP_METHOD,
    HTTP_STATUS,
    PROXY_STEP,
    REPLICA_REQUEST,
    REQUEST_BODY,
    RESPONSE_BODY,
    SEED,
    STEP,
    TASK,
    URL_PATH,
    URL_QUERY,
)

from .models import Change, Report, Span, Step, Timeline
from .summaries import report, report_document

EXCERPT_CHARS = 4096

_CHANGES = TypeAdapter(list[Change])


def build(episode_id: str, spans: Sequence[Span]) -> Timeline:
    """The timeline of an episode from its spans (any order, at least one)."""
    steps: list[Span] = []
    changes: defaultdict[int, list[Change]] = defaultdict(list)
    task = seed = finish = None
    for span in spans:
        attrs = span.attributes
        task = attrs.get(TASK, task)
        if span.name == PROXY_STEP:
            steps.append(span)
        elif span.name == REPLICA_REQUEST:
            changes[_int(attrs.get(STEP)) or 0] += _changes(attrs.get(CHANGES))
        elif span.name == EPISODE_CREATE:
            seed = _int(attrs.get(SEED))
        elif span.name == EPISODE_FINISH:
            finish = span
    final = report(finish) if finish else Report()
    started_ns = min(s.start_ns for s in spans)
    steps.sort(key=lambda s: (_int(s.attributes.get(STEP)) or 0, s.start_ns))
    return Timeline(
        episode_id=episode_id, task=task, seed=seed, started=_time(started_ns),
        duration_ms=(max(s.end_ns for s in spans) - started_ns) / 1e6,
        finished=finish is not None,
        reward=final.reward, success=final.success, signals=final.signals,
        assertions=final.assertions, faults=final.faults, answer=final.answer,
        report=report_document(finish) if finish else None,
        steps=[_step(span, changes) for span in steps],
    )


def _step(span: Span, changes: dict[int, list[Change]]) -> Step:
    attrs = span.attributes
    index = _int(attrs.get(STEP)) or 0
    fault = attrs.get(FAULT)
    return Step(
        index=index, app=_str(attrs.get(APP)),
        method=_str(attrs.get(HTTP_METHOD)), path=_str(attrs.get(URL_PATH)),
        query=_str(attrs.get(URL_QUERY)) or None, status=_int(attrs.get(HTTP_STATUS)),
        faults=[f.strip() for f in fault.split(",") if f.strip()] if isinstance(fault, str)
        else [],
        started=_time(span.start_ns),
        duration_ms=(span.end_ns - span.start_ns) / 1e6,
        changes=changes.get(index, []),
        request_body=_excerpt(attrs.get(REQUEST_BODY)),
        response_body=_excerpt(attrs.get(RESPONSE_BODY)),
        trace_id=span.trace_id, span_id=span.span_id,
    )


def _changes(raw: Any) -> list[Change]:
    if not isinstance(raw, str):
        return []
    try:
        return _CHANGES.validate_python(orjson.loads(raw))
    except (orjson.JSONDecodeError, ValidationError):
        return []


def _time(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, UTC)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _excerpt(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"
