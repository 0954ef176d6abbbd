"""Spans as the gym API, proxy and replica emit them, made with the real OTel SDK.

``export_episode`` plays a synthetic episode following the span contract, each step its own
trace, through exporters that speak OTLP/HTTP to the store: the SDK's protobuf
``OTLPSpanExporter``, or :class:`JsonSpanExporter` for the OTLP/JSON encoding. Exporters
present ``secret`` as WorkGym's services do (``Authorization: Bearer <internal secret>``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace import SpanKind, Status, StatusCode

from workgym_core import spans

SQL = "SELECT * FROM orders WHERE id = ?"

MakeExporter = Callable[[], SpanExporter]


class JsonSpanExporter(SpanExporter):
    """Exports OTLP/JSON: protobuf JSON with ids in hex, as OTLP's JS exporters send it."""

    def __init__(self, endpoint: str, secret: str) -> None:
        self.endpoint = endpoint
        self.http = httpx.Client(timeout=10, headers={"Authorization": f"Bearer {secret}"})

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        document = json_format.MessageToDict(encode_spans(spans))
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
        response = self.http.post(self.endpoint, content=json.dumps(document),
                                  headers={"Content-Type": "application/json"})
        response.raise_for_status()
        assert response.json() == {}
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.http.close()


def protobuf_exporter(url: str, secret: str, *, gzip: bool = True) -> MakeExporter:
    compression = Compression.Gzip if gzip else Compression.NoCompression
    return lambda: OTLPSpanExporter(endpoint=f"{url}/v1/traces", compression=compression,
                                    headers={"authorization": f"Bearer {secret}"})


def json_exporter(url: str, secret: str) -> MakeExporter:
    return lambda: JsonSpanExporter(f"{url}/v1/traces", secret)


@dataclass
class StepPlan:
    method: str
    path: str
    status: int
    query: str = ""
    faults: list[str] = field(default_factory=list)
    request_body: str = ""
    response_body: str = "{}"
    changes: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class EpisodePlan:
    episode_id: str
    task: str
    seed: int
    steps: list[StepPlan]
    report: dict[str, Any]
    # Attributes of the episode.finish span over the ones derived from the report (a forger
    # may set them apart from it).
    finish_attributes: dict[str, Any] = field(default_factory=dict)


REFUND = EpisodePlan(
    episode_id="ep-refund-7",
    task="helpdesk/refund-partial",
    seed=7,
    steps=[
        StepPlan("GET", "/api/v2/search", 200, query="query=type%3Aticket+status%3Aopen",
                 response_body='{"results": [{"id": 42, "subject": "Refund <please>"}]}'),
        StepPlan("POST", "/api/orders/42/refunds", 504, faults=["timeout_after_write"],
                 request_body='{"amount": 12.5, "reason": "damaged"}',
                 response_body='{"error": "gateway timeout"}',
                 changes=[{"table": "refunds", "op": "insert", "id": 7},
                          {"table": "orders", "op": "update", "id": 42}]),
        StepPlan("GET", "/api/orders/42", 200, faults=["latency", "state_drift"],
                 response_body='{"id": 42, "refunds": [{"id": 7, "amount": 12.5}]}'),
        StepPlan("PUT", "/api/v2/tickets/42", 200,
                 request_body='{"ticket": {"comment": {"body": "Refunded 12.50 <b>EUR</b>"}}}',
                 response_body='{"ticket": {"id": 42}}',
                 changes=[{"table": "comments", "op": "insert", "id": 901}]),
    ],
    report={
        "success": False, "reward": 0.62,
        "signals": {"task_completion": 0.5, "efficiency": 1.0, "error_recovery": 1.0,
                    "action_precision": 0.75, "policy_compliance": 0.0},
        "assertions": [
            {"name": "refund_created", "passed": True, "detail": "refund 7 of 12.50"},
            {"name": "no_duplicate_refund", "passed": True, "detail": "1 refund"},
            {"name": "customer_notified_in_policy_terms", "passed": False,
             "detail": "comment lacks the policy wording"},
        ],
        "steps": 4, "final_state_hash": "ab12", "faults": [
            {"kind": "timeout_after_write", "step": 2}, {"kind": "latency", "step": 3},
        ],
    },
)

CLOSE = EpisodePlan(
    episode_id="ep-close-1",
    task="tracker/close-duplicate",
    seed=1,
    steps=[
        StepPlan("PATCH", "/api/issues/3", 200, request_body='{"state": "closed"}',
                 changes=[{"table": "issues", "op": "update", "id": 3}]),
    ],
    report={
        "success": True, "reward": 1.0, "signals": {"task_completion": 1.0},
        "assertions": [{"name": "issue_closed", "passed": True, "detail": "issue 3"}],
        "steps": 1, "final_state_hash": "cd34", "faults": [],
    },
)


def _provider(service: str, make_exporter: MakeExporter, *, batch: bool) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({spans.SERVICE_NAME: service}))
    exporter = make_exporter()
    provider.add_span_processor(BatchSpanProcessor(exporter) if batch
                                else SimpleSpanProcessor(exporter))
    return provider


def export_episode(plan: EpisodePlan, make_exporter: MakeExporter, *,
                   batch: bool = False) -> None:
    """Emit the plan's spans as three services would, then flush and shut the SDK down."""
    gym, proxy, replica = (_provider(name, make_exporter, batch=batch)
                           for name in ("workgym-gym", "workgym-proxy", "workgym-replica"))
    episode = {spans.EPISODE_ID: plan.episode_id, spans.TASK: plan.task}
    with gym.get_tracer("workgym.gym").start_as_current_span(
        spans.EPISODE_CREATE, kind=SpanKind.SERVER, attributes={**episode, spans.SEED: plan.seed}
    ):
        pass
    for index, step in enumerate(plan.steps, start=1):
        step_attrs = {**episode, spans.STEP: index, spans.APP: "helpdesk"}
        attrs: dict[str, Any] = {
            **step_attrs, spans.HTTP_METHOD: step.method, spans.URL_PATH: step.path,
            spans.URL_QUERY: step.query, spans.HTTP_STATUS: step.status,
            spans.REQUEST_BODY: step.request_body, spans.RESPONSE_BODY: step.response_body,
        }
        if step.faults:
            attrs[spans.FAULT] = ",".join(step.faults)
        with proxy.get_tracer("workgym.proxy").start_as_current_span(
            spans.PROXY_STEP, kind=SpanKind.SERVER, attributes=attrs
        ) as span:
            replica_attrs: dict[str, Any] = dict(step_attrs)
            if step.changes:
                replica_attrs[spans.CHANGES] = json.dumps(step.changes)
            tracer = replica.get_tracer("workgym.replica")
            with (
                tracer.start_as_current_span(spans.REPLICA_REQUEST, kind=SpanKind.SERVER,
                                             attributes=replica_attrs),
                tracer.start_as_current_span("db.query", attributes={"db.statement": SQL}),
            ):
                pass
            if step.status >= 500:
                span.set_status(Status(StatusCode.ERROR, "upstream timed out"))
            if step.faults:
                span.add_event("fault.injected", {"kinds": step.faults})
    with gym.get_tracer("workgym.gym").start_as_current_span(
        spans.EPISODE_FINISH, kind=SpanKind.SERVER,
        attributes={**episode, spans.REWARD: plan.report["reward"],
                    spans.SUCCESS: plan.report["success"],
                    spans.REPORT: json.dumps(plan.report), **plan.finish_attributes},
    ):
        pass
    for provider in (gym, proxy, replica):
        provider.force_flush()
        provider.shutdown()
