"""A service's exit never waits on the exporters' retries to a telemetry store that is gone
(compose stops the store alongside the services)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from workgym_core.observability import SHUTDOWN_S

EXITING_SERVICE = """
from workgym_core import observability
from workgym_core.settings import Settings

assert observability.setup(Settings(), "exiting")
with observability.span("the last one"):
    pass
"""


def test_the_last_export_to_a_store_that_is_gone_is_dropped_at_exit_and_said() -> None:
    with socket.socket() as probe:  # a port nothing listens on: the store is gone
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
           "OTEL_BSP_SCHEDULE_DELAY": "60000"}  # the span is still queued at exit

    done = subprocess.run([sys.executable, "-c", EXITING_SERVICE], env=env, capture_output=True,
                          text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    said = (f"workgym: the last telemetry was not exported to {endpoint} within {SHUTDOWN_S:g} "
            "s of shutdown: dropped (is the store still up?)")
    assert said in done.stderr.splitlines(), done.stderr
