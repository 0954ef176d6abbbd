"""The OTLP/HTTP receiver: ``POST /v1/traces`` and ``POST /v1/metrics``.

As the OTLP spec says: protobuf or JSON bodies, optionally gzip- or deflate-encoded,
answered 200 with an empty Export*ServiceResponse in the request's own encoding; 400 for a
body that does not decode, 415 for another media type or encoding. Only WorkGym's services
may export (``Authorization: Bearer <internal secret>``): anything else is 401 and nothing
is stored.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from starlette.concurrency import run_in_threadpool

from . import otlp, records
from .auth import ServiceDep
from .deps import StoreDep
from .store import SpanStore

router = APIRouter(prefix="/v1", tags=["otlp"])

_OTLP_BODY: dict[str, Any] = {"content": {otlp.PROTOBUF: {}, otlp.JSON: {}}}


def _body(request: Request, raw: bytes) -> tuple[str, bytes]:
    media = otlp.media_type(request.headers.get("content-type"))
    limit: int = request.app.state.settings.max_body_bytes
    return media, otlp.decompress(raw, request.headers.get("content-encoding"), limit)


def _ingest_traces(store: SpanStore, request: Request, raw: bytes) -> str:
    media, body = _body(request, raw)
    store.add_spans(records.spans(otlp.decode(ExportTraceServiceRequest(), body, media)))
    return media


def _ingest_metrics(store: SpanStore, request: Request, raw: bytes) -> str:
    media, body = _body(request, raw)
    store.add_points(records.points(otlp.decode(ExportMetricsServiceRequest(), body, media)))
    return media


@router.post("/traces", operation_id="export_traces", openapi_extra={"requestBody": _OTLP_BODY},
             summary="OTLP/HTTP trace export (ExportTraceServiceRequest).")
async def export_traces(_: ServiceDep, request: Request, store: StoreDep) -> Response:
    media = await run_in_threadpool(_ingest_traces, store, request, await request.body())
    return Response(otlp.encode(ExportTraceServiceResponse(), media), media_type=media)


@router.post("/metrics", operation_id="export_metrics", openapi_extra={"requestBody": _OTLP_BODY},
             summary="OTLP/HTTP metrics export (ExportMetricsServiceRequest).")
async def export_metrics(_: ServiceDep, request: Request, store: StoreDep) -> Response:
    media = await run_in_threadpool(_ingest_metrics, store, request, await request.body())
    return Response(otlp.encode(ExportMetricsServiceResponse(), media), media_type=media)
