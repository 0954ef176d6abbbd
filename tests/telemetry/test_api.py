"""The read API over a synthetic episode exported on the wire: timeline, trace, listing (as
the operator; tests/security/test_telemetry_auth.py has who else may read)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from .conftest import Served
from .emit import CLOSE, REFUND, export_episode, json_exporter, protobuf_exporter


@pytest.fixture
def episodes(served: Served) -> Served:
    export_episode(REFUND, protobuf_exporter(served.url, served.secret))
    export_episode(CLOSE, json_exporter(served.url, served.secret))
    return served


def test_timeline_lists_the_steps_in_order_with_faults_and_changes(episodes: Served) -> None:
    timeline = episodes.http.get(f"/v1/episodes/{REFUND.episode_id}/timeline").json()

    assert (timeline["task"], timeline["seed"]) == (REFUND.task, REFUND.seed)
    steps = timeline["steps"]
    assert [s["index"] for s in steps] == [1, 2, 3, 4]
    assert [(s["method"], s["path"], s["status"]) for s in steps] == [
        (p.method, p.path, p.status) for p in REFUND.steps
    ]
    assert steps[0]["query"] == REFUND.steps[0].query == "query=type%3Aticket+status%3Aopen"
    assert [s["faults"] for s in steps] == [[], ["timeout_after_write"],
                                            ["latency", "state_drift"], []]
    assert steps[1]["changes"] == REFUND.steps[1].changes
    assert steps[0]["changes"] == []
    assert steps[3]["changes"] == [{"table": "comments", "op": "insert", "id": 901}]
    assert steps[1]["request_body"] == REFUND.steps[1].request_body
    assert steps[0]["response_body"] == REFUND.steps[0].response_body
    assert all(s["duration_ms"] >= 0 and s["app"] == "helpdesk" for s in steps)
    assert timeline["finished"] is True
    assert (timeline["reward"], timeline["success"]) == (0.62, False)
    assert timeline["signals"] == REFUND.report["signals"]
    assert timeline["assertions"] == REFUND.report["assertions"]
    assert timeline["faults"] == REFUND.report["faults"]
    assert timeline["duration_ms"] >= sum(s["duration_ms"] for s in steps)
    assert timeline["report"] == REFUND.report  # the whole report, as the gym wrote it


def test_the_report_reaches_the_timeline_unchanged(served: Served) -> None:
    report = {**REFUND.report, "episode_id": REFUND.episode_id, "task": REFUND.task,
              "seed": REFUND.seed, "answer": "Refunded 12.50.", "future_field": [1, {"x": None}],
              "signature": "ab" * 32}
    export_episode(replace(REFUND, report=report), protobuf_exporter(served.url, served.secret))

    timeline = served.http.get(f"/v1/episodes/{REFUND.episode_id}/timeline").json()

    assert timeline["report"] == report
    assert timeline["answer"] == "Refunded 12.50."


def test_episodes_are_listed_newest_first_and_filtered(episodes: Served) -> None:
    listed = episodes.http.get("/v1/episodes").json()

    assert [e["id"] for e in listed] == [CLOSE.episode_id, REFUND.episode_id]
    refund = listed[1]
    assert (refund["task"], refund["reward"], refund["success"], refund["steps"]) == (
        REFUND.task, 0.62, False, 4)
    assert refund["duration_ms"] > 0 and refund["started"].startswith("20")

    def ids(**params: str) -> list[str]:
        return [e["id"] for e in episodes.http.get("/v1/episodes", params=params).json()]

    assert ids(outcome="success") == [CLOSE.episode_id]
    assert ids(outcome="failure") == [REFUND.episode_id]
    assert ids(task=REFUND.task) == [REFUND.episode_id]
    assert ids(task="nope") == []
    assert ids(limit="1") == [CLOSE.episode_id]
    assert episodes.http.get("/v1/episodes", params={"outcome": "maybe"}).status_code == 422


def test_an_unfinished_episode_has_no_outcome_yet(served: Served) -> None:
    attributes = [{"key": "workgym.episode_id", "value": {"stringValue": "live"}},
                  {"key": "workgym.step", "value": {"intValue": "1"}}]
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "proxy.step",
            "startTimeUnixNano": "1", "endTimeUnixNano": "2000001", "attributes": attributes}
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
    served.ingest.post("/v1/traces", content=body, headers={"Content-Type": "application/json"})

    [live] = served.http.get("/v1/episodes").json()
    timeline = served.http.get("/v1/episodes/live/timeline").json()

    assert (live["reward"], live["success"], live["steps"], live["task"]) == (None, None, 1, None)
    assert (timeline["finished"], timeline["assertions"], timeline["report"]) == (False, [], None)
    assert timeline["steps"][0]["duration_ms"] == 2.0


@pytest.mark.parametrize("path", ["/v1/episodes/nope/trace", "/v1/episodes/nope/timeline",
                                  "/episodes/nope"])
def test_unknown_episodes_are_404_json(episodes: Served, path: str) -> None:
    response = episodes.http.get(path)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_episode"


def test_a_browser_asking_for_an_unknown_episodes_page_gets_a_404_page(
        episodes: Served) -> None:
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = episodes.http.get("/episodes/no%3Cb%3Esuch", headers={"accept": browser})

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert "<h1>No episode no&lt;b&gt;such</h1>" in response.text
    assert "<a href='/'>Recent episodes</a>" in response.text
    # An API client asking for JSON (or anything) still gets the JSON 404.
    for accept in ("application/json", "*/*", "text/html;q=0"):
        answer = episodes.http.get("/episodes/nope", headers={"accept": accept})
        assert answer.json()["error"]["code"] == "unknown_episode", accept


def test_health_is_open_and_tells_nothing(episodes: Served) -> None:
    response = episodes.anonymous.get("/healthz")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})
