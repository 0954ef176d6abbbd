"""``make demo``: start the all-in-one server, run real episodes over HTTP, print rewards.

The server runs on embedded defaults (SQLite snapshots under .workgym/, an
embedded redis-server) on a free loopback port and is stopped afterwards.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time

import httpx

from .agents import AGENTS
from .cli import format_report
from .sdk import connect
from .tasks import catalogue

DEMO_TASK = "helpdesk/refund-standard"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, server: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"demo: the server exited with code {server.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"demo: the server did not answer at {url} within {timeout:.0f} s")


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--seed", type=int, default=7)
    args.add_argument("--task", default=DEMO_TASK)
    opts = args.parse_args()

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    print(f"demo: starting `workgym serve --port {port}` (embedded Redis, SQLite snapshots)")
    server = subprocess.Popen([sys.executable, "-m", "workgym", "serve", "--port", str(port)])
    try:
        started = time.perf_counter()
        _wait_healthy(url, server)
        print(f"demo: server ready in {time.perf_counter() - started:.2f} s at {url}\n")
        task = catalogue().get(opts.task)
        print(f"task {task.id}: {task.instruction.strip()}\n")
        for agent in ("reference", "noop"):
            with connect(url, task.id, seed=opts.seed) as env:
                env.reset()
                report = env.finish(answer=AGENTS[agent](env, task))
            print(format_report(report, agent) + "\n")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
