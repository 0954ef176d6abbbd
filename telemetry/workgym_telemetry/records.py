"""OTLP export requests flattened to the records the store keeps."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Any, NamedTuple

from google.protobuf import json_format
from google.protobuf.message import Message
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as SpanMessage
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from workgym_core.spans import EPISODE_ID, SERVICE_NAME

from .errors import MalformedPayload
from .models import Span

_KINDS = {v.number: v.name.removeprefix("SPAN_KIND_")
          for v in SpanMessage.SpanKind.DESCRIPTOR.values}
_STATUSES = {v.number: v.name.removeprefix("STATUS_CODE_")
             for v in Status.StatusCode.DESCRIPTOR.values}
_POINT_META = ("attributes", "startTimeUnixNano", "timeUnixNano")


class Point(NamedTuple):
    """One metric data point: a number, or the point's own fields for histograms and such."""

    name: str
    kind: str
    time_ns: int
    service_name: str | None
    value: Any
    attributes: dict[str, Any]


def value(any_value: AnyValue) -> Any:
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(any_value.bytes_value).decode()
    return getattr(any_value, kind)


def attributes(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    return {pair.key: value(pair.value) for pair in pairs}


def spans(request: ExportTraceServiceRequest) -> list[Span]:
    """Every span of the request, with its resource's service.name and its episode id."""
    out: list[Span] = []
    for resource_spans in request.resource_spans:
        service = attributes(resource_spans.resource.attributes).get(SERVICE_NAME)
        for scope_spans in resource_spans.scope_spans:
            out += (_span(message, service) for message in scope_spans.spans)
    return out


def _span(message: SpanMessage, service: Any) -> Span:
    if len(message.trace_id) != 16 or len(message.span_id) != 8:
        raise MalformedPayload(
            f"span {message.name!r} has a trace id of {len(message.trace_id)} bytes and a span "
            f"id of {len(message.span_id)}: OTLP needs 16 and 8", field="body",
        )
    attrs = attributes(message.attributes)
    episode = attrs.get(EPISODE_ID)
    return Span(
        trace_id=message.trace_id.hex(),
        span_id=message.span_id.hex(),
        parent_span_id=message.parent_span_id.hex() or None,
        name=message.name,
        kind=_KINDS.get(message.kind, "UNSPECIFIED"),
        start_ns=message.start_time_unix_nano,
        end_ns=message.end_time_unix_nano,
        status=_STATUSES.get(message.status.code, "UNSET"),
        status_message=message.status.message,
        service_name=None if service is None else str(service),
        episode_id=None if episode is None else str(episode),
        attributes=attrs,
        events=[
            {"name": e.name, "time_ns": e.time_unix_nano, "attributes": attributes(e.attributes)}
            for e in message.events
        ],
    )


def points(request: ExportMetricsServiceRequest) -> list[Point]:
    out: list[Point] = []
    for resource_metrics in request.resource_metrics:
        service = attributes(resource_metrics.resource.attributes).get(SERVICE_NAME)
        service_name = None if service is None else str(service)
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                if kind is None:
                    continue
                for point in getattr(metric, kind).data_points:
                    out.append(Point(metric.name, kind, point.time_unix_nano, service_name,
                                     _point_value(point), attributes(point.attributes)))
    return out


def _point_value(point: Message) -> Any:
    if "value" in point.DESCRIPTOR.oneofs_by_name:  # a NumberDataPoint: as_int or as_double
        number = point.WhichOneof("value")
        return None if number is None else getattr(point, number)
    fields = json_format.MessageToDict(point)
    return {k: v for k, v in fields.items() if k not in _POINT_META}
