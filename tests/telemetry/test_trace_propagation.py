"""W3C trace context: an agent that sends ``traceparent`` has its trace joined, and one
step is one trace from the proxy through the replica to its SQL."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from workgym.processes import serving
from workgym.sdk import connect
from workgym_core.observability import exporter_headers
from workgym_core.settings import Settings

AGENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
AGENT_SPAN = "00f067aa0ba902b7"


def test_an_agents_traceparent_is_joined(tmp_path: Path) -> None:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path / "gym"),
           "WORKGYM_TELEMETRY_DATA_DIR": str(tmp_path / "telemetry"),
           "OTEL_BSP_SCHEDULE_DELAY": "100"}
    with serving(["--role", "telemetry"], env=env) as store, serving(
            env={**env, "OTEL_EXPORTER_OTLP_ENDPOINT": store}) as url, \
            connect(url, "helpdesk/refund-standard", seed=1) as agent:
        obs = agent.reset()
        auth = {"authorization": f"Bearer {obs.token}"}
        ticket = httpx.get(f"{obs.apps['helpdesk']}/api/v2/search", params={
            "query": "type:ticket status:open", "per_page": 1}, headers=auth).json()["results"][0]
        response = httpx.put(
            f"{obs.apps['helpdesk']}/api/v2/tickets/{ticket['id']}",
            json={"ticket": {"priority": "high" if ticket["priority"] != "high" else "low"}},
            headers={"authorization": f"Bearer {obs.token}",
                     "traceparent": f"00-{AGENT_TRACE}-{AGENT_SPAN}-01"})
        assert response.status_code == 200
        agent.finish()
        deadline = time.monotonic() + 15
        spans: list[dict[str, Any]] = []
        operator = {"Authorization": f"Bearer {Settings().api_key}"}  # shared: config dir
        while time.monotonic() < deadline:
            got = httpx.get(f"{store}/v1/episodes/{obs.episode_id}/trace", headers=operator)
            spans = got.json()["spans"] if got.status_code == 200 else []
            if any(s["name"] == "episode.finish" for s in spans):
                break
            time.sleep(0.2)
    joined = [s for s in spans if s["trace_id"] == AGENT_TRACE]
    step = next(s for s in joined if s["name"] == "proxy.step")
    assert step["parent_span_id"] == AGENT_SPAN
    assert step["attributes"]["workgym.step"] == 2
    replica = next(s for s in joined if s["name"] == "replica.request")
    assert replica["parent_span_id"] == step["span_id"]
    assert any("UPDATE tickets" in sql for sql in replica["attributes"]["db.statements"])
    assert "tickets" in replica["attributes"]["workgym.changes"]
    first = next(s for s in spans if s["name"] == "proxy.step" and s["trace_id"] != AGENT_TRACE)
    assert first["attributes"]["workgym.step"] == 1  # no traceparent: a trace of its own


def test_exporters_present_the_internal_secret_with_the_users_headers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(internal_secret="s3cret")
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_HEADERS", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", raising=False)
    assert exporter_headers(settings, "TRACES") == {"authorization": "Bearer s3cret"}

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "X-Tenant=a%20b,api-key=k")
    assert exporter_headers(settings, "METRICS") == {
        "authorization": "Bearer s3cret", "x-tenant": "a b", "api-key": "k"}
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "Authorization=Bearer%20mine")
    assert exporter_headers(settings, "TRACES") == {"authorization": "Bearer mine"}
