"""What the read API returns: spans, episode summaries and timelines."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


@dataclass(slots=True)
class Span:
    """One stored span: ids in hex, times in unix nanoseconds, ``parent_span_id`` None for a
    root; ``kind`` is INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER or UNSPECIFIED and
    ``status`` UNSET, OK or ERROR. A plain dataclass: ingest builds thousands per request."""

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    status: str
    status_message: str
    service_name: str | None
    episode_id: str | None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)


class EpisodeTrace(BaseModel):
    episode_id: str
    spans: list[Span] = Field(description="Ordered by start time.")


class EpisodeSummary(BaseModel):
    id: str
    task: str | None
    reward: float | None = Field(description="None until the episode is finished.")
    success: bool | None = Field(description="None until the episode is finished.")
    started: datetime
    duration_ms: float
    steps: int


Outcome = Literal["success", "failure"]


class Change(BaseModel):
    """A row a step wrote, as the replica reports it."""

    table: str
    op: str = Field(description="insert, update or delete.")
    id: int | str | None = None


class Assertion(BaseModel):
    name: str
    passed: bool
    detail: Any = None


class Report(BaseModel):
    """The parts of the reward report (``workgym.report``) a timeline shows."""

    success: bool | None = None
    reward: float | None = None
    signals: dict[str, float] = Field(default_factory=dict)
    assertions: list[Assertion] = Field(default_factory=list)
    faults: list[Any] = Field(default_factory=list)
    answer: str | None = None


class Step(BaseModel):
    index: int
    app: str | None
    method: str | None
    path: str | None
    query: str | None
    status: int | None
    faults: list[str] = Field(description="Fault kinds the proxy injected in this step.")
    started: datetime
    duration_ms: float
    changes: list[Change] = Field(description="Rows the step changed.")
    request_body: str | None = Field(description="An excerpt of the request body.")
    response_body: str | None = Field(description="An excerpt of the response body.")
    trace_id: str
    span_id: str


class Timeline(BaseModel):
    episode_id: str
    task: str | None
    seed: int | None
    started: datetime
    duration_ms: float = Field(description="From the episode's first span to its last.")
    finished: bool
    reward: float | None
    success: bool | None
    signals: dict[str, float]
    assertions: list[Assertion]
    faults: list[Any] = Field(description="The faults the report lists.")
    answer: str | None = Field(None, description="The agent's final answer, if any.")
    report: dict[str, Any] | None = Field(
        None, description="The reward report exactly as the gym put it on the finish span, "
        "its signature included (what `workgym export` verifies); None before the finish.")
    steps: list[Step]
