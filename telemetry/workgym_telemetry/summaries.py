"""What a batch of spans tells about each episode's summary row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError

from workgym_core.spans import EPISODE_FINISH, PROXY_STEP, REPORT, REWARD, STEP, SUCCESS, TASK

from .models import Report, Span


@dataclass(slots=True)
class EpisodeRow:
    """One episode's part of a batch; the store merges it into the episode's row."""

    episode_id: str
    started_ns: int
    ended_ns: int
    last_index: int  # of the episode's last span in the batch
    task: str | None = None
    steps: int = 0
    reward: float | None = None
    success: bool | None = None


def report_document(span: Span) -> dict[str, Any] | None:
    """The reward report of an ``episode.finish`` span as the gym wrote it (a JSON object),
    or None when absent or malformed."""
    raw = span.attributes.get(REPORT)
    if not isinstance(raw, str):
        return None
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return document if isinstance(document, dict) else None


def report(span: Span) -> Report:
    """The reward report of an ``episode.finish`` span, its reward and success attributes
    taking precedence; empty when absent or malformed."""
    attrs = span.attributes
    try:
        found = Report.model_validate(report_document(span) or {})
    except ValidationError:
        found = Report()
    reward, success = attrs.get(REWARD), attrs.get(SUCCESS)
    if isinstance(reward, int | float) and not isinstance(reward, bool):
        found.reward = float(reward)
    if isinstance(success, bool):
        found.success = success
    return found


def episode_rows(spans: Sequence[Span]) -> list[EpisodeRow]:
    rows: dict[str, EpisodeRow] = {}
    for index, span in enumerate(spans):
        if span.episode_id is None:
            continue
        row = rows.get(span.episode_id)
        if row is None:
            row = rows[span.episode_id] = EpisodeRow(span.episode_id, span.start_ns, span.end_ns,
                                                     index)
        row.started_ns = min(row.started_ns, span.start_ns)
        row.ended_ns = max(row.ended_ns, span.end_ns)
        row.last_index = index
        attrs = span.attributes
        if isinstance(attrs.get(TASK), str):
            row.task = attrs[TASK]
        if span.name == PROXY_STEP and isinstance(attrs.get(STEP), int):
            row.steps = max(row.steps, attrs[STEP])
        elif span.name == EPISODE_FINISH:
            finished = report(span)
            row.reward, row.success = finished.reward, finished.success
    return list(rows.values())

