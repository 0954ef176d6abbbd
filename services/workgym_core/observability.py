"""OpenTelemetry for every WorkGym service: traces and metrics over OTLP/HTTP.

Configured by the standard ``OTEL_*`` variables (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_SERVICE_NAME``, ``OTEL_SDK_DISABLED``, ...). Tracing is on when an OTLP
endpoint is configured or ``WORKGYM_TRACING=true``; off, the OpenTelemetry API's
no-op tracer is used and instrumented code skips building attributes, so it
costs nothing measurable. The exporters present the internal secret to the telemetry
store (``Authorization: Bearer``), which refuses spans from anyone else. At exit the last
batches get ``SHUTDOWN_S`` to leave: a store already gone costs a stopping service that much,
never the exporters' retries (up to OTEL_EXPORTER_OTLP_TIMEOUT, 10 s, per batch).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import metrics, propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind

from .settings import Settings
from .spans import SERVICE_NAME

TRACER = "workgym"
BODY_LIMIT = 4096  # bytes of a request/response body kept on a span
SHUTDOWN_S = 1.0  # at exit, the wait for the last export (a local store answers in ms)

_enabled: list[bool] = []  # set once per process by setup()


def enabled(settings: Settings) -> bool:
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    return settings.tracing or any(
        os.environ.get(name) for name in (
            "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def exporter_headers(settings: Settings, signal: str) -> dict[str, str]:
    """The headers of the ``signal`` (TRACES, METRICS) exporter: the telemetry store's ingest
    credential, and what ``OTEL_EXPORTER_OTLP_<signal>_HEADERS`` (else
    ``OTEL_EXPORTER_OTLP_HEADERS``) sets, parsed by the SDK's own parser; those win, so an
    ``authorization`` of the user's own (a Collector's) is sent instead."""
    from opentelemetry.util.re import parse_env_headers

    configured = (os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_HEADERS")
                  or os.environ.get("OTEL_EXPORTER_OTLP_HEADERS", ""))
    return {"authorization": f"Bearer {settings.internal_secret}",
            **parse_env_headers(configured, liberal=True)}


def setup(settings: Settings, service: str) -> bool:
    """Install the SDK providers once per process; returns whether telemetry is on."""
    if _enabled:
        return _enabled[0]
    on = enabled(settings)
    _enabled.append(on)
    if not on:
        return False
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME", service)}
                               ).merge(OTELResourceDetector().detect())
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(headers=exporter_headers(settings, "TRACES"))))
    trace.set_tracer_provider(provider)
    meters = MeterProvider(resource=resource, shutdown_on_exit=False, metric_readers=[
        PeriodicExportingMetricReader(
            OTLPMetricExporter(headers=exporter_headers(settings, "METRICS")))])
    metrics.set_meter_provider(meters)
    atexit.register(shutdown, [provider.shutdown, meters.shutdown])
    return True


def shutdown(steps: list[Callable[[], object]], within_s: float = SHUTDOWN_S) -> None:
    """Run the SDK's shutdown ``steps`` (their last export) for at most ``within_s``, and say
    so when they did not finish: they are left to the exit (the SDK's own shutdown would wait
    for a batch's retries to a store that may be gone for good)."""
    worker = threading.Thread(target=lambda: [step() for step in steps],
                              name="workgym-telemetry-shutdown", daemon=True)
    worker.start()
    worker.join(within_s)
    if worker.is_alive():
        endpoint = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                    or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "the OTLP endpoint"))
        print(f"workgym: the last telemetry was not exported to {endpoint} within "
              f"{within_s:g} s of shutdown: dropped (is the store still up?)", file=sys.stderr)


def active() -> bool:
    """Whether this process exports telemetry (set up and on)."""
    return bool(_enabled and _enabled[0])


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER)


def extract(headers: Mapping[str, str]) -> Context:
    """The caller's trace context (W3C traceparent), so an agent's own trace is joined."""
    return propagate.extract(headers)


def inject() -> dict[str, str]:
    carrier: dict[str, str] = {}
    if active():  # off, no span records: there is no context of ours to pass on
        propagate.inject(carrier)
    return carrier


def body_text(body: bytes) -> str:
    return body[:BODY_LIMIT].decode("utf-8", "replace")


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None, *,
         kind: SpanKind = SpanKind.INTERNAL, context: Context | None = None) -> Iterator[Span]:
    """A span whose attributes are set only when it records (tracing off: nothing built,
    not even a no-op span made current)."""
    if not active():
        yield trace.INVALID_SPAN
        return
    with tracer().start_as_current_span(name, context=context, kind=kind) as current:
        if attributes and current.is_recording():
            current.set_attributes({k: v for k, v in attributes.items() if v is not None})
        yield current


class Metrics:
    """The instruments every service records into (no-ops while telemetry is off)."""

    def __init__(self) -> None:
        meter = metrics.get_meter(TRACER)
        self.episodes_created = meter.create_counter(
            "workgym.episodes.created", description="Episodes created.")
        self.episodes_finished = meter.create_counter(
            "workgym.episodes.finished",
            description="Episodes finished (scored), by task and outcome: success, failure, harm.")
        self.steps = meter.create_counter("workgym.steps", description="Agent requests.")
        self.faults = meter.create_counter(
            "workgym.faults", description="Faults injected, by kind.")
        self.reward = meter.create_histogram(
            "workgym.reward", description="Episode reward of episodes that did no harm (harm "
            "scores below 0: see workgym.episodes.finished by outcome).", unit="1")
        self.step_latency = meter.create_histogram(
            "workgym.step.duration", description="Agent request latency.", unit="ms")
