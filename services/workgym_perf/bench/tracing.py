"""Tracing on vs off: in-process steps/s, and the cost of one span.

The OpenTelemetry provider is per process, so each mode runs in a child process
(``python -m workgym_perf.bench.tracing --mode on|off``); "on" exports with the batch
processor to a real telemetry store on loopback.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from workgym.processes import serving

STEPS = 3000


def _steps_per_s(mode: str, data_dir: Path) -> float:
    from workgym.local import LocalServer
    from workgym.sdk import Env
    from workgym_core.settings import Settings

    local = LocalServer(Settings(data_dir=data_dir, tracing=mode == "on"))
    try:
        env = Env.inprocess(local, "helpdesk/stale-contact-update", seed=7)  # the helpdesk's alone
        env.reset()
        ticket = env.call("GET", "/api/v2/tickets",
                          params={"per_page": 1}).json()["tickets"][0]["id"]
        rounds = []
        for _ in range(5):
            env.reset()
            import time

            start = time.perf_counter()
            for _ in range(STEPS // 5 // 2):
                env.call("GET", f"/api/v2/tickets/{ticket}")
                env.call("PUT", f"/api/v2/tickets/{ticket}",
                         json={"ticket": {"priority": "high"}})
            rounds.append((STEPS // 5) / (time.perf_counter() - start))
        return statistics.median(rounds)
    finally:
        local.close()


def _span_cost_us() -> float:
    import time

    from opentelemetry import trace

    tracer = trace.get_tracer("bench")
    n = 20_000
    start = time.perf_counter()
    for i in range(n):
        with tracer.start_as_current_span("bench.span") as span:
            span.set_attribute("i", i)
    return (time.perf_counter() - start) / n * 1e6


def child(mode: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rate = _steps_per_s(mode, Path(tmp))
        print(f"{rate:.1f} {_span_cost_us():.2f}")


def bench_tracing() -> None:
    with tempfile.TemporaryDirectory() as tmp, serving(
            ["--role", "telemetry"], env={**os.environ, "WORKGYM_TELEMETRY_DATA_DIR": tmp}
    ) as telemetry:
        results = {}
        for mode in ("off", "on"):
            env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": telemetry} if mode == "on" \
                else {k: v for k, v in os.environ.items() if not k.startswith("OTEL_EXPORTER")}
            child = [sys.executable, "-m", "workgym_perf.bench.tracing", "--mode", mode]
            out = subprocess.run(child, env=env, capture_output=True, text=True, check=True,
                                 timeout=600)
            rate, span_us = (float(x) for x in out.stdout.split())
            results[mode] = (rate, span_us)
    off, on = results["off"][0], results["on"][0]
    print(f"  {'in-process steps/s, tracing off / on':<44} {off:8,.0f} / {on:,.0f}   "
          f"on is {100 * (1 - on / off):.1f}% slower (target <= 10%; batch export)")
    print(f"  {'one span (SDK, batch processor), tracing on':<44} "
          f"{results['on'][1]:8.2f} us   (off: {results['off'][1]:.2f} us, the no-op API)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["on", "off"], required=True)
    child(parser.parse_args().mode)
