"""``make demo``: start WorkGym and its telemetry store, run real episodes over HTTP.

The server runs on embedded defaults (SQLite snapshots under .workgym/, an
embedded redis-server) on a free loopback port and exports its traces to the
telemetry store (``workgym serve --role telemetry``) on another; both are stopped
afterwards. It runs the reference and the noop agent on a task of two apps (a
helpdesk ticket about a returned order, resolved by a refund in the checkout), then
the reference and the naive agent on a fault-heavy task, prints every reward
report, and the links to the four episodes' pages.

The three processes share this machine's credentials (WORKGYM_API_KEY and
WORKGYM_INTERNAL_SECRET, else the files of the config directory, created by whichever
starts first): the server's exporters present the internal secret to the store, and the
demo reads the store with the API key. The printed links are signed: each opens its page.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import httpx

from workgym_core import credentials
from workgym_core.settings import Settings
from workgym_telemetry.settings import TelemetrySettings

from .agents import AGENTS
from .cli.run import format_report
from .processes import serving
from .sdk import connect
from .tasks import catalogue

DEMO_TASK = "helpdesk/refund-standard"
FAULT_TASK = "helpdesk/fault-refund-timeout-after"


def _wait_recorded(telemetry: str, api_key: str, episode_id: str,
                   timeout: float = 15.0) -> bool:
    """Spans are exported in batches: wait until the store has the finished episode."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = httpx.get(f"{telemetry}/v1/episodes/{episode_id}/timeline", timeout=2.0,
                             headers={"authorization": f"Bearer {api_key}"})
        if response.status_code == 200 and response.json()["finished"]:
            return True
        time.sleep(0.2)
    return False


def _episode(url: str, task_id: str, agent: str, seed: int,
             show: str | None = None) -> dict[str, object]:
    """One episode of ``agent``; ``show``: first print the task's instruction, as this seed's
    instance renders it, under that heading."""
    task = catalogue().get(task_id)
    with connect(url, task.id, seed=seed) as env:
        obs = env.reset()
        if show is not None:
            print(f"task {task_id}{show}: {obs.instruction.strip()}\n")
        report = env.finish(answer=AGENTS[agent](env, task))
    print(format_report(report, agent) + "\n")
    return report


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--seed", type=int, default=7)
    opts = args.parse_args()

    settings = Settings()  # creates the shared credentials before either child needs them
    started = time.perf_counter()
    print("demo: starting the telemetry store (`workgym serve --role telemetry`) and "
          "`workgym serve`")
    with serving(["--role", "telemetry"]) as telemetry, serving(env={
            **os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": telemetry,
            "OTEL_BSP_SCHEDULE_DELAY": "200", "OTEL_METRIC_EXPORT_INTERVAL": "1000",
            "WORKGYM_TELEMETRY_URL": telemetry}) as url:
        print(f"demo: telemetry at {telemetry}, WorkGym at {url}, both ready in "
              f"{time.perf_counter() - started:.2f} s\n")
        runs = [(DEMO_TASK, "reference", f" (seed {opts.seed})"), (DEMO_TASK, "noop", None),
                (FAULT_TASK, "reference", f" (seed {opts.seed}; faults: the task's plan)"),
                (FAULT_TASK, "naive", None)]
        reports = [(agent, _episode(url, task, agent, opts.seed, show=show))
                   for task, agent, show in runs]
        for agent, report in reports:
            page = str(report.get("episode_page"))
            recorded = _wait_recorded(telemetry, settings.api_key, str(report["episode_id"]))
            print(f"demo: episode page of {report['task']} ({agent}): {page}"
                  + ("" if recorded else "  (its spans had not arrived yet)"))
        print(f"demo: the pages stay readable after the demo: the store is kept in "
              f"{TelemetrySettings().data_dir}; serve it again with `.venv/bin/workgym serve "
              f"--role telemetry --port {telemetry.rsplit(':', 1)[1]}` and open the links; the "
              f"index page ({telemetry}/) asks for the API key: WORKGYM_API_KEY, else the file "
              f"{settings.config_dir / credentials.API_KEY_FILE}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
