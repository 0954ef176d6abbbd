"""The OTLP/HTTP receiver on the wire: SDK exporters, OTLP/JSON, metrics, bad payloads (all
with the services' credential; tests/security/test_telemetry_auth.py: without it)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource

from .conftest import Served
from .emit import REFUND, MakeExporter, export_episode, json_exporter, protobuf_exporter

TRACE_ID = "5b8efff798038103d269b633813fc60c"

# The example of the OTLP spec's JSON encoding: hex ids, int64 as strings, enums as numbers.
SPEC_JSON = """{
  "resourceSpans": [{
    "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
    "scopeSpans": [{
      "scope": {"name": "my.library", "version": "1.0.0"},
      "spans": [{
        "traceId": "TRACE_ID",
        "spanId": "eee19b7ec3c1b174",
        "parentSpanId": "eee19b7ec3c1b173",
        "name": "I'm a server span",
        "startTimeUnixNano": "1544712660000000000",
        "endTimeUnixNano": "1544712661000000000",
        "kind": 2,
        "status": {"code": 2, "message": "boom"},
        "attributes": [
          {"key": "workgym.episode_id", "value": {"stringValue": "ep-json"}},
          {"key": "workgym.step", "value": {"intValue": "3"}},
          {"key": "ratio", "value": {"doubleValue": 0.5}},
          {"key": "ok", "value": {"boolValue": true}},
          {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}}
        ],
        "events": [{"timeUnixNano": "1544712660500000000", "name": "retry",
                    "attributes": [{"key": "n", "value": {"intValue": "2"}}]}],
        "droppedAttributesCount": 0,
        "aFieldFromTheFuture": {"ignored": true}
      }]
    }]
  }]
}""".replace("TRACE_ID", TRACE_ID)


def _exporters(served: Served) -> dict[str, MakeExporter]:
    return {"protobuf+gzip": protobuf_exporter(served.url, served.secret),
            "protobuf": protobuf_exporter(served.url, served.secret, gzip=False),
            "json": json_exporter(served.url, served.secret)}


@pytest.mark.parametrize("encoding", ["protobuf+gzip", "protobuf", "json"])
def test_sdk_export_stores_every_span_with_its_tree(served: Served, encoding: str) -> None:
    export_episode(REFUND, _exporters(served)[encoding], batch=encoding == "protobuf+gzip")

    trace = served.http.get(f"/v1/episodes/{REFUND.episode_id}/trace").json()

    spans = trace["spans"]
    names = [s["name"] for s in spans]
    steps = len(REFUND.steps)
    assert names.count("proxy.step") == names.count("replica.request") == steps
    assert names.count("db.query") == steps  # no episode attribute: found by trace
    assert names[0] == "episode.create" and names[-1] == "episode.finish"
    assert [s["start_ns"] for s in spans] == sorted(s["start_ns"] for s in spans)
    by_id = {s["span_id"]: s for s in spans}
    for span in spans:
        parent = span["parent_span_id"]
        expected_parent = {"db.query": "replica.request", "replica.request": "proxy.step"}
        if span["name"] in expected_parent:
            assert by_id[parent]["name"] == expected_parent[span["name"]]
            assert by_id[parent]["trace_id"] == span["trace_id"]
        else:
            assert parent is None
    step = next(s for s in spans if s["name"] == "proxy.step")
    assert step["kind"] == "SERVER"
    assert step["service_name"] == "workgym-proxy"
    assert step["attributes"]["workgym.step"] == 1
    assert step["attributes"]["http.response.status_code"] == 200
    faulted = [s for s in spans if s["name"] == "proxy.step" and s["events"]]
    assert faulted[0]["events"][0]["attributes"] == {"kinds": ["timeout_after_write"]}
    assert faulted[0]["status"] == "ERROR"
    assert len({s["trace_id"] for s in spans if s["name"] == "proxy.step"}) == steps


def test_otlp_json_of_the_spec_is_decoded(served: Served) -> None:
    response = served.ingest.post("/v1/traces", content=SPEC_JSON,
                                headers={"Content-Type": "application/json; charset=utf-8"})

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {}
    [span] = served.http.get("/v1/episodes/ep-json/trace").json()["spans"]
    assert span["trace_id"] == TRACE_ID
    assert span["span_id"] == "eee19b7ec3c1b174"
    assert span["parent_span_id"] == "eee19b7ec3c1b173"
    assert (span["kind"], span["status"], span["status_message"]) == ("SERVER", "ERROR", "boom")
    assert span["start_ns"] == 1544712660000000000
    assert span["service_name"] == "shop"
    assert span["attributes"] == {"workgym.episode_id": "ep-json", "workgym.step": 3,
                                  "ratio": 0.5, "ok": True, "tags": ["a"]}
    assert span["events"] == [{"name": "retry", "time_ns": 1544712660500000000,
                               "attributes": {"n": 2}}]


def test_gzip_json_and_empty_protobuf_get_empty_responses(served: Served) -> None:
    gz = served.ingest.post("/v1/traces", content=gzip.compress(SPEC_JSON.encode()),
                          headers={"Content-Type": "application/json",
                                   "Content-Encoding": "gzip"})
    empty = served.ingest.post("/v1/traces", content=b"",
                             headers={"Content-Type": "application/x-protobuf"})

    assert (gz.status_code, gz.json()) == (200, {})
    assert empty.status_code == 200
    assert empty.headers["content-type"] == "application/x-protobuf"
    assert empty.content == b""
    assert served.http.get("/v1/episodes/ep-json/trace").status_code == 200


def test_spans_without_an_episode_are_stored(served: Served) -> None:
    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.trace_id, span.span_id, span.name = bytes(range(16)), bytes(range(8)), "orphan"

    response = served.ingest.post("/v1/traces", content=request.SerializeToString(),
                                headers={"Content-Type": "application/x-protobuf"})

    assert response.status_code == 200
    assert served.store.counts()["spans"] == 1
    assert served.http.get("/v1/episodes").json() == []


def test_sdk_metrics_are_kept(served: Served) -> None:
    exporter = OTLPMetricExporter(endpoint=f"{served.url}/v1/metrics",
                                  headers={"authorization": f"Bearer {served.secret}"})
    reader = PeriodicExportingMetricReader(exporter, export_interval_millis=3_600_000)
    provider = MeterProvider(resource=Resource.create({"service.name": "workgym-proxy"}),
                             metric_readers=[reader])
    meter = provider.get_meter("workgym.proxy")
    meter.create_counter("workgym.steps").add(3, {"app": "helpdesk"})
    meter.create_histogram("workgym.step.duration", unit="ms").record(1.5)

    assert provider.force_flush()
    provider.shutdown()

    with sqlite3.connect(served.settings.db_path) as db:
        rows = dict(db.execute("SELECT name, value FROM points ORDER BY id LIMIT 2"))
    assert json.loads(rows["workgym.steps"]) == 3
    assert json.loads(rows["workgym.step.duration"])["count"] == "1"


def test_otlp_json_metrics_are_kept(served: Served) -> None:
    body = """{"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "queue.depth",
      "gauge": {"dataPoints": [{"asInt": "12", "timeUnixNano": "1544712660000000000"}]}}]}]}]}"""

    response = served.ingest.post("/v1/metrics", content=body,
                                headers={"Content-Type": "application/json"})

    assert (response.status_code, response.json()) == (200, {})
    assert served.store.counts()["points"] == 1


BAD = [
    ("protobuf garbage", "application/x-protobuf", None, b"\xff\xff\xff\xff", "protobuf"),
    ("not JSON", "application/json", None, b"{resourceSpans", "OTLP/JSON"),
    ("JSON array", "application/json", None, b"[]", "not a JSON object"),
    ("wrong JSON type", "application/json", None, b'{"resourceSpans": 3}', "OTLP/JSON"),
    ("bad hex id", "application/json", None,
     SPEC_JSON.replace(TRACE_ID, "zz" * 16).encode(), "traceId 'zzzz"),
    ("short trace id", "application/json", None,
     SPEC_JSON.replace(TRACE_ID, "abcd").encode(), "trace id of 2 bytes"),
    ("bad gzip", "application/x-protobuf", "gzip", b"not gzip at all", "not valid gzip"),
    ("truncated gzip", "application/json", "gzip", gzip.compress(SPEC_JSON.encode())[:40],
     "truncated"),
]


@pytest.mark.parametrize(("case", "content_type", "encoding", "body", "says"), BAD,
                         ids=[b[0] for b in BAD])
def test_garbage_is_a_400_json_error(served: Served, case: str, content_type: str,
                                     encoding: str | None, body: bytes, says: str) -> None:
    headers = {"Content-Type": content_type}
    if encoding:
        headers["Content-Encoding"] = encoding

    response = served.ingest.post("/v1/traces", content=body, headers=headers)

    assert response.status_code == 400, case
    assert response.headers["content-type"] == "application/json"
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "malformed_payload"
    assert says in error["message"]
    assert served.store.counts()["spans"] == 0


@pytest.mark.parametrize(("headers", "field"), [
    ({"Content-Type": "text/plain"}, "content-type"),
    ({}, "content-type"),
    ({"Content-Type": "application/json", "Content-Encoding": "br"}, "content-encoding"),
])
def test_other_media_types_are_415(served: Served, headers: dict[str, str], field: str) -> None:
    response = served.ingest.post("/v1/metrics", content=b"{}", headers=headers)

    assert response.status_code == 415
    assert response.json()["error"]["field"] == field


def test_oversized_bodies_are_413(make_server: Any) -> None:
    served = make_server(max_body_bytes=1_000)
    bomb = gzip.compress(b'{"resourceSpans": []}' + b" " * 10_000)

    big = served.ingest.post("/v1/traces", content=b"{}" + b" " * 2_000,
                           headers={"Content-Type": "application/json"})
    inflated = served.ingest.post("/v1/traces", content=bomb,
                                headers={"Content-Type": "application/json",
                                         "Content-Encoding": "gzip"})

    assert big.status_code == inflated.status_code == 413
    assert len(bomb) < 1_000
